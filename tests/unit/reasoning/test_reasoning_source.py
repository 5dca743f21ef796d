"""The reasoning_source knob's meaning, shared by the families with CoT analyses."""

from __future__ import annotations

import pytest

from relreason_dagster.benchmarks import reasoning_source as rs


@pytest.mark.parametrize(
    ("setting", "has", "expected"),
    [
        ("answer", True, ("answer",)),
        ("trace", False, ("trace",)),
        ("both", False, ("answer", "trace")),
        ("auto", False, ("answer",)),
        ("auto", True, ("answer", "trace")),
    ],
)
def test_sources_per_setting(setting: str, has: bool, expected: tuple[str, ...]) -> None:
    assert rs.sources(setting, has) == expected


def test_text_and_traces() -> None:
    assert rs.text_of("answer", "A", "T") == "A"
    assert rs.text_of("trace", "A", None) == ""
    assert rs.has_traces([None, " ", "think"]) is True
    assert rs.has_traces([None, ""]) is False
    with pytest.raises(ValueError, match="reasoning_source"):
        rs.sources("trace_only", True)

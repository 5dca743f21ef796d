"""On a CPU that advertises Intel AMX the local model loads without llama.cpp's extra buffer types.

Why: llama.cpp's AMX kernels crash the process at the first decode (SIGSEGV at ``ldtilecfg``,
llama.cpp issue #20824); see ``local_provider.extra_buffer_types_enabled``.
"""

from __future__ import annotations

import pytest

from relreason_dagster.llm import local_provider


def test_amx_cpus_load_without_extra_buffer_types(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RELREASON_LLAMA_EXTRA_BUFTS", raising=False)
    monkeypatch.setattr(local_provider, "_cpu_advertises_amx", lambda: True)
    assert local_provider.extra_buffer_types_enabled() is False
    monkeypatch.setattr(local_provider, "_cpu_advertises_amx", lambda: False)
    assert local_provider.extra_buffer_types_enabled() is True


@pytest.mark.parametrize(("value", "expected"), [("1", True), ("0", False), ("false", False), ("yes", True)])
def test_the_environment_overrides_the_guess(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: bool
) -> None:
    monkeypatch.setattr(local_provider, "_cpu_advertises_amx", lambda: not expected)
    monkeypatch.setenv("RELREASON_LLAMA_EXTRA_BUFTS", value)
    assert local_provider.extra_buffer_types_enabled() is expected


def test_the_load_guard_turns_extra_buffers_off_and_restores_the_defaults() -> None:
    pytest.importorskip("llama_cpp")
    from relreason_dagster.llm.tokenizer import import_llama_cpp

    import_llama_cpp()
    import llama_cpp.llama_cpp as raw

    original = raw.llama_model_default_params
    assert original().use_extra_bufts is True
    with local_provider._model_params_without_extra_buffers():
        assert raw.llama_model_default_params().use_extra_bufts is False
    assert raw.llama_model_default_params is original

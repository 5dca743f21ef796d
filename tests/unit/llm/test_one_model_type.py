"""One model type (issue 59): ``ModelEntry`` is both the checked models.yaml entry and the model the
pipeline uses, so each field and its default is declared once.

Two checks: no second class in the package declares the model's fields again (the old resolved
dataclass repeated all of them, with its own defaults), and an entry as the registry reads it is the
very ``ModelEntry`` code builds, a run's settings carry (through JSON) and a launch's snapshot gives back.
"""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest

from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.registry import (
    DEFAULT_TIMEOUT_S,
    REASONING_TIMEOUT_S,
    STREAM_TIMEOUT_S,
    ModelEntry,
    RegistrySnapshot,
    load_registry,
    resolve_model,
    snapshot_registry,
)
from relreason_dagster.llm.request_key import request_hash

PACKAGE = Path(__file__).resolve().parents[3] / "relreason_dagster"

MODELS = """\
models:
  - name: plain
    litellm_model: openai/gpt-4o-mini
  - name: thinker
    litellm_model: openai/o4-mini
    params: {reasoning_effort: high}
  - name: streamed
    litellm_model: openai/gpt-4o-mini
    api_base: http://localhost:8000/v1
    stream: true
  - name: swept
    litellm_model: openai/gpt-4o-mini
    params: {temperature: 0}
    sweep: {temperature: [0, 0.7]}
"""


def _class_fields(path: Path) -> dict[str, set[str]]:
    """``{class name: names annotated in its body}`` of one module (dataclass, pydantic, typed fields)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name: {
            item.target.id
            for item in node.body
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
        }
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }


def test_no_second_class_declares_the_model_fields() -> None:
    model_fields = set(ModelEntry.model_fields)
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for name, fields in _class_fields(path).items():
            found[f"{path.relative_to(PACKAGE)}:{name}"] = fields
    # The scan sees the one type itself, with every field it declares.
    assert found["llm/registry.py:ModelEntry"] == model_fields
    # An entry to append (``models add``) names a few of the fields as written; a second model type
    # would repeat most of them.
    again = {
        where: sorted(fields & model_fields)
        for where, fields in found.items()
        if where != "llm/registry.py:ModelEntry"
        and "litellm_model" in fields
        and len(fields & model_fields) * 2 > len(model_fields)
    }
    assert again == {}, f"a second class declares the model's fields; use ModelEntry: {again}"


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "models.yaml"
    path.write_text(textwrap.dedent(MODELS), encoding="utf-8")
    return path


def test_an_entry_the_registry_reads_is_the_model_entry_the_pipeline_uses(tmp_path: Path) -> None:
    path = _write(tmp_path)
    specs = load_registry(path)
    assert list(specs) == ["plain", "thinker", "streamed", "swept@temperature=0", "swept@temperature=0.7"]

    plain = specs["plain"]
    assert plain == ModelEntry(name="plain", litellm_model="openai/gpt-4o-mini")
    # Every field left out holds its declared default; only the two with a rule are resolved.
    for field, info in ModelEntry.model_fields.items():
        if field not in ("name", "litellm_model", "params", "timeout_s"):
            assert getattr(plain, field) == info.default, field
    assert plain.params == {} and plain.timeout_s == DEFAULT_TIMEOUT_S
    assert specs["thinker"].timeout_s == REASONING_TIMEOUT_S
    assert specs["streamed"].timeout_s == STREAM_TIMEOUT_S
    assert ModelEntry(name="t", litellm_model="x/y", params={"reasoning_effort": "high"}).timeout_s == (
        REASONING_TIMEOUT_S
    )

    # What a run uses: resolve_model without options is the entry itself; a run's settings carry it as
    # JSON, and a launch's snapshot record gives back the same models, sweep variants included.
    for name, spec in specs.items():
        assert resolve_model(path, name) == spec
        assert ModelEntry(**json.loads(json.dumps(spec.model_dump()))) == spec, name
        assert "sweep" not in spec.model_dump()
    record = json.loads(json.dumps(snapshot_registry(path).record()))
    assert RegistrySnapshot.from_record(record).specs == specs

    low = specs["swept@temperature=0"]
    assert (low.sweep_base, low.sweep_param) == ("swept", "temperature")
    assert (low.sweep_level, low.sweep_rank) == (0, 0)
    assert low.timeout_s == DEFAULT_TIMEOUT_S and low.params == {"temperature": 0}


def test_a_changed_copy_is_not_validated_and_a_validated_one_resolves_again(tmp_path: Path) -> None:
    plain = load_registry(_write(tmp_path))["plain"]
    # model_copy: the gateway's per-worker shares and the registry's variants, attribute sets only.
    shared = plain.model_copy(update={"concurrency": 1, "name": "plain@x=1"})
    assert (shared.concurrency, shared.name, plain.concurrency) == (1, "plain@x=1", 4)
    # -M laid over an entry is checked again: its default timeout follows the new params.
    asked = resolve_model(tmp_path / "models.yaml", "plain", {"reasoning_effort": "high"})
    assert asked.timeout_s == REASONING_TIMEOUT_S and asked.params == {"reasoning_effort": "high"}


def test_a_sweep_level_equal_to_the_old_params_asks_nothing_again(tmp_path: Path) -> None:
    specs = load_registry(_write(tmp_path))
    messages = [{"role": "user", "content": "hi"}]
    before = ModelEntry(name="swept", litellm_model="openai/gpt-4o-mini", params={"temperature": 0})
    assert request_hash(specs["swept@temperature=0"], messages, 16) == request_hash(before, messages, 16)


@pytest.mark.parametrize("field", ["sweep_base", "sweep_param", "sweep_level", "sweep_rank"])
def test_a_variant_field_is_the_registrys_and_never_written(tmp_path: Path, field: str) -> None:
    """The variant fields are ModelEntry's, but only the registry sets them (from ``sweep:``)."""
    path = tmp_path / "models.yaml"
    path.write_text(f"models:\n  - {{name: m, litellm_model: openai/x, {field}: 0}}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_registry(path)
    message = str(info.value)
    assert f"models[0].{field}: unknown field; expected one of name, litellm_model," in message
    assert "sweep_" not in message.split("expected one of", 1)[1]

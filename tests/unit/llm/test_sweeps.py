"""models.yaml ``sweep:``: one entry, one model per level (issue 55, item 1).

The expansion, its names and params, the rows of ``raw.model_sweeps``, ``--model NAME`` selecting every
level, the names as Dagster partition keys, `relreason models add --sweep` and `models list`, and each
malformed sweep as one line naming the fix.  No model is called.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import dagster as dg
import pytest

from relreason_dagster.cli import main
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.registry import (
    REASONING_TIMEOUT_S,
    ModelEntry,
    load_registry,
    parse_registry,
    resolve_model,
)
from relreason_dagster.llm.request_key import request_hash
from relreason_dagster.llm.sweeps import expand_names, sweep_rows, variant_name
from tests.pipeline_home import isolated_home

SWEPT = """\
models:
  - name: o4
    litellm_model: openai/o4-mini
    params: {reasoning_effort: high, max_tokens: 512, temperature: 1}
    sweep: {reasoning_effort: [low, medium, high]}
  - name: claude
    litellm_model: anthropic/claude-sonnet-4-5
    params: {thinking: {type: enabled, budget_tokens: 2048}}
    sweep: {thinking.budget_tokens: [1024, 4096, 16384]}
  - name: capped
    litellm_model: openai/gpt-4o-mini
    sweep: {max_tokens: [64, 256]}
  - name: plain
    litellm_model: openai/gpt-4o-mini
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "models.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def error_of(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        import yaml

        parse_registry(yaml.safe_load(textwrap.dedent(text)), "models.yaml")
    message = str(info.value)
    assert "\n" not in message, message
    return message


def test_a_sweep_expands_into_one_model_per_level_with_the_level_in_its_params(tmp_path):
    specs = load_registry(write(tmp_path, SWEPT))
    assert list(specs) == [
        "o4@reasoning_effort=low",
        "o4@reasoning_effort=medium",
        "o4@reasoning_effort=high",
        "claude@thinking.budget_tokens=1024",
        "claude@thinking.budget_tokens=4096",
        "claude@thinking.budget_tokens=16384",
        "capped@max_tokens=64",
        "capped@max_tokens=256",
        "plain",
    ]
    low = specs["o4@reasoning_effort=low"]
    # The level wins over the entry's own value; the entry's other params stay.
    assert low.params == {"reasoning_effort": "low", "max_tokens": 512, "temperature": 1}
    swept = (low.sweep_base, low.sweep_param, low.sweep_level, low.sweep_rank)
    assert swept == ("o4", "reasoning_effort", "low", 0)
    assert low.litellm_model == "openai/o4-mini" and low.timeout_s == REASONING_TIMEOUT_S
    # A dotted param sets a key inside a nested mapping, keeping its other keys.
    deep = specs["claude@thinking.budget_tokens=16384"]
    assert deep.params == {"thinking": {"type": "enabled", "budget_tokens": 16384}}
    assert (deep.sweep_level, deep.sweep_rank) == (16384, 2)
    assert specs["capped@max_tokens=256"].params == {"max_tokens": 256}
    plain = specs["plain"]
    assert (plain.sweep_base, plain.sweep_param, plain.sweep_level, plain.sweep_rank) == (None,) * 4


def test_the_level_the_entry_had_keeps_its_request_hash():
    """Acceptance 4 at the unit level: the name is not in the hash, the params are the same."""
    import yaml

    entry = "{name: o4, litellm_model: openai/o4-mini, params: {reasoning_effort: high}"
    before = parse_registry(yaml.safe_load(f"models:\n- {entry}}}"), "a")["o4"]
    swept = f"models:\n- {entry}, sweep: {{reasoning_effort: [low, high]}}}}"
    after = parse_registry(yaml.safe_load(swept), "b")
    messages = [{"role": "user", "content": "Is 7 prime?"}]
    old = request_hash(before, messages, 64)
    assert request_hash(after["o4@reasoning_effort=high"], messages, 64) == old
    assert request_hash(after["o4@reasoning_effort=low"], messages, 64) != old


def test_sweep_rows_carry_base_param_level_text_and_rank(tmp_path):
    specs = load_registry(write(tmp_path, SWEPT))
    rows = {row["model"]: row for row in sweep_rows(list(specs.values()))}
    assert "plain" not in rows and len(rows) == 8
    assert rows["o4@reasoning_effort=medium"] == {
        "model": "o4@reasoning_effort=medium",
        "base_model": "o4",
        "param": "reasoning_effort",
        "level": "medium",
        "level_rank": 1,
    }
    assert rows["claude@thinking.budget_tokens=4096"]["level"] == "4096"  # JSON text of a number
    assert rows["capped@max_tokens=64"]["level_rank"] == 0
    assert variant_name("m", "flag", True) == "m@flag=true"


def test_the_base_name_selects_every_level_and_a_variant_name_itself(tmp_path):
    specs = load_registry(write(tmp_path, SWEPT))
    assert expand_names(["o4"], specs) == [
        "o4@reasoning_effort=low",
        "o4@reasoning_effort=medium",
        "o4@reasoning_effort=high",
    ]
    assert expand_names(["o4@reasoning_effort=high", "plain", "openai/x", "dlm"], specs) == [
        "o4@reasoning_effort=high",
        "plain",
        "openai/x",
        "dlm",
    ]
    assert expand_names(["o4@reasoning_effort=high", "o4"], specs)[0] == "o4@reasoning_effort=high"
    assert len(expand_names(["o4@reasoning_effort=high", "o4"], specs)) == 3


def test_a_launch_plan_runs_every_level_of_a_named_sweep(tmp_path):
    from relreason_dagster.launch_plan import build_plan

    path = write(tmp_path, SWEPT)
    plan = build_plan(["o4", "plain"], profile="smoke", benchmarks=["flenqa"], models_file=path)
    names = [spec.name for spec in plan.specs]
    assert names == [*expand_names(["o4"], load_registry(path)), "plain"]
    assert plan.models == tuple(names)
    one = build_plan(["o4@reasoning_effort=medium"], profile="smoke", benchmarks=["flenqa"], models_file=path)
    assert [spec.name for spec in one.specs] == ["o4@reasoning_effort=medium"]
    with pytest.raises(ConfigError, match="unknown model 'o4@reasoning_effort=ultra'"):
        build_plan(["o4@reasoning_effort=ultra"], profile="smoke", benchmarks=["flenqa"], models_file=path)


def test_model_options_keep_the_variant_and_refuse_to_override_its_level(tmp_path):
    path = write(tmp_path, SWEPT)
    spec = resolve_model(path, "o4@reasoning_effort=low", {"temperature": 0, "concurrency": 2})
    assert spec.name == "o4@reasoning_effort=low" and spec.concurrency == 2
    assert spec.params["temperature"] == 0 and spec.params["reasoning_effort"] == "low"
    assert (spec.sweep_base, spec.sweep_level, spec.sweep_rank) == ("o4", "low", 0)
    with pytest.raises(ConfigError) as info:
        resolve_model(path, "o4@reasoning_effort=low", {"reasoning_effort": "high"})
    assert "drop -M reasoning_effort" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(ConfigError, match="drop -M thinking"):
        resolve_model(path, "claude@thinking.budget_tokens=1024", {"thinking": {"type": "disabled"}})
    with pytest.raises(ConfigError, match="-M sweep: a sweep is a models.yaml entry's"):
        resolve_model(path, "plain", {"sweep": "reasoning_effort=low"})


def test_variant_names_are_valid_dagster_partition_keys(tmp_path):
    from relreason_dagster.defs.partitions import MODELS_PARTITION, models_partitions

    names = list(load_registry(write(tmp_path, SWEPT)))
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(MODELS_PARTITION, names)
        assert models_partitions.get_partition_keys(dynamic_partitions_store=instance) == names


@pytest.mark.parametrize(
    ("sweep", "says"),
    [
        (
            "{reasoning_effort: [low], temperature: [0, 1]}",
            "sweeps one parameter, got 2 (reasoning_effort, temperature); make one entry per parameter",
        ),
        ("{reasoning_effort: []}", "sweep.reasoning_effort: expected a list of at least one level"),
        ("{reasoning_effort: low}", "sweep.reasoning_effort: expected a list of at least one level"),
        ("{reasoning_effort: [low, [medium]]}", "effort[1]: expected a string, a number or true/false"),
        ("{reasoning_effort: [low, null]}", "effort[1]: expected a string, a number or true/false"),
        ("{reasoning_effort: [low, high, low]}", "effort[2]: 'low' is already level 0; list each level once"),
        ("{max_tokens: [1024, 0]}", "sweep.max_tokens: expected a positive integer, got 0"),
        ("{temperature: [0, hot]}", "sweep.temperature: expected a number, got 'hot'"),
        ("{reasoning_effort: [very high]}", "sweep.reasoning_effort[0]: a level is part of the model name"),
        ("{reasoning_effort: [a...b]}", "sweep.reasoning_effort[0]: a level is part of the model name"),
        ("[low, high]", "sweep: expected one parameter and its levels, e.g. {reasoning_effort: [low, medium"),
        ("{n: [1, 2]}", "sweep.n: several draws per request are the entry field n"),
        ("{temperature.x: [1]}", "params.temperature is 0, not a mapping"),
        ("{'bad=name': [1]}", "is not a parameter name"),
    ],
)
def test_a_bad_sweep_is_one_line_naming_the_fix(sweep, says):
    message = error_of(
        f"""\
        models:
          - name: o4
            litellm_model: openai/o4-mini
            params: {{temperature: 0}}
            sweep: {sweep}
        """
    )
    assert message.startswith("models.yaml: models[0].sweep"), message
    assert says in message, message


def test_a_swept_name_is_taken_like_any_other():
    message = error_of(
        """\
        models:
          - {name: o4, litellm_model: openai/o4-mini, sweep: {reasoning_effort: [low, high]}}
          - {name: o4, litellm_model: openai/o4-mini}
        """
    )
    assert "models[1].name: duplicate model name 'o4' (already used by models[0])" in message


def test_models_add_sweep_writes_the_entry_and_list_shows_each_variant(tmp_path, capsys):
    mp = pytest.MonkeyPatch()
    try:
        models = isolated_home(mp, tmp_path, "models:\n- {name: plain, litellm_model: openai/gpt-4o-mini}\n")
        argv = ["models", "add", "o4", "openai/o4-mini", "--param", "max_tokens=512"]
        assert main([*argv, "--sweep", "reasoning_effort=low,medium,high"]) == 0
        said = capsys.readouterr().out
        assert "as 3 models, one per level (o4@reasoning_effort=low, " in said
        assert "  sweep: {reasoning_effort: [low, medium, high]}\n" in models.read_text()
        budget = ["models", "add", "budget", "anthropic/x", "--sweep", "thinking.budget_tokens=1024,4096"]
        assert main(budget) == 0
        capsys.readouterr()
        specs = load_registry(models)
        assert specs["budget@thinking.budget_tokens=4096"].params == {"thinking": {"budget_tokens": 4096}}
        assert main(["models", "list"]) == 0
        table = capsys.readouterr().out.splitlines()[1:]
        listed = [line.split()[0] for line in table if line.strip() and not line.startswith("-")]
        assert listed[:6] == [
            "plain",
            "o4@reasoning_effort=low",
            "o4@reasoning_effort=medium",
            "o4@reasoning_effort=high",
            "budget@thinking.budget_tokens=1024",
            "budget@thinking.budget_tokens=4096",
        ]
        before = models.read_text()
        assert main(["models", "add", "x", "openai/o4-mini", "--sweep", "reasoning_effort"]) == 2
        assert "--sweep 'reasoning_effort': expected PARAM=LEVEL,LEVEL,..." in capsys.readouterr().err
        assert main(["models", "add", "o4", "openai/o4-mini", "--sweep", "reasoning_effort=low"]) == 2
        assert "model 'o4' already exists" in capsys.readouterr().err
        assert models.read_text() == before
    finally:
        mp.undo()


def test_models_add_study_sweeps_its_reasoning_models_only(tmp_path, capsys):
    mp = pytest.MonkeyPatch()
    try:
        models = isolated_home(mp, tmp_path, "models:\n")
        assert main(["models", "add", "--study", "relational", "--sweep", "reasoning_effort=low,high"]) == 2
        assert "--sweep: no model of study 'relational' is a reasoning model" in capsys.readouterr().err
        assert models.read_text() == "models:\n"
        assert main(["models", "add", "--study", "kor", "--sweep", "reasoning_effort=low,high"]) == 0
        out = capsys.readouterr().out
        specs = load_registry(models)
        # o1 models reason (LiteLLM's offline model map says so); GPT-4o does not and gets no sweep.
        assert "kor-o1-mini-2024-09-12@reasoning_effort=high" in specs
        assert "kor-gpt-4o-2024-05-13" in specs
        assert not any(name.startswith("kor-gpt-4o-2024-05-13@") for name in specs)
        assert "swept over reasoning_effort = low, high (a model per level)" in out
    finally:
        mp.undo()


def test_a_dry_run_of_a_sweep_lists_each_level(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    mp = pytest.MonkeyPatch()
    try:
        isolated_home(
            mp,
            tmp_path,
            "models:\n  - name: o4\n    litellm_model: openai/o4-mini\n"
            "    sweep: {reasoning_effort: [low, high]}\n",
        )
        argv = ["run", "--dry-run", "--profile", "smoke", "--benchmark", "flenqa", "--limit", "1"]
        assert main([*argv, "--model", "o4"]) == 0
        rows = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.startswith("o4@")]
        assert rows == ["o4@reasoning_effort=low", "o4@reasoning_effort=high"]
        assert main([*argv, "--model", "o4@reasoning_effort=high"]) == 0
        rows = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.startswith("o4@")]
        assert rows == ["o4@reasoning_effort=high"]
    finally:
        mp.undo()


def test_model_spec_records_round_trip_with_the_sweep_fields(tmp_path):
    from relreason_dagster.llm.registry import snapshot_registry

    snapshot = snapshot_registry(write(tmp_path, SWEPT))
    again = type(snapshot).from_record(snapshot.record())
    assert again.specs == snapshot.specs
    assert isinstance(again.specs["claude@thinking.budget_tokens=1024"], ModelEntry)

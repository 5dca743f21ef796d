"""The keys that let unchanged work be kept: a family's samples and prompts (``storage/built_from.py``)
and a model's complete pass over the prompts (``storage/answered.py``).

A kept result is only correct if whatever could change it changes its key, and only useful if nothing
else does: each input is changed alone here, and the key must move; repeating it must not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.relational.profile_schema import Knobs
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.storage import answered, built_from, fingerprints
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.prompt_snapshots import write_snapshot
from relreason_dagster.storage.responses import ResponseStore
from tests.unit.storage.test_lake import row


@pytest.fixture
def reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ref = tmp_path / "reference"
    (ref / "kor").mkdir(parents=True)
    (ref / "kor" / "rules.json").write_text("[]")
    monkeypatch.setenv("RELREASON_REFERENCE_DIR", str(ref))
    return ref


PROFILE = Profile(name="smoke", params={"n_iid": 4, "settings": ["nl", "tv"]}, knobs=Knobs)


@pytest.mark.parametrize("change", ["profile knob", "seed", "code", "reference data", "named data folder"])
def test_every_input_of_a_family_build_changes_its_key(change, reference, tmp_path, monkeypatch):
    data = tmp_path / "mydata"
    data.mkdir()
    (data / "items.json").write_text("[1]")
    profile = Profile(name="smoke", params={**PROFILE.params, "data_dir": str(data)}, knobs=Knobs)
    code = tmp_path / "code"
    code.mkdir()
    (code / "family.py").write_text("X = 1\n")
    roots = [*fingerprints.code_roots(), code]
    monkeypatch.setattr(fingerprints, "code_roots", lambda: roots)

    def keys() -> tuple[str, str]:
        samples = built_from.samples_key("kor", profile, seed, fingerprints.code_digest())
        return samples, built_from.prompts_key("kor", profile, samples, fingerprints.code_digest())

    seed = 0
    first = keys()
    assert keys() == first
    if change == "profile knob":
        profile = Profile(name="smoke", params={**profile.params, "n_iid": 5}, knobs=Knobs)
    elif change == "seed":
        seed = 1
    elif change == "code":
        (code / "family.py").write_text("X = 2\n")
    elif change == "reference data":
        (reference / "kor" / "more.json").write_text("[]")
    else:
        (data / "items.json").write_text("[1, 2]")
    second = keys()
    assert second[0] != first[0] and second[1] != first[1]


def test_build_records_are_per_asset_and_family(tmp_path):
    import duckdb

    from relreason_dagster.storage.schema import ensure_schema

    con = duckdb.connect(str(tmp_path / "r.duckdb"))
    ensure_schema(con, Lake.open(tmp_path / "lake"))
    built_from.record(con, built_from.SAMPLES, {"kor": ("k1", 10), "relational": ("k2", 20)})
    built_from.record(con, built_from.PROMPTS, {"kor": ("k3", 30)})
    assert built_from.stored_keys(con, built_from.SAMPLES, ["kor", "flenqa"]) == {"kor": ("k1", 10)}
    built_from.forget(con, built_from.SAMPLES, ["kor"])
    assert built_from.stored_keys(con, built_from.SAMPLES, ["kor", "relational"]) == {
        "relational": ("k2", 20)
    }
    assert built_from.stored_keys(con, built_from.PROMPTS, ["kor"]) == {"kor": ("k3", 30)}
    con.close()


SPEC = ModelEntry(name="m", litellm_model="openai/x", params={"temperature": 0})


def _prompts(n: int) -> list[dict]:
    return [
        {"prompt_id": f"p{i}", "messages": '[{"role": "user", "content": "q"}]', "max_tokens": 8}
        for i in range(n)
    ]


@pytest.mark.parametrize("change", ["params", "new snapshot", "new answer", "deleted answers", "code"])
def test_every_input_of_a_models_pass_changes_its_key(change, tmp_path, monkeypatch):
    lake = Lake.open(tmp_path / "lake")
    store = ResponseStore(lake)
    write_snapshot(lake, "relational", _prompts(3))
    written = store.append([row("p0", "m", "yes")])
    spec = SPEC
    first = answered.pass_key(lake, spec, ["relational"])
    assert first is not None and answered.pass_key(lake, spec, ["relational"]) == first
    store.append([row("p0", "other", "yes")])  # another model's answers are not this pass's input
    assert answered.pass_key(lake, spec, ["relational"]) == first
    if change == "params":
        spec = ModelEntry(name="m", litellm_model="openai/x", params={"temperature": 0.5})
    elif change == "new snapshot":
        write_snapshot(lake, "relational", _prompts(4))
    elif change == "new answer":
        store.append([row("p1", "m", "no")])
    elif change == "deleted answers":
        lake.fs.delete_file(written[0])
    else:
        code = tmp_path / "code"
        code.mkdir()
        (code / "gateway.py").write_text("HASH = 2\n")
        roots = [*fingerprints.code_roots(), code]
        monkeypatch.setattr(fingerprints, "code_roots", lambda: roots)
    assert answered.pass_key(lake, spec, ["relational"]) != first


def test_a_pass_record_is_read_back_and_forgotten(tmp_path):
    lake = Lake.open(tmp_path / "lake")
    assert answered.pass_key(lake, SPEC, ["relational"]) is None  # no prompts yet: no key
    assert answered.read_pass(lake, "m") is None
    answered.write_pass(lake, "m", "k", 3)
    assert answered.read_pass(lake, "m") == {"model": "m", "key": "k", "prompts": 3}
    assert answered.read_pass(lake, "other") is None
    answered.forget_pass(lake, "m")
    answered.forget_pass(lake, "m")  # forgetting twice is fine
    assert answered.read_pass(lake, "m") is None
    # The record is not a lake table file: no reader of responses or prompts sees it.
    answered.write_pass(lake, "m", "k", 3)
    assert lake.files("responses") == [] and lake.files("prompts") == []


@pytest.mark.parametrize("change", ["new answer", "parsed row", "prompts rebuilt", "sample deleted"])
def test_every_input_of_a_models_parsed_answers_changes_their_key(change, tmp_path):
    import duckdb

    from relreason_dagster.storage.schema import ensure_schema

    lake = Lake.open(tmp_path / "lake")
    store = ResponseStore(lake)
    con = duckdb.connect(str(tmp_path / "r.duckdb"))
    ensure_schema(con, lake)
    store.append([row("p0", "m", "yes")])
    con.execute(
        "INSERT INTO raw.samples (benchmark, task, sample_id, split) VALUES ('relational', 't', 's0', 'iid')"
    )
    con.execute(
        "INSERT INTO raw.prompts (prompt_id, sample_id, benchmark, task, split, setting, messages)"
        " VALUES ('p0', 's0', 'relational', 't', 'iid', 'nl', '[]')"
    )
    con.execute(
        "INSERT INTO raw.parsed_answers (prompt_id, model, parse_status, parse_key)"
        " VALUES ('p0', 'm', 'ok', 'k0')"
    )
    built_from.record(con, built_from.PROMPTS, {"relational": ("kp", 1)})
    first = built_from.parsed_key(con, "m")
    assert first[1] == 1 and built_from.parsed_key(con, "m") == first
    store.append([row("p0", "other", "no")])  # another model's answers are not this model's input
    built_from.record(con, built_from.PARSED, {"other": ("x", 1)})  # nor another model's record
    assert built_from.parsed_key(con, "m") == first
    if change == "new answer":
        store.append([row("p0", "m", "no", minute=1)])
    elif change == "parsed row":
        con.execute("UPDATE raw.parsed_answers SET parse_key = 'k1' WHERE model = 'm'")
    elif change == "prompts rebuilt":
        built_from.record(con, built_from.PROMPTS, {"relational": ("kp2", 1)})
    else:
        con.execute("DELETE FROM raw.samples")
    assert built_from.parsed_key(con, "m") != first
    con.close()

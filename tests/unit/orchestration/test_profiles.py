"""Profiles as user configuration: each family's built-in sections, a user file that extends and
overrides single knobs, and one error line (file, key path, expected type) for every mistake."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from relreason_dagster import profiles
from relreason_dagster.benchmarks.registry import family_names
from relreason_dagster.cli import main
from relreason_dagster.errors import ConfigError
from tests.profile_files import use_profiles


@pytest.fixture(autouse=True)
def no_user_file(tmp_path, monkeypatch):
    """Every test starts without a profile file (none named, none in the working directory)."""
    monkeypatch.delenv(profiles.PROFILE_FILE_ENV, raising=False)
    monkeypatch.chdir(tmp_path)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_every_family_declares_smoke_and_paper_in_its_folder_within_its_schema():
    builtin = profiles.builtin_profiles()
    assert {"smoke", "paper"} <= set(builtin)  # a family may add its own (selfcontra: paper-s3)
    for name in family_names():
        schema = profiles.family_schema(name)
        assert schema, name
        for profile in ("smoke", "paper"):
            section = builtin[profile][name]
            assert set(section) <= set(schema), (profile, name)
            assert all(profiles.matches(v, schema[k]) for k, v in section.items()), (profile, name)


def test_builtin_values_are_the_studies_and_the_demo_sizes():
    """Spot checks of the sizes the README and the marts rely on (sample ids follow from these)."""
    assert profiles.get_profile("smoke", "relational").params["dlm_overrides"] == {"max_epochs": 20}
    assert profiles.get_profile("smoke", "kor").params["rules"]["cipher"] == ["23"]
    assert profiles.get_profile("paper", "flenqa").params["lengths"] == [250, 500, 1000, 2000, 3000]
    assert profiles.get_profile("paper", "selfcontra").params["detect_limit"] is None
    assert profiles.profile_families("smoke") == ["flenqa", "kor", "relational", "selfcontra"]


def test_extends_changes_just_the_overridden_knob(tmp_path, monkeypatch):
    mine = {"extends": "smoke", "kor": {"self_correction_rounds": 2}}
    use_profiles(monkeypatch, tmp_path / "my.yaml", {"mine": mine})
    mine, smoke = profiles.resolve("mine"), profiles.resolve("smoke")
    assert mine["kor"] == {**smoke["kor"], "self_correction_rounds": 2}
    assert {k: v for k, v in mine.items() if k != "kor"} == {k: v for k, v in smoke.items() if k != "kor"}
    assert profiles.get_profile("mine", "kor").values().self_correction_rounds == 2
    assert profiles.profile_names() == ["long", "mine", "paper", "paper-s3", "smoke"]  # long: FLenQA's


def test_a_chain_of_user_profiles_applies_every_layer_and_replaces_values_whole(tmp_path, monkeypatch):
    use_profiles(
        monkeypatch,
        tmp_path / "my.yaml",
        {
            "base": {"extends": "paper", "kor": {"questions_per_rule": 3, "rules": {"cipher": ["1"]}}},
            "top": {"extends": "base", "kor": {"max_tokens": 64}, "flenqa": None},
        },
    )
    kor = profiles.get_profile("top", "kor").params
    assert (kor["questions_per_rule"], kor["max_tokens"], kor["source"]) == (3, 64, "official")
    assert kor["rules"] == {"cipher": ["1"]}  # a knob's value is replaced, not merged
    assert profiles.profile_families("top") == ["kor", "relational", "selfcontra"]  # null drops flenqa
    assert profiles.profile_families("base") == ["flenqa", "kor", "relational", "selfcontra"]


def test_a_user_profile_named_like_a_builtin_one_overrides_it_knob_by_knob(tmp_path, monkeypatch):
    use_profiles(monkeypatch, tmp_path / "my.yaml", {"smoke": {"selfcontra": {"judge": "judge"}}})
    before = profiles.builtin_profiles()["smoke"]["selfcontra"]
    assert profiles.get_profile("smoke", "selfcontra").params == {**before, "judge": "judge"}
    assert profiles.builtin_profiles()["smoke"]["selfcontra"]["judge"] == "smollm2-135m"  # not mutated


def test_a_profile_without_extends_holds_only_its_own_families(tmp_path, monkeypatch):
    use_profiles(monkeypatch, tmp_path / "my.yaml", {"tiny": {"relational": {"n_iid": 1}}})
    assert profiles.profile_families("tiny") == ["relational"]
    assert profiles.get_profile("tiny", "relational").params == {"n_iid": 1}
    assert profiles.get_profile("tiny", "kor").params == {}


def test_relreason_yaml_in_the_working_directory_is_read_and_the_env_file_wins(tmp_path, monkeypatch):
    _write(tmp_path / "relreason.yaml", "local: {extends: smoke}\n")
    assert "local" in profiles.profile_names()
    named = _write(tmp_path / "other.yaml", "named: {extends: paper}\n")
    monkeypatch.setenv(profiles.PROFILE_FILE_ENV, str(named))
    assert "named" in profiles.profile_names() and "local" not in profiles.profile_names()


def test_an_edited_file_is_read_again(tmp_path, monkeypatch):
    path = use_profiles(monkeypatch, tmp_path / "my.yaml", {"a": {"relational": {"n_iid": 1}}})
    assert profiles.get_profile("a", "relational").values().n_iid == 1
    _write(path, "a: {relational: {n_iid: 12}}\nb: {extends: a}\n")
    assert profiles.get_profile("b", "relational").values().n_iid == 12


def test_use_profile_file_pins_an_absolute_path_for_the_command_only(tmp_path, monkeypatch):
    _write(tmp_path / "relreason.yaml", "local: {extends: smoke}\n")
    monkeypatch.delenv(profiles.PROFILE_FILE_ENV, raising=False)
    try:
        assert profiles.use_profile_file(None) == Path("relreason.yaml")
        assert profiles.profile_file() == tmp_path / "relreason.yaml"
        assert Path(profiles.profile_file()).is_absolute()
        assert profiles.PROFILE_FILE_ENV not in os.environ  # nothing is exported to the environment
        monkeypatch.chdir(tmp_path.parent)  # the command's choice holds wherever it looks from
        assert "local" in profiles.profile_names()
    finally:
        profiles.forget_profile_file()
    assert profiles.profile_file() is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "mine:\n  extends: smoke\n  kor:\n    self_correction_rounds: two\n",
            "mine.kor.self_correction_rounds: expected int, got 'two'",
        ),
        (
            "mine: {kor: {self_correction_rounds: true}}\n",
            "mine.kor.self_correction_rounds: expected int, got True",
        ),
        ("mine: {kor: {rules: {cipher: [23]}}}\n", "mine.kor.rules: expected dict[str, list[str]], got"),
        (
            "mine: {relational: {dlm_tasks: HasFather}}\n",
            "mine.relational.dlm_tasks: expected list[str] | null",
        ),
        ("mine: {kor: {rounds: 2}}\n", "mine.kor.rounds: unknown kor knob; known: "),
        # Read when the profile loads, not when the judge's step runs.
        (
            "mine: {selfcontra: {detect_methods: []}}\n",
            "mine.selfcontra.detect_methods: expected a non-empty list of iro, binary, fge, got []",
        ),
        (
            "mine: {selfcontra: {detect_methods: [iro, vibes]}}\n",
            "mine.selfcontra.detect_methods: expected a non-empty list of iro, binary, fge, got ['iro', 'v",
        ),
        (
            "mine: {selfcontra: {stereotypes: []}}\n",
            "mine.selfcontra.stereotypes: expected a non-empty list of anti, pro",
        ),
        (
            "mine: {selfcontra: {splits: [train]}}\n",
            "mine.selfcontra.splits: expected a non-empty list of test, dev",
        ),
        (
            "mine: {korr: {rounds: 2}}\n",
            "mine.korr: unknown family; known: flenqa, kor, relational, selfcontra",
        ),
        (
            "mine: {extends: smok}\n",
            "mine.extends: unknown profile 'smok'; known: long, mine, paper, paper-s3, smoke",
        ),
        ("mine: {extends: [smoke]}\n", "mine.extends: expected str (a profile name), got ['smoke']"),
        ("a: {extends: b}\nb: {extends: a}\nmine: {extends: a}\n", "extends: cycle a -> b -> a"),
        ("mine: {extends: mine}\n", "mine.extends: cycle mine -> mine"),
        ("mine: [smoke]\n", "mine: expected a mapping of family -> knobs"),
        ("mine: {kor: 3}\n", "mine.kor: expected a mapping of knob -> value, got 3"),
        ("- mine\n", "expected a mapping of profile -> "),
        ("mine: {kor: {max_tokens: 96}\n", "not valid YAML at line"),
    ],
)
def test_a_malformed_profile_file_is_one_line_naming_file_key_and_type(tmp_path, monkeypatch, text, expected):
    path = _write(tmp_path / "my.yaml", text)
    monkeypatch.setenv(profiles.PROFILE_FILE_ENV, str(path))
    with pytest.raises(ConfigError) as info:
        profiles.get_profile("mine", "kor")
    message = str(info.value)
    assert message.startswith("my.yaml: ") and expected in message, message  # relative to the cwd
    assert "\n" not in message


def test_the_cli_prints_a_bad_profile_file_as_one_line(tmp_path, monkeypatch, capsys):
    path = _write(tmp_path / "my.yaml", "mine: {extends: smoke, kor: {self_correction_rounds: two}}\n")
    monkeypatch.delenv(profiles.PROFILE_FILE_ENV, raising=False)
    argv = ["run", "--profile-file", str(path), "--profile", "mine", "--model", "x"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == "relreason: my.yaml: mine.kor.self_correction_rounds: expected int, got 'two'\n"
    assert main(["status", "--profile-file", str(tmp_path / "absent.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "absent.yaml: no such profile file" in err


def test_unknown_profile_names_the_user_ones_too(tmp_path, monkeypatch):
    use_profiles(monkeypatch, tmp_path / "my.yaml", {"mine": {"extends": "smoke"}})
    with pytest.raises(
        ConfigError, match="unknown profile 'huge'; known profiles: long, mine, paper, paper-s3, smoke"
    ):
        profiles.get_profile("huge", "kor")


@pytest.mark.parametrize(
    ("value", "hint", "ok"),
    [
        (3, int, True),
        (True, int, False),
        (3, float, True),
        (None, int | None, True),
        ([1, 2], list[int], True),
        ([1, "2"], list[int], False),
        ({"a": ["x"]}, dict[str, list[str]], True),
        ({1: ["x"]}, dict[str, list[str]], False),
        (96, int | dict[str, int], True),
        ({"zero_shot": 96}, int | dict[str, int], True),
    ],
)
def test_knob_types(value, hint, ok):
    assert profiles.matches(value, hint) is ok


def test_type_names_read_like_yaml():
    assert profiles.type_name(dict[str, list[str]] | None) == "dict[str, list[str]] | null"
    assert yaml.safe_load("x: null")["x"] is None  # the word the error uses is the YAML word


def test_a_new_family_brings_its_profiles_and_schema_in_its_own_folder(tmp_path, monkeypatch):
    """A toy family registered at run time: its folder's profiles.yaml and profile_schema.py (its Knobs
    model) are used,
    with no edit anywhere else (the registry entry is the only other line)."""
    from relreason_dagster.benchmarks.registry import FAMILIES

    folder = tmp_path / "toyfamily_pkg"
    folder.mkdir()
    _write(folder / "__init__.py", "")
    _write(folder / "family.py", "class ToyFamily:\n    name = 'toy'\n    tasks = ('count',)\n")
    _write(folder / "profiles.yaml", "smoke: {size: 2}\npaper: {size: 100}\n")
    _write(
        folder / "profile_schema.py",
        "from relreason_dagster.benchmarks.base import FamilyKnobs\n\n"
        "class Knobs(FamilyKnobs):\n    size: int = 2\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    from toyfamily_pkg.family import ToyFamily

    monkeypatch.setitem(FAMILIES, "toy", ToyFamily())
    assert profiles.get_profile("paper", "toy").params == {"size": 100}
    assert "toy" in profiles.profile_families("smoke")
    use_profiles(monkeypatch, tmp_path / "my.yaml", {"mine": {"extends": "smoke", "toy": {"size": "big"}}})
    with pytest.raises(ConfigError, match=r"^my.yaml: mine.toy.size: expected int, got 'big'$"):
        profiles.get_profile("mine", "toy")
    monkeypatch.delenv(profiles.PROFILE_FILE_ENV)
    monkeypatch.delitem(FAMILIES, "toy")
    assert "toy" not in profiles.profile_families("smoke")

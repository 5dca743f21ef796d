"""Family subcommands are registered by the families (``benchmarks/<family>/commands.py``).

The CLI (``relreason_dagster/cli/``) names no family; every family's commands are reachable from
`relreason` under the names users type today; a toy family from the test folder brings its own
command and `relreason run` option with no edit anywhere else; and building the parser (all
`relreason --help` needs) loads no Dagster.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from relreason_dagster import pipeline
from relreason_dagster.benchmarks.registry import FAMILIES, family_names
from relreason_dagster.cli import main
from relreason_dagster.cli import parser as cli_parser
from relreason_dagster.cli.parser import build_parser, family_command_modules
from relreason_dagster.errors import ConfigError
from relreason_dagster.launch_plan import LaunchPlan


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(command words, parser) of every runnable command under ``parser``."""
    children = _subcommands(parser)
    if not children:
        yield path, parser
    for name, child in children.items():
        yield from _leaves(child, (*path, name))


def test_cli_names_no_family():
    folder = Path(cli_parser.__file__).parent
    source = "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*.py")))
    assert family_names()  # the check below would pass on an empty registry
    found = {name: re.findall(rf".*{name}.*", source, re.IGNORECASE) for name in family_names()}
    assert not any(found.values()), {name: lines for name, lines in found.items() if lines}


def test_every_command_has_a_handler():
    """A command without one would end in a traceback instead of doing its job."""
    leaves = list(_leaves(build_parser()))
    assert len(leaves) > 10
    missing = [" ".join(path) for path, parser in leaves if not callable(parser.get_default("handler"))]
    assert not missing


def test_family_commands_keep_the_names_users_type(monkeypatch):
    top = _subcommands(build_parser())
    monkeypatch.setattr(cli_parser, "family_command_modules", lambda: [])
    registered = set(top) - set(_subcommands(build_parser()))
    assert registered == {"flenqa", "kor", "selfcontra"}
    assert set(_subcommands(top["flenqa"])) == {"import"}
    assert set(_subcommands(top["kor"])) == {"rescore", "rescore-mixed"}
    assert set(_subcommands(top["selfcontra"])) == {"import-annotations", "export-annotations", "detect"}
    monkeypatch.undo()
    assert {m.__name__.rsplit(".", 2)[1] for m in family_command_modules()} == registered


@pytest.mark.parametrize(
    "words",
    [
        ["kor"],
        ["kor", "rescore"],
        ["selfcontra"],
        ["selfcontra", "import-annotations"],
        ["selfcontra", "export-annotations"],
        ["selfcontra", "detect"],
    ],
)
def test_family_commands_answer_help(words, capsys):
    with pytest.raises(SystemExit) as exc:
        main([*words, "--help"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: relreason {' '.join(words)}")


def test_family_command_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["selfcontra", "detect", "--method", "vibes"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--method" in err and "relreason selfcontra detect --help" in err
    with pytest.raises(SystemExit):
        main(["kor"])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "relreason kor --help" in err


@pytest.fixture
def stopped_run(tmp_path, monkeypatch) -> dict[str, object]:
    """The keywords `relreason run` passes to run_pipeline, and its plan's judge: run_pipeline is
    replaced by a stand-in that records them and stops the run with a ConfigError (nothing launched)."""
    models = tmp_path / "models.yaml"
    # The smoke profile's Self-Contra judge is checked at the door with the models: it must exist.
    models.write_text(
        "models:\n  - name: local\n    litellm_model: local/smollm2-135m\n"
        "  - name: smollm2-135m\n    litellm_model: local/smollm2-135m\n"
    )
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RELREASON_MODELS", str(models))
    seen: dict[str, object] = {}

    def stand_in(plan: LaunchPlan, **keywords: object) -> None:
        seen.clear()
        seen.update(keywords, judge=plan.judge, plan=plan)
        raise ConfigError("stopped by the test")

    monkeypatch.setattr(pipeline, "run_pipeline", stand_in)
    return seen


def test_run_judge_reaches_the_pipeline(stopped_run, capsys):
    """`relreason run --judge M`, declared by Self-Contra, is its plan's judge (build_plan(judge=M))."""
    assert main(["run", "--model", "local", "--judge", "local"]) == 2
    assert stopped_run["judge"] == "local"
    assert main(["run", "--model", "local"]) == 2
    assert stopped_run["judge"] is None and stopped_run["rerun"] is False
    assert main(["run", "--model", "local", "--rerun"]) == 2
    assert stopped_run["rerun"] is True
    assert capsys.readouterr().err.count("stopped by the test") == 3


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


TOY_COMMANDS = """\
import functools

from relreason_dagster.errors import ConfigError
from relreason_dagster.launch_plan import LaunchPlan


def register(subparsers, context):
    context.add_run_option("--toy-models", keyword="models_file", default=None, help="toy only")
    toy = subparsers.add_parser("toy", help="the toy family's own commands")
    toysub = toy.add_subparsers(dest="toy_cmd", required=True)
    count = toysub.add_parser("count")
    count.add_argument("n", type=context.positive_int)
    count.set_defaults(handler=functools.partial(run_count, context=context))


def run_count(args, context):
    if args.n > 3:
        raise ConfigError(f"toy counts to 3 at most, got {args.n}; give N <= 3")
    print(context.format_table(["i"], [[i] for i in range(args.n)]))
    return 0
"""


def test_a_new_family_brings_its_commands_in_its_own_folder(tmp_path, monkeypatch, capsys, stopped_run):
    """A toy family registered at run time: its folder's commands.py adds `relreason toy count` and a
    `relreason run` option, with no edit anywhere else (the registry entry is the only other line)."""
    folder = tmp_path / "toycommands_pkg"
    folder.mkdir()
    _write(folder / "__init__.py", "")
    _write(folder / "family.py", "class ToyFamily:\n    name = 'toy'\n    tasks = ('count',)\n")
    _write(folder / "commands.py", TOY_COMMANDS)
    monkeypatch.syspath_prepend(str(tmp_path))
    from toycommands_pkg.family import ToyFamily

    monkeypatch.setitem(FAMILIES, "toy", ToyFamily())
    assert main(["toy", "count", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "(2 rows)"
    assert main(["toy", "count", "5"]) == 2  # the family's ConfigError: one line, exit status 2
    assert capsys.readouterr().err == "relreason: toy counts to 3 at most, got 5; give N <= 3\n"
    with pytest.raises(SystemExit) as exc:
        main(["toy", "count", "zero"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "positive integer" in err
    # A family's run option is a build_plan keyword: its value is in the launch's plan.
    models = tmp_path / "toy-models.yaml"
    models.write_text((tmp_path / "models.yaml").read_text())
    assert main(["run", "--model", "local", "--toy-models", str(models)]) == 2
    plan = stopped_run["plan"]
    assert plan.registry.path == str(models.resolve()) and plan.judge is None
    monkeypatch.delitem(FAMILIES, "toy")
    assert "toy" not in _subcommands(build_parser())


def test_building_the_parser_loads_no_dagster():
    """`relreason --help` and every family's registration stay light: Dagster loads when a command runs."""
    code = (
        "import sys\n"
        "from relreason_dagster.cli.parser import build_parser\n"
        "build_parser()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0].startswith('dagster')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

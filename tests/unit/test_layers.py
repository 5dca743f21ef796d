"""The layer rules, checked on the source: nothing below ``defs/`` imports Dagster, a family's
folder imports no other family, and the generic layers (``results/``, ``storage/``) import and name
no family: they render and store whatever the registered families declare.

The layers, bottom to top: ``benchmarks/`` (plain-Python families), ``llm/`` and ``storage/`` (model
calls, the lake and DuckDB), with ``results/``, ``data_quality/``, ``profiles.py`` and ``paths.py``
(a leaf: where files live) beside them; then ``defs/`` (the only Dagster layer) and, on top, the
glue that loads or launches it.  Keeping Dagster out of the lower layers is what lets a researcher call a
family, the gateway or the report from a notebook or a test without an orchestrator.

Modules are read with ``ast``, never imported, so the check is fast, needs no network and sees
imports inside functions (``pipeline.py`` imports Dagster lazily) as well as at the top.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("relreason_dagster", "data_quality")
BENCHMARKS = "relreason_dagster.benchmarks"

# The modules at or above defs/: the only ones that may import Dagster (and each other).
TOP_LAYERS: dict[str, str] = {
    "relreason_dagster.defs": "the Dagster layer itself: assets, checks, jobs, sensors, launcher, status",
    "relreason_dagster.definitions": "the Definitions object that `dagster dev` and the workers load",
    "relreason_dagster.pipeline": "launches Dagster runs for `relreason run` (imports dagster lazily)",
    "relreason_dagster.cli": "the top of the stack: launches through pipeline, reads defs/status",
}

# Only registry.py names the families; it may import every family folder (a family may not import it).
REGISTRY = f"{BENCHMARKS}.registry"

# A family's own CLI subcommands (`relreason kor rescore`, `relreason selfcontra detect`, ...) live in
# its folder as ``benchmarks/<family>/commands.py`` and are registered by cli.py: they are the CLI
# layer's slice of the family, so they may reach cli/pipeline when a command runs (``detect`` launches
# the judge through pipeline).  They still never import Dagster themselves.
FAMILY_COMMANDS = "commands"

# The layers that must work for any registered family: they reach families only through the registry.
GENERIC_LAYERS = ("relreason_dagster.results", "relreason_dagster.storage")

# Known crossings between family folders, each with why it is still there: (module, other family).
# Empty since the relational CoT checker moved from selfcontra/ to relational/ (issue 18 item 4).
KNOWN_CROSSINGS: dict[tuple[str, str], str] = {}


def is_dagster(module: str) -> bool:
    """``dagster`` and its integration packages (dagster_dbt, dagster_celery, dagster_duckdb, ...)."""
    top = module.split(".")[0]
    return top == "dagster" or top.startswith("dagster_")


def in_any(module: str, prefixes: dict[str, str] | tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the imported module (for ``from a import b``: ``a`` and ``a.b``)
    line: int

    def __str__(self) -> str:
        return f"{self.module} (line {self.line}) imports {self.target}"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _nodes(node: ast.AST):
    """Every node under ``node`` except the body of ``if TYPE_CHECKING:`` (never imported at run time)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from _nodes(other)
            continue
        yield child
        yield from _nodes(child)


def imports_of(source: str, module: str, is_package: bool = False) -> list[Import]:
    """Every import in ``source`` that can run: top level and inside functions, absolute.

    Imports under ``if TYPE_CHECKING:`` are left out: they are annotations only and load nothing.
    """
    found: list[Import] = []
    for node in _nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [Import(module, alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append(Import(module, target, node.lineno))
            found += [Import(module, f"{target}.{alias.name}", node.lineno) for alias in node.names]
    return found


@functools.cache
def all_imports() -> tuple[Import, ...]:
    found: list[Import] = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            name = module_name(path, REPO)
            found += imports_of(path.read_text(encoding="utf-8"), name, path.name == "__init__.py")
    return tuple(found)


def family_of(module: str) -> str | None:
    """The family folder a module belongs to (``benchmarks/<family>/...``), else None."""
    parts = module.split(".")
    if module.startswith(BENCHMARKS + ".") and len(parts) >= 3:
        if (REPO / Path(*parts[:3])).is_dir():
            return parts[2]
    return None


def is_family_commands(module: str) -> bool:
    return family_of(module) is not None and module.split(".")[3:] == [FAMILY_COMMANDS]


def test_the_scan_sees_imports_inside_functions_and_relative_ones() -> None:
    """The detector itself: a lazy import, a ``from`` import and a relative import are all seen."""
    source = (
        "def f():\n    import dagster as dg\n"
        "from dagster_dbt import DbtCliResource\n"
        "from ..kor import items\n"
    )
    targets = {i.target for i in imports_of(source, "relreason_dagster.benchmarks.flenqa.family")}
    assert {"dagster", "dagster_dbt", "relreason_dagster.benchmarks.kor.items"} <= targets
    assert is_dagster("dagster_celery.celery_executor") and not is_dagster("dagsterish")
    typing_only = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import dagster\nelse:\n    import os\n"
    )
    assert {i.target for i in imports_of(typing_only, "m")} == {"typing", "typing.TYPE_CHECKING", "os"}


def test_nothing_below_defs_imports_dagster() -> None:
    imports = all_imports()
    # The walk reaches the top layers too (else the rule below would pass on an empty scan).
    assert any(is_dagster(i.target) and i.module.startswith("relreason_dagster.defs.") for i in imports)
    bad = [str(i) for i in imports if is_dagster(i.target) and not in_any(i.module, TOP_LAYERS)]
    assert not bad, "Dagster imported below defs/ (allowed only in TOP_LAYERS):\n" + "\n".join(bad)


def test_nothing_below_defs_imports_the_dagster_layer() -> None:
    """Importing defs/, definitions, pipeline or cli would bring Dagster in through the back door.

    The one allowance is a family's ``commands.py`` (see FAMILY_COMMANDS), the CLI's slice of the family.
    """
    bad = [
        str(i)
        for i in all_imports()
        if in_any(i.target, TOP_LAYERS)
        and not in_any(i.module, TOP_LAYERS)
        and not is_family_commands(i.module)
    ]
    assert not bad, "a lower layer imports a top-layer module:\n" + "\n".join(bad)


def test_top_layers_exist() -> None:
    """Each allowance names a real module, so a rename cannot silently widen the rule."""
    for name in TOP_LAYERS:
        path = REPO / Path(*name.split("."))
        assert path.is_dir() or path.with_suffix(".py").is_file(), name


def test_a_family_folder_imports_no_other_family() -> None:
    """A family reaches another only through the shared modules ``benchmarks/*.py`` (base, scoring)."""
    bad = []
    for i in all_imports():
        own = family_of(i.module)
        other = family_of(i.target)
        if own is None or other is None or other == own:
            continue
        if (i.module, other) in KNOWN_CROSSINGS:
            continue
        bad.append(str(i))
    assert not bad, "a family folder imports another family:\n" + "\n".join(bad)


def test_shared_benchmark_modules_import_no_family() -> None:
    """The shared modules must not route one family into another; only the registry names them all."""
    bad = [
        str(i)
        for i in all_imports()
        if i.module.startswith(BENCHMARKS)
        and family_of(i.module) is None
        and i.module != REGISTRY
        and family_of(i.target) is not None
    ]
    assert not bad, "a shared benchmarks module imports a family:\n" + "\n".join(bad)


def test_no_family_imports_the_registry() -> None:
    bad = [str(i) for i in all_imports() if family_of(i.module) and in_any(i.target, (REGISTRY,))]
    assert not bad, "a family imports the registry (and so every other family):\n" + "\n".join(bad)


def test_known_crossings_are_still_needed() -> None:
    """An allowance whose module still exists but no longer crosses is stale: delete it."""
    crossings = {(i.module, family_of(i.target)) for i in all_imports()}
    modules = {i.module for i in all_imports()}
    stale = [key for key in KNOWN_CROSSINGS if key[0] in modules and key not in crossings]
    assert not stale, f"remove from KNOWN_CROSSINGS: {stale}"


def family_folders() -> set[str]:
    """The built-in family folders (``benchmarks/<family>/``)."""
    root = REPO / Path(*BENCHMARKS.split("."))
    return {p.name for p in root.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}


def names_in(source: str) -> list[tuple[str, int]]:
    """Every string constant of ``source`` with its line (f-string parts included)."""
    return [
        (node.value, node.lineno)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def test_generic_layers_import_no_family() -> None:
    """results/ and storage/ render and store what families declare; the registry is their one way in."""
    assert any(in_any(i.module, GENERIC_LAYERS) for i in all_imports())  # the scan reaches them
    bad = [str(i) for i in all_imports() if in_any(i.module, GENERIC_LAYERS) and family_of(i.target)]
    assert not bad, "a generic layer imports a family folder:\n" + "\n".join(bad)


def test_generic_layers_name_no_family() -> None:
    """No string in results/ or storage/ is a family's name: a section, table or step kind that names
    one belongs in that family's folder (its report.py, steps.py)."""
    families = family_folders()
    assert {"relational", "kor"} <= families  # the detector sees the real folders
    assert names_in("x = 'kor'\ny = f'{x} relational'") == [("kor", 1), (" relational", 2)]
    bad = []
    for layer in GENERIC_LAYERS:
        for path in sorted((REPO / Path(*layer.split("."))).rglob("*.py")):
            for text, line in names_in(path.read_text(encoding="utf-8")):
                if text in families or text.startswith(tuple(f"benchmarks.{f}" for f in families)):
                    bad.append(f"{path.relative_to(REPO)}:{line} names {text!r}")
    assert not bad, "a generic layer names a family:\n" + "\n".join(bad)

"""The layer rules, checked on the source: the modules form a ranked stack (:data:`LAYERS`) in which
nothing imports a module of a higher layer and no two modules import each other, even through others;
nothing below ``defs/`` imports Dagster; a family's folder imports no other family; and the generic
layers (``results/``, ``storage/``) import and name no family: they render and store whatever the
registered families declare.  Keeping Dagster out of the lower layers is what lets a researcher call
a family, the gateway or the report from a notebook or a test without an orchestrator; keeping the
stack acyclic is what lets each layer be imported, read and tested without the ones above it.

The folders stack the same way (:func:`folder_of`): a folder sits at the layer of its highest module,
and no module imports a folder above its own, so ``ls relreason_dagster/`` reads as the layers do and
a leaf that families share lives in the leaf folder ``common/``, not in the folder of its subject.

Modules are read with ``ast``, never imported, so the check is fast, needs no network and sees
imports inside functions (``pipeline.py`` imports Dagster lazily) as well as at the top.  Imports under
``if TYPE_CHECKING:`` count too, except for circles (they load nothing, and breaking a circle of type
hints is what they are for): a type hint naming a higher layer still points the code up the stack, so
what a family needs of the CLI is a protocol in the family contract (``benchmarks/command_context.py``)
and what storage reads of a model spec is a protocol in storage.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
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

# The layers that must work for any registered family: they reach families only through the registry.
GENERIC_LAYERS = ("relreason_dagster.results", "relreason_dagster.storage")

# The stack, bottom to top: a module may import its own layer and the layers below, never one above.
# An entry names a module and, when it is a package, everything in it that no longer entry claims;
# ``<pkg>.__init__`` names a package's own ``__init__.py`` alone.  FAMILIES stands for every family
# folder ``benchmarks/<family>/``.  Each layer says in one line why it sits where it does.
FAMILIES = "benchmarks/<family>/"
LAYERS: list[tuple[str, str, tuple[str, ...]]] = [
    (
        "leaves",
        "plain helpers with no project knowledge: errors, environment defaults, where files live, the "
        "family contract (benchmarks/*.py beside the families), and common/, the utilities every layer "
        "shares (tokens, model kinds, row writes, GX validation)",
        (
            "relreason_dagster.__init__",
            "relreason_dagster.errors",
            "relreason_dagster.env",
            "relreason_dagster.paths",
            "relreason_dagster.common",
            "relreason_dagster.benchmarks.__init__",
            "relreason_dagster.benchmarks.base",
            "relreason_dagster.benchmarks.command_context",
            "relreason_dagster.benchmarks.scoring",
            "relreason_dagster.benchmarks.plotting",
            "relreason_dagster.benchmarks.reasoning_source",
            "relreason_dagster.llm.__init__",
            "relreason_dagster.storage.__init__",
            "data_quality.__init__",
        ),
    ),
    ("families", "a study's plain-Python knowledge: it sees only the leaves and its own folder", (FAMILIES,)),
    (
        "registry",
        "names every family: the one module that imports them all",
        ("relreason_dagster.benchmarks",),
    ),
    (
        "profiles",
        "profiles.yaml, validated against the registered families' sections",
        ("relreason_dagster.profiles",),
    ),
    (
        "storage",
        "the lake and the DuckDB tables: stores what the registered families declare",
        ("relreason_dagster.storage",),
    ),
    (
        "llm",
        "model calls: the registry of models, the gateway and its workers, storing answers",
        ("relreason_dagster.llm",),
    ),
    (
        "checks and results",
        "the data-quality suites, the report, the dry run and the launch plan: readers of stored rows, "
        "profiles and model specs",
        (
            "relreason_dagster.results",
            "data_quality",
            "relreason_dagster.dry_run",
            "relreason_dagster.launch_plan",
        ),
    ),
    ("defs", "the Dagster layer: assets, checks, jobs, the launcher, status", ("relreason_dagster.defs",)),
    (
        "definitions",
        "the Definitions object `dagster dev` loads, built by defs/",
        ("relreason_dagster.definitions",),
    ),
    ("pipeline", "what one `relreason run` launches, through defs/", ("relreason_dagster.pipeline",)),
    ("cli", "the command line: the top, it may reach everything", ("relreason_dagster.cli",)),
]


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


def _nodes(node: ast.AST, type_checking: bool = False):
    """Every node under ``node`` except the body of ``if TYPE_CHECKING:`` (never imported at run time),
    unless ``type_checking``."""
    for child in ast.iter_child_nodes(node):
        if not type_checking and isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from _nodes(other)
            continue
        yield child
        yield from _nodes(child, type_checking)


def imports_of(
    source: str, module: str, is_package: bool = False, type_checking: bool = False
) -> list[Import]:
    """Every import in ``source`` that can run: top level and inside functions, absolute.

    Imports under ``if TYPE_CHECKING:`` are left out (they are annotations only and load nothing)
    unless ``type_checking``.
    """
    found: list[Import] = []
    for node in _nodes(ast.parse(source), type_checking):
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
def all_imports(type_checking: bool = True) -> tuple[Import, ...]:
    """Every import of the project's modules, those for type hints too unless not ``type_checking``."""
    found: list[Import] = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            name = module_name(path, REPO)
            text = path.read_text(encoding="utf-8")
            found += imports_of(text, name, path.name == "__init__.py", type_checking)
    return tuple(found)


def family_of(module: str) -> str | None:
    """The family folder a module belongs to (``benchmarks/<family>/...``), else None."""
    parts = module.split(".")
    if module.startswith(BENCHMARKS + ".") and len(parts) >= 3:
        if (REPO / Path(*parts[:3])).is_dir():
            return parts[2]
    return None


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

    A family's ``commands.py`` (its CLI subcommands) is no exception, not even for a type hint: what it
    needs from the CLI and the pipeline it gets from the context the CLI hands it, typed with the
    ``CommandContext`` protocol of the family contract.
    """
    typing_only = "if TYPE_CHECKING:\n    from relreason_dagster.cli import X\n"
    assert "relreason_dagster.cli" in {i.target for i in imports_of(typing_only, "m", type_checking=True)}
    bad = [str(i) for i in all_imports() if in_any(i.target, TOP_LAYERS) and not in_any(i.module, TOP_LAYERS)]
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


# ------------------------------------------------------------------------------ the stack of layers


def layer_of(module: str) -> int | None:
    """The rank of ``module`` in :data:`LAYERS` (0 = bottom): its longest matching entry; None: unplaced."""
    if family_of(module) is not None:
        return next(rank for rank, (_, _, entries) in enumerate(LAYERS) if FAMILIES in entries)
    best: tuple[int, int] | None = None  # (length of the entry, rank)
    for rank, (_, _, entries) in enumerate(LAYERS):
        for entry in entries:
            if entry.endswith(".__init__"):
                matches = module == entry.removesuffix(".__init__")
            else:
                matches = module == entry or module.startswith(entry + ".")
            if matches and (best is None or len(entry) > best[0]):
                best = (len(entry), rank)
    return None if best is None else best[1]


@functools.cache
def project_modules() -> frozenset[str]:
    return frozenset(
        module_name(path, REPO) for package in PACKAGES for path in (REPO / package).rglob("*.py")
    )


def project_edges(imports: tuple[Import, ...] | list[Import]) -> dict[str, dict[str, Import]]:
    """module -> {imported project module -> its first import}: the graph the two rules below read.

    ``from a import b`` counts ``a`` (running its ``__init__``) and, when ``b`` is a module, ``a.b``.
    """
    modules = project_modules() | {i.module for i in imports}
    edges: dict[str, dict[str, Import]] = {}
    for i in imports:
        if i.target in modules and i.target != i.module:
            edges.setdefault(i.module, {}).setdefault(i.target, i)
    return edges


def circles(edges: dict[str, dict[str, Import]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, {}))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, {})))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def circle_lines(edges: dict[str, dict[str, Import]]) -> list[str]:
    """Each circle as the imports that close it: module, line and target of every edge inside it."""
    lines = []
    for component in circles(edges):
        members = set(component)
        lines.append(f"circle of {len(component)} modules:")
        lines += [f"  {i}" for m in component for t, i in sorted(edges.get(m, {}).items()) if t in members]
    return lines


def upward_imports(imports: tuple[Import, ...] | list[Import]) -> list[str]:
    """Every import of a module in a higher layer than the importer's, naming both layers."""
    bad = []
    for module, targets in sorted(project_edges(imports).items()):
        own = layer_of(module)
        for target, imp in sorted(targets.items()):
            up = layer_of(target)
            if own is not None and up is not None and up > own:
                bad.append(f"{imp} (layer {LAYERS[own][0]!r} below {LAYERS[up][0]!r})")
    return bad


def test_the_circle_and_upward_detectors_see_what_they_should() -> None:
    """The detectors themselves, on a made-up graph: a three-module circle through a lazy import and
    a leaf importing the CLI are both reported with module, line and target."""
    source = {
        "relreason_dagster.storage.lake": "from relreason_dagster.llm import gateway\n",
        "relreason_dagster.llm.gateway": "def f():\n    import relreason_dagster.defs.jobs\n",
        "relreason_dagster.defs.jobs": "from relreason_dagster.storage.lake import Lake\n",
        "relreason_dagster.paths": "import os\n\n\nimport relreason_dagster.cli\n",
    }
    imports = [i for module, text in source.items() for i in imports_of(text, module)]
    lines = circle_lines(project_edges(imports))
    assert lines[0] == "circle of 3 modules:"
    assert "  relreason_dagster.llm.gateway (line 2) imports relreason_dagster.defs.jobs" in lines
    assert len(lines) == 4
    up = upward_imports(imports)
    assert "relreason_dagster.paths (line 4) imports relreason_dagster.cli (layer 'leaves' below 'cli')" in up
    assert any(line.startswith("relreason_dagster.storage.lake (line 1)") for line in up)
    # A package's own __init__ and a family folder are placed by their own entries.
    assert LAYERS[layer_of("relreason_dagster")][0] == "leaves"
    assert LAYERS[layer_of("relreason_dagster.llm")][0] == "leaves"  # its __init__ sets env defaults only
    assert LAYERS[layer_of("relreason_dagster.llm.gateway")][0] == "llm"
    assert LAYERS[layer_of("relreason_dagster.benchmarks.kor.family")][0] == "families"
    assert LAYERS[layer_of("relreason_dagster.benchmarks.registry")][0] == "registry"


def test_every_module_has_a_layer() -> None:
    """A new module is placed on purpose (by its package's entry or one of its own), never by accident."""
    unplaced = sorted(m for m in project_modules() if layer_of(m) is None)
    assert not unplaced, f"add to LAYERS: {unplaced}"


def test_every_layer_entry_names_a_module() -> None:
    """An entry for a module that no longer exists would silently widen the table: delete it."""
    modules = project_modules()
    stale = [
        entry
        for _, _, entries in LAYERS
        for entry in entries
        if entry != FAMILIES and entry.removesuffix(".__init__") not in modules
    ]
    assert not stale, f"remove from LAYERS: {stale}"


def test_no_import_circles() -> None:
    """No module imports itself through others (imports inside functions count: they run; imports for
    type hints do not: they never run)."""
    edges = project_edges(all_imports(type_checking=False))
    assert len(edges) > 100  # the scan reaches the whole package
    lines = circle_lines(edges)
    assert not lines, "import circles (break each by moving what both sides need into a lower module):\n" + (
        "\n".join(lines)
    )


def test_nothing_imports_a_higher_layer() -> None:
    bad = upward_imports(all_imports())
    assert not bad, "imports from a lower layer to a higher one (see LAYERS):\n" + "\n".join(bad)


# ------------------------------------------------------------------------------ the stack of folders

ROOT_PACKAGE = "relreason_dagster"


def folder_of(module: str) -> str:
    """The folder a reader sees in ``ls relreason_dagster/``: the subpackage right below the root
    (``relreason_dagster.llm`` for ``relreason_dagster.llm.gateway``; a family folder is inside
    ``benchmarks/``), a module directly in the root standing alone (``relreason_dagster.errors``), and
    the other top package as a whole (``data_quality``).

    ``benchmarks/`` is one folder: the family contract (``base.py``, ``scoring.py``, ...), the family
    folders and the registry that names them.  Its inner order (contract, then families, then the
    registry) is held module by module by the rules above; at folder level it sits at its highest
    module, the registry, and imports only folders below it."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == ROOT_PACKAGE else parts[0]


def folder_layers(modules: frozenset[str] | set[str]) -> dict[str, int]:
    """folder -> the rank of its highest placed module: a folder is as high as anything in it."""
    ranks: dict[str, int] = {}
    for module in modules:
        rank = layer_of(module)
        if rank is not None:
            ranks[folder_of(module)] = max(rank, ranks.get(folder_of(module), rank))
    return ranks


def upward_folder_imports(imports: tuple[Import, ...] | list[Import]) -> list[str]:
    """Every import of a module in another folder whose layer is above the importer's folder's."""
    modules = project_modules() | {i.module for i in imports}
    ranks = folder_layers(modules)
    bad = []
    for module, targets in sorted(project_edges(imports).items()):
        own = folder_of(module)
        for target, imp in sorted(targets.items()):
            other = folder_of(target)
            if other != own and own in ranks and other in ranks and ranks[other] > ranks[own]:
                bad.append(
                    f"{imp} (folder {other} at {LAYERS[ranks[other]][0]!r} above {own} at "
                    f"{LAYERS[ranks[own]][0]!r})"
                )
    return bad


def test_the_folder_detector_sees_a_leaf_in_a_higher_folder(monkeypatch) -> None:
    """The detector itself, on the shape main had before ``common/``: a leaf module (placed among the
    leaves, so the module rule passes) sitting in ``llm/`` and imported by a family.  The folder rule
    reports it, naming both folders and their layers; the same import of ``common/`` passes."""
    import sys

    this = sys.modules[__name__]
    leaves = (*LAYERS[0][2], "relreason_dagster.llm.spelling")
    monkeypatch.setattr(this, "LAYERS", [(LAYERS[0][0], LAYERS[0][1], leaves), *LAYERS[1:]])
    family = "relreason_dagster.benchmarks.kor.family"
    source = {
        family: "from relreason_dagster.llm.spelling import count\nfrom relreason_dagster.common import x\n",
        "relreason_dagster.llm.spelling": "import os\n",
    }
    imports = [i for module, text in source.items() for i in imports_of(text, module)]
    assert upward_imports(imports) == []  # module by module nothing points up...
    assert folder_of(family) == "relreason_dagster.benchmarks"
    assert folder_of("relreason_dagster.errors") == "relreason_dagster.errors"
    assert folder_of("data_quality.suites") == "data_quality"
    ranks = folder_layers(project_modules() | set(source))
    assert LAYERS[ranks["relreason_dagster.llm"]][0] == "llm"  # a folder is as high as its highest module
    assert LAYERS[ranks["relreason_dagster.common"]][0] == "leaves"
    assert upward_folder_imports(imports) == [  # ...but the family's folder points up at llm/
        f"{family} (line 1) imports relreason_dagster.llm.spelling (folder relreason_dagster.llm at 'llm' "
        "above relreason_dagster.benchmarks at 'registry')"
    ]


def test_no_folder_imports_a_folder_above_it() -> None:
    bad = upward_folder_imports(all_imports())
    assert not bad, "imports from a folder to a higher one (move the module to a folder at its layer):\n" + (
        "\n".join(bad)
    )

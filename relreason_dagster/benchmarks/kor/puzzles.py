"""Fresh KOR-Bench Puzzle items: seeded generators whose answers are computed and proven unique.

Why generate at all: the 250 official puzzle items are public, so a model may have seen them, and a
handful of their golds are simply wrong (a Survo gold that breaks its own row sums, a Kukurasu gold
written ``1X``).  New instances of the *same* rules, written in the *same* question and answer
notation, measure the rule-following the benchmark intends and can be scored by the unchanged
official scorer (:func:`~.scoring.score_official`).

Each generator builds a solution first and then removes information (givens, clues, revealed
numbers) only while a solution counter that stops at 2 still finds exactly one solution, so the
gold is *the* answer, not *an* answer.  24 points is the exception: most hands have many answers
and the official scorer accepts any expression over the same numbers that makes 24, so the gold is
one such expression, checked with our own arithmetic (never ``eval``), and chosen so that Python
float arithmetic (what the official scorer uses) gives exactly 24 as well.

Rules (official ``idx``: parameters): 10 24 points; 11 Survo (``rows``, ``cols``, ``keep`` givens
floor; the question names the number set 1..rows*cols, which the official text leaves implicit);
12 Kukurasu (``size``); 15 Sudoku (always 9×9 as the rule text says; ``keep`` givens floor);
16 Calcudoko (``size``; unique even if repeats inside a cage were allowed, as the official golds
do, while the gold itself keeps rule 4); 17 Futoshiki (``size``, ``keep``); 21 Minesweeper
(``size``, ``mines``); 25 Skyscrapers (``size``; all four clue lines, no givens, as officially).

The second half of the module, :func:`solve_question`, is an independent solver per rule: it reads
the question *text* (ours or the official one), solves it with a differently written search and
returns up to two solutions rendered in the official answer notation.  Tests use it to prove that
the text we publish carries enough information and that the stored gold is the only answer.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from fractions import Fraction

from relreason_dagster.benchmarks.kor.generate import check_level, check_rule

Grid = list[list[int]]

# --------------------------------------------------------------------------- items and registry


@dataclass(frozen=True)
class GeneratedPuzzleItem:
    """One generated question.  ``gold`` is the raw official-style answer with its ``[[...]]``;
    ``solution`` is the structured answer (a grid, a set of cells, an expression) for checks that
    should not re-parse the gold; ``seed`` regenerates exactly this item."""

    rule_id: str
    question: str
    gold: str
    solution: object
    seed: int
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class PuzzleRule:
    """A generator for one official rule (``rule_id`` is the official ``idx`` in rule.jsonl)."""

    rule_id: str
    title: str
    build: Callable[..., tuple[str, str, object]]
    defaults: dict


def _answer_grid(rows: list[list[object]]) -> str:
    """The official grid answer notation: cells by spaces, rows by commas, inside ``[[...]]``."""
    return "[[" + ",".join(" ".join(str(cell) for cell in row) for row in rows) + "]]"


_GRID_TAIL = (
    "Please provide each element in order from left to right, and from top to bottom, with each element "
    "separated by a space and each row separated by a comma. Ensure that your final answer is wrapped in "
    "double square brackets.\n\nFor example, if the answer is:\nA B C\nD E F\nG H I\n\n"
    "please output [[A B C,D E F,G H I]]."
)
_SUM_TAIL = (
    "The final answer should be given in order from left to right, top to bottom with each element "
    'separated by a space and different lines separated by ",". Wrap your final answer in double square '
    "brackets, like this: [[your answer]]."
)


# --------------------------------------------------------------------------- safe arithmetic

_TOKEN_RE = re.compile(r"\s*(?:(\d+)|(.))")


def eval_arithmetic(text: str, exact: bool = True) -> Fraction | int | float | None:
    """``+ - × * ÷ /`` and parentheses over non-negative integers, by recursive descent.

    ``exact`` computes with fractions (is it *really* 24?); otherwise with Python's own int/float
    semantics, which is what the official scorer's ``eval`` produces (is it 24 *to the scorer*?).
    Anything else (names, powers, unbalanced parentheses, division by zero) gives None.
    """
    tokens: list[str] = []
    for number, other in _TOKEN_RE.findall(text.strip()):
        tokens.append(number or other)
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        position += 1
        return tokens[position - 1]

    def atom() -> Fraction | int | float:
        token = take() if peek() is not None else ""
        if token == "(":
            value = expr()
            if take() != ")":
                raise ValueError("unbalanced")
            return value
        if token == "-":
            return -atom()
        if token.isdigit():
            return Fraction(int(token)) if exact else int(token)
        raise ValueError(f"unexpected {token!r}")

    def term() -> Fraction | int | float:
        value = atom()
        while peek() in ("*", "×", "/", "÷"):
            op = take()
            right = atom()
            value = value * right if op in ("*", "×") else value / right
        return value

    def expr() -> Fraction | int | float:
        value = term()
        while peek() in ("+", "-"):
            op = take()
            right = term()
            value = value + right if op == "+" else value - right
        return value

    try:
        result = expr()
        if position != len(tokens):
            return None
        return result
    except (ValueError, ZeroDivisionError, IndexError):
        return None


# --------------------------------------------------------------------------- rule 10: 24 points


def _expressions(values: list[tuple[Fraction, str]]) -> list[tuple[Fraction, str]]:
    """Every value reachable by combining all of ``values`` pairwise, with a fully bracketed text."""
    if len(values) == 1:
        return values
    found: list[tuple[Fraction, str]] = []
    for i, j in itertools.permutations(range(len(values)), 2):
        (a, ta), (b, tb) = values[i], values[j]
        rest = [values[k] for k in range(len(values)) if k not in (i, j)]
        candidates = [(a + b, f"{ta}+{tb}"), (a - b, f"{ta}-{tb}"), (a * b, f"{ta}×{tb}")]
        if b != 0:
            candidates.append((a / b, f"{ta}/{tb}"))
        for value, text in candidates:
            found.extend(_expressions([*rest, (value, f"({text})")]))
    return found


def _build_24(rng: random.Random, low: int = 1, high: int = 13) -> tuple[str, str, object]:
    """Draw hands until one has a 24; the gold is the shortest expression that is 24 both exactly
    and in float arithmetic (so the official float-based scorer accepts its own gold)."""
    for _ in range(200):
        numbers = [rng.randint(low, high) for _ in range(4)]
        hits = set()
        for value, text in _expressions([(Fraction(n), str(n)) for n in numbers]):
            if value == 24:
                text = text[1:-1]
                if eval_arithmetic(text, exact=False) == 24:
                    hits.add(text)
        if hits:
            gold = min(sorted(hits), key=len)
            question = (
                "The four randomly selected numbers are:\n"
                + " ".join(map(str, numbers))
                + ".\nYour answer should be in the form of a calculation expression, like this: "
                "a + b / c - d, giving one answer is sufficient.\n"
                "Wrap your final answer in double square brackets, like this: [[a + b / c - d]]."
            )
            return question, f"[[{gold}]]", {"numbers": numbers, "expression": gold}
    raise RuntimeError("no solvable 24-point hand found")


# --------------------------------------------------------------------------- Latin-square helpers


def _random_latin(rng: random.Random, n: int) -> Grid:
    """A random n×n Latin square: a cyclic square with rows, columns and symbols shuffled."""
    rows, cols, symbols = list(range(n)), list(range(n)), list(range(1, n + 1))
    rng.shuffle(rows)
    rng.shuffle(cols)
    rng.shuffle(symbols)
    return [[symbols[(r + c) % n] for c in cols] for r in rows]


def _count_latin(
    n: int,
    givens: dict[tuple[int, int], int],
    check: Callable[[Grid, int, int], bool],
    box: tuple[int, int] | None = None,
    limit: int = 2,
) -> int:
    """Solutions of an n×n Latin square (optionally with boxes, i.e. Sudoku) that agree with
    ``givens`` and pass ``check(grid, r, c)`` after each placement; counting stops at ``limit``.

    Bitmask candidates with most-constrained-cell-first keep 9×9 Sudoku well under a second."""
    grid = [[0] * n for _ in range(n)]
    full = (1 << (n + 1)) - 2
    row_used, col_used = [0] * n, [0] * n
    box_used = [0] * n

    def box_of(r: int, c: int) -> int:
        return 0 if box is None else (r // box[0]) * (n // box[1]) + c // box[1]

    for (r, c), v in givens.items():
        bit = 1 << v
        if row_used[r] & bit or col_used[c] & bit or (box and box_used[box_of(r, c)] & bit):
            return 0
        grid[r][c] = v
        row_used[r] |= bit
        col_used[c] |= bit
        box_used[box_of(r, c)] |= bit
    for r, c in givens:
        if not check(grid, r, c):
            return 0
    empty = [(r, c) for r in range(n) for c in range(n) if not grid[r][c]]
    count = 0

    def search(remaining: list[tuple[int, int]]) -> None:
        nonlocal count
        if not remaining:
            count += 1
            return
        best, best_mask, best_n = -1, 0, n + 2
        for index, (r, c) in enumerate(remaining):
            mask = full & ~(row_used[r] | col_used[c] | (box_used[box_of(r, c)] if box else 0))
            bits = bin(mask).count("1")
            if bits < best_n:
                best, best_mask, best_n = index, mask, bits
                if bits <= 1:
                    break
        r, c = remaining[best]
        rest = remaining[:best] + remaining[best + 1 :]
        for v in range(1, n + 1):
            if count >= limit:
                return
            bit = 1 << v
            if not best_mask & bit:
                continue
            grid[r][c] = v
            row_used[r] |= bit
            col_used[c] |= bit
            box_used[box_of(r, c)] |= bit
            if check(grid, r, c):
                search(rest)
            grid[r][c] = 0
            row_used[r] &= ~bit
            col_used[c] &= ~bit
            box_used[box_of(r, c)] &= ~bit

    search(empty)
    return count


def _no_check(grid: Grid, r: int, c: int) -> bool:
    return True


def _remove_givens(
    rng: random.Random, solution: Grid, unique: Callable[[dict[tuple[int, int], int]], bool], keep: int
) -> dict[tuple[int, int], int]:
    """Givens of ``solution`` (any rectangle) with cells removed in random order while ``unique``
    still holds, never going below ``keep`` givens (a difficulty knob: fewer givens, harder puzzle)."""
    givens = {(r, c): value for r, row in enumerate(solution) for c, value in enumerate(row)}
    cells = list(givens)
    rng.shuffle(cells)
    for cell in cells:
        if len(givens) <= keep:
            break
        value = givens.pop(cell)
        if not unique(givens):
            givens[cell] = value
    return givens


def _grid_text(n: int, givens: dict[tuple[int, int], int], sep: str = " ") -> str:
    return "\n".join(sep.join(str(givens.get((r, c), "X")) for c in range(n)) for r in range(n))


# --------------------------------------------------------------------------- rule 15: Sudoku


def _build_sudoku(rng: random.Random, keep: int = 30) -> tuple[str, str, object]:
    """A 9×9 Sudoku (the official rule text fixes 9×9 with 3×3 boxes); ``keep`` is the floor on
    the number of givens left, so a higher ``keep`` is an easier and faster-to-generate puzzle."""
    n = 9
    bands = [b * 3 + r for b in rng.sample(range(3), 3) for r in rng.sample(range(3), 3)]
    stacks = [s * 3 + c for s in rng.sample(range(3), 3) for c in rng.sample(range(3), 3)]
    digits = rng.sample(range(1, 10), 9)
    solution = [[digits[(3 * (r % 3) + r // 3 + c) % 9] for c in stacks] for r in bands]
    givens = _remove_givens(rng, solution, lambda g: _count_latin(n, g, _no_check, box=(3, 3)) == 1, keep)
    question = _grid_text(n, givens) + "\n" + _GRID_TAIL
    return question, _answer_grid(solution), solution


# --------------------------------------------------------------------------- rule 17: Futoshiki


def _build_futoshiki(rng: random.Random, size: int = 4, keep: int = 0) -> tuple[str, str, object]:
    """Start from every adjacent inequality and every given (trivially unique), drop givens, then
    inequalities, each only while the puzzle stays unique."""
    n = size
    solution = _random_latin(rng, n)
    pairs = [((r, c), (r, c + 1)) for r in range(n) for c in range(n - 1)]
    pairs += [((r, c), (r + 1, c)) for r in range(n - 1) for c in range(n)]
    relations = {pair: solution[pair[0][0]][pair[0][1]] < solution[pair[1][0]][pair[1][1]] for pair in pairs}

    def checker(active: dict) -> Callable[[Grid, int, int], bool]:
        touching: dict[tuple[int, int], list] = {}
        for (a, b), less in active.items():
            touching.setdefault(a, []).append((a, b, less))
            touching.setdefault(b, []).append((a, b, less))

        def check(grid: Grid, r: int, c: int) -> bool:
            for a, b, less in touching.get((r, c), ()):
                va, vb = grid[a[0]][a[1]], grid[b[0]][b[1]]
                if va and vb and (va < vb) != less:
                    return False
            return True

        return check

    givens = _remove_givens(rng, solution, lambda g: _count_latin(n, g, checker(relations)) == 1, keep)
    order = list(relations)
    rng.shuffle(order)
    for pair in order:
        less = relations.pop(pair)
        if _count_latin(n, givens, checker(relations)) != 1:
            relations[pair] = less
    lines = []
    for (a, b), less in sorted(relations.items()):
        lines.append(f"({a[0] + 1},{a[1] + 1}){'<' if less else '>'}({b[0] + 1},{b[1] + 1})")
    question = _grid_text(n, givens) + "\n\n" + "\n".join(lines) + "\n\n" + _GRID_TAIL
    return question, _answer_grid(solution), solution


# --------------------------------------------------------------------------- rule 16: Calcudoko


def _cage_value(values: list[int], op: str) -> int | None:
    """The target a cage shows for ``values`` under ``op``; ``-`` and ``÷`` are two-cell cages
    (larger minus/over smaller, as in the official samples), ``÷`` only when it divides evenly."""
    if op == "+":
        return sum(values)
    if op == "*":
        product = 1
        for value in values:
            product *= value
        return product
    if len(values) != 2:
        return None
    high, low = max(values), min(values)
    if op == "-":
        return high - low
    return high // low if high % low == 0 else None


def _random_cages(rng: random.Random, n: int) -> list[list[tuple[int, int]]]:
    """A partition of the grid into connected cages of 2-3 cells (a leftover cell joins a
    neighbouring cage), the sizes the official samples use."""
    owner: dict[tuple[int, int], int] = {}
    cages: list[list[tuple[int, int]]] = []
    cells = [(r, c) for r in range(n) for c in range(n)]
    rng.shuffle(cells)
    for start in cells:
        if start in owner:
            continue
        cage, size = [start], rng.choice((2, 2, 3))
        owner[start] = len(cages)
        while len(cage) < size:
            frontier = [
                (r + dr, c + dc)
                for r, c in cage
                for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
                if 0 <= r + dr < n and 0 <= c + dc < n and (r + dr, c + dc) not in owner
            ]
            if not frontier:
                break
            cell = rng.choice(sorted(set(frontier)))
            owner[cell] = len(cages)
            cage.append(cell)
        cages.append(cage)
    for index, cage in enumerate(cages):
        if len(cage) == 1:
            r, c = cage[0]
            options = sorted(
                owner[(r + dr, c + dc)]
                for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
                if (r + dr, c + dc) in owner and owner[(r + dr, c + dc)] != index
            )
            target = rng.choice(options)
            cages[target].append(cage[0])
            owner[cage[0]] = target
            cage.clear()
    return [sorted(cage) for cage in cages if cage]


def _build_calcudoko(rng: random.Random, size: int = 4) -> tuple[str, str, object]:
    """A Latin square and a random cage partition with a random feasible operator per cage,
    redrawn until the cages determine the square."""
    n = size
    for _ in range(500):
        solution = _random_latin(rng, n)
        cages = []
        for cells in _random_cages(rng, n):
            values = [solution[r][c] for r, c in cells]
            ops = [op for op in ("+", "*", "-", "÷") if _cage_value(values, op) is not None]
            op = rng.choice(ops)
            cages.append((cells, op, _cage_value(values, op)))
        if any(len({solution[r][c] for r, c in cells}) != len(cells) for cells, _, _ in cages):
            continue  # rule 4 (no repeats inside a region) must hold for the gold itself
        cage_of = {cell: cage for cage in cages for cell in cage[0]}

        def check(grid: Grid, r: int, c: int, cage_of: dict = cage_of) -> bool:
            # Repeats inside a cage are *not* excluded here: the official golds allow them (e.g. 3
            # twice in an L-shaped 36* cage), so uniqueness is proven under that looser reading and
            # therefore holds under the literal rule 4 as well.
            cells, op, target = cage_of[(r, c)]
            values = [grid[i][j] for i, j in cells]
            return not all(values) or _cage_value(values, op) == target

        if _count_latin(n, {}, check) == 1:
            lines = [f"The size of the grid is {n}*{n}."]
            for cells, op, target in cages:
                lines.append("".join(f"({r + 1},{c + 1})" for r, c in cells) + f":{target}{op}")
            question = "\n".join(lines) + "\n\n" + _GRID_TAIL
            return question, _answer_grid(solution), {"grid": solution, "cages": cages}
    raise RuntimeError("no unique calcudoko found")


# --------------------------------------------------------------------------- rule 25: Skyscrapers


def _visible(line: list[int]) -> int:
    seen, tallest = 0, 0
    for height in line:
        if height > tallest:
            seen, tallest = seen + 1, height
    return seen


def _sky_clues(grid: Grid) -> tuple[list[int], list[int], list[int], list[int]]:
    """(top, left, right, bottom): buildings seen looking down, right, left and up."""
    n = len(grid)
    cols = [[grid[r][c] for r in range(n)] for c in range(n)]
    return (
        [_visible(col) for col in cols],
        [_visible(row) for row in grid],
        [_visible(row[::-1]) for row in grid],
        [_visible(col[::-1]) for col in cols],
    )


def _build_skyscrapers(rng: random.Random, size: int = 4) -> tuple[str, str, object]:
    """The official layout gives all four clue lines and no givens, so instead of removing
    information we draw Latin squares until the clues determine one exactly."""
    n = size
    for _ in range(500):
        solution = _random_latin(rng, n)
        top, left, right, bottom = _sky_clues(solution)

        def check(grid: Grid, r: int, c: int, top=top, left=left, right=right, bottom=bottom) -> bool:
            row = grid[r]
            if all(row) and (_visible(row) != left[r] or _visible(row[::-1]) != right[r]):
                return False
            col = [grid[i][c] for i in range(n)]
            return not (all(col) and (_visible(col) != top[c] or _visible(col[::-1]) != bottom[c]))

        if _count_latin(n, {}, check) == 1:
            lines = ["Grid Layout:", "\t" + "\t".join(map(str, top)) + "\t"]
            lines += [f"{left[r]}\t" + "\t".join("X" * n) + f"\t{right[r]}" for r in range(n)]
            lines.append("\t" + "\t".join(map(str, bottom)))
            question = "\n".join(lines) + (
                "\nThe answer should be given from left to right, top to bottom. Separate elements with a "
                "space and rows with a comma. Wrap the entire answer in double square brackets."
            )
            return question, _answer_grid(solution), solution
    raise RuntimeError("no unique skyscraper grid found")


# --------------------------------------------------------------------------- rule 11: Survo


def _count_survo(givens: dict, rows: int, cols: int, row_sums: list[int], col_sums: list[int]) -> int:
    """Fillings of the blanks with the unused numbers of 1..rows*cols matching every sum (max 2)."""
    blanks = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in givens]
    free = set(range(1, rows * cols + 1)) - set(givens.values())
    row_part, col_part = [0] * rows, [0] * cols
    row_left, col_left = [cols] * rows, [rows] * cols
    for (r, c), v in givens.items():
        row_part[r] += v
        col_part[c] += v
        row_left[r] -= 1
        col_left[c] -= 1
    count = 0

    def fits(r: int, c: int) -> bool:
        for part, left, target in (
            (row_part[r], row_left[r], row_sums[r]),
            (col_part[c], col_left[c], col_sums[c]),
        ):
            if (left == 0 and part != target) or (left > 0 and part + left > target):
                return False
        return True

    def search(index: int) -> None:
        nonlocal count
        if count >= 2:
            return
        if index == len(blanks):
            count += 1
            return
        r, c = blanks[index]
        for v in sorted(free):
            free.discard(v)
            row_part[r] += v
            col_part[c] += v
            row_left[r] -= 1
            col_left[c] -= 1
            if fits(r, c):
                search(index + 1)
            row_part[r] -= v
            col_part[c] -= v
            row_left[r] += 1
            col_left[c] += 1
            free.add(v)

    search(0)
    return count


def _build_survo(rng: random.Random, rows: int = 3, cols: int = 4, keep: int = 4) -> tuple[str, str, object]:
    """Numbers 1..rows*cols in random cells; givens removed while the sums still pin the filling."""
    values = rng.sample(range(1, rows * cols + 1), rows * cols)
    solution = [values[r * cols : (r + 1) * cols] for r in range(rows)]
    row_sums = [sum(row) for row in solution]
    col_sums = [sum(solution[r][c] for r in range(rows)) for c in range(cols)]
    givens = _remove_givens(
        rng, solution, lambda g: _count_survo(g, rows, cols, row_sums, col_sums) == 1, keep
    )
    lines = [
        "  ".join(str(givens.get((r, c), "X")) for c in range(cols)) + f"  {row_sums[r]}" for r in range(rows)
    ]
    lines.append("  ".join(map(str, col_sums)))
    question = (
        "\n".join(lines)
        + f"\nFill the X cells with the numbers from 1 to {rows * cols} that are not already in the grid, "
        "each number used exactly once.\n" + _SUM_TAIL
    )
    return question, _answer_grid(solution), solution


# --------------------------------------------------------------------------- rule 12: Kukurasu


def _count_kukurasu(row_sums: list[int], col_sums: list[int]) -> int:
    """Black-cell patterns matching the weighted sums (max 2): each row is one of the column
    subsets with that row's weighted sum, column sums checked as rows are stacked."""
    rows, cols = len(row_sums), len(col_sums)
    subsets: dict[int, list[tuple[int, ...]]] = {}
    for bits in itertools.product((0, 1), repeat=cols):
        subsets.setdefault(sum((c + 1) * b for c, b in enumerate(bits)), []).append(bits)
    col_part = [0] * cols
    count = 0

    def search(r: int) -> None:
        nonlocal count
        if count >= 2:
            return
        if r == rows:
            count += col_part == col_sums
            return
        for bits in subsets.get(row_sums[r], []):
            ok = True
            for c in range(cols):
                col_part[c] += (r + 1) * bits[c]
                ok = ok and col_part[c] <= col_sums[c]
            if ok:
                search(r + 1)
            for c in range(cols):
                col_part[c] -= (r + 1) * bits[c]

    search(0)
    return count


def _build_kukurasu(rng: random.Random, size: int = 4, density: float = 0.5) -> tuple[str, str, object]:
    """No givens in the official layout: draw random black patterns until the sums fix one."""
    for _ in range(2000):
        black = [[rng.random() < density for _ in range(size)] for _ in range(size)]
        row_sums = [sum(c + 1 for c in range(size) if black[r][c]) for r in range(size)]
        col_sums = [sum(r + 1 for r in range(size) if black[r][c]) for c in range(size)]
        if 0 in row_sums or 0 in col_sums:
            continue  # an all-white line is legal but makes a dull clue; keep every line informative
        if _count_kukurasu(row_sums, col_sums) == 1:
            lines = ["  ".join("X" * size) + f"  {row_sums[r]}" for r in range(size)]
            lines.append("  ".join(map(str, col_sums)) + "  ")
            question = "\n".join(lines) + "\n\n" + _SUM_TAIL
            gold = _answer_grid([["1" if cell else "X" for cell in row] for row in black])
            return question, gold, black
    raise RuntimeError("no unique kukurasu grid found")


# --------------------------------------------------------------------------- rule 21: Minesweeper


def _neighbours(n: int, r: int, c: int) -> list[tuple[int, int]]:
    return [
        (r + dr, c + dc)
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if (dr or dc) and 0 <= r + dr < n and 0 <= c + dc < n
    ]


def _count_mines(n: int, numbers: dict[tuple[int, int], int]) -> int:
    """Mine layouts over the unrevealed cells that satisfy every revealed number (max 2)."""
    unknown = [(r, c) for r in range(n) for c in range(n) if (r, c) not in numbers]
    constraints = [
        (k, [cell for cell in _neighbours(n, *pos) if cell not in numbers]) for pos, k in numbers.items()
    ]
    watching: dict[tuple[int, int], list[int]] = {cell: [] for cell in unknown}
    for index, (_, cells) in enumerate(constraints):
        for cell in cells:
            watching[cell].append(index)
    mines = [0] * len(constraints)
    open_ = [len(cells) for _, cells in constraints]
    if any(k > len(cells) for k, cells in constraints):
        return 0
    count = 0

    def search(index: int) -> None:
        nonlocal count
        if count >= 2:
            return
        if index == len(unknown):
            count += 1
            return
        for mine in (0, 1):
            touched = watching[unknown[index]]
            ok = True
            for ci in touched:
                mines[ci] += mine
                open_[ci] -= 1
                k = constraints[ci][0]
                ok = ok and mines[ci] <= k <= mines[ci] + open_[ci]
            if ok:
                search(index + 1)
            for ci in touched:
                mines[ci] -= mine
                open_[ci] += 1

    search(0)
    return count


def _build_minesweeper(rng: random.Random, size: int = 5, mines: int = 6) -> tuple[str, str, object]:
    """Reveal every safe cell's number, keep the layout only if that pins the mines (no mine may
    be walled in by mines), then hide numbers in random order while the mines stay determined."""
    n = size
    cells = [(r, c) for r in range(n) for c in range(n)]
    for _ in range(500):
        mine_set = set(rng.sample(cells, mines))
        numbers = {
            pos: sum(cell in mine_set for cell in _neighbours(n, *pos))
            for pos in cells
            if pos not in mine_set
        }
        if _count_mines(n, numbers) != 1:
            continue
        order = list(numbers)
        rng.shuffle(order)
        for pos in order:
            value = numbers.pop(pos)
            if _count_mines(n, numbers) != 1:
                numbers[pos] = value
        question = "\n".join("\t".join(str(numbers.get((r, c), "X")) for c in range(n)) for r in range(n))
        question += (
            "\nEnsure that your final answer is wrapped in double square brackets, like this: "
            "[[X X X,A 2 2,2 3 A]]."
        )
        answer = [
            ["A" if (r, c) in mine_set else str(numbers.get((r, c), "X")) for c in range(n)] for r in range(n)
        ]
        return question, _answer_grid(answer), sorted(mine_set)
    raise RuntimeError("no unique minesweeper layout found")


# --------------------------------------------------------------------------- registry and API

RULES: dict[str, PuzzleRule] = {
    "10": PuzzleRule("10", "24 points", _build_24, {}),
    "11": PuzzleRule("11", "Survo", _build_survo, {"rows": 3, "cols": 4, "keep": 4}),
    "12": PuzzleRule("12", "kukurasu", _build_kukurasu, {"size": 4}),
    "15": PuzzleRule("15", "Sudoko", _build_sudoku, {"keep": 30}),
    "16": PuzzleRule("16", "Calcudoko", _build_calcudoko, {"size": 4}),
    "17": PuzzleRule("17", "Futoshiki", _build_futoshiki, {"size": 4, "keep": 0}),
    "21": PuzzleRule("21", "Minesweeper", _build_minesweeper, {"size": 5, "mines": 6}),
    "25": PuzzleRule("25", "Skyscrapers", _build_skyscrapers, {"size": 4}),
}
"""Generators keyed by the official rule ``idx`` (titles as spelled in rule.jsonl)."""


def generate_one(rule_id: str, seed: int, **params: object) -> GeneratedPuzzleItem:
    """One item; the same ``(rule_id, seed, params)`` always gives the same item."""
    check_rule("puzzle", rule_id, RULES)
    rule = RULES[rule_id]
    merged = {**rule.defaults, **params}
    rng = random.Random(f"kor-puzzle:{rule_id}:{seed}")
    question, gold, solution = rule.build(rng, **merged)
    return GeneratedPuzzleItem(rule_id, question, gold, solution, seed, merged)


def generate(rule_id: str, n: int, seed: int, level: int = 1, **params: object) -> list[GeneratedPuzzleItem]:
    """``n`` items for ``rule_id`` with item seeds ``seed, seed+1, ...`` (each reproducible alone).

    A puzzle's difficulty is its grid (``params``: size, givens, mines; the defaults are the
    official sizes), so ``level`` is checked like every generator's and changes nothing here.
    """
    check_rule("puzzle", rule_id, RULES)
    check_level("puzzle", level)
    return [generate_one(rule_id, seed + offset, **params) for offset in range(n)]


# =========================================================================== independent solvers
#
# Written separately from the generators: they parse question text and search differently (row
# permutations for Latin squares, cell-by-cell for Kukurasu, set-based Sudoku), so a bug in one
# side is unlikely to be mirrored in the other.


class SearchBudgetExceeded(RuntimeError):
    """The solver gave up: the question needs more search than allowed (e.g. an official Survo
    with every cell blank, which has a huge number of fillings)."""


class _Budget:
    """A node counter shared by one solve, so a pathological question fails fast instead of hanging."""

    def __init__(self, max_nodes: int) -> None:
        self.left = max_nodes

    def tick(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise SearchBudgetExceeded("search budget exhausted")


_BUDGET: ContextVar[_Budget | None] = ContextVar("kor_puzzle_budget", default=None)


def _tick() -> None:
    """One search step of an independent solver; unlimited outside :func:`solve_question`."""
    budget = _BUDGET.get()
    if budget is not None:
        budget.tick()


def _latin_by_rows(
    n: int,
    givens: dict[tuple[int, int], int],
    row_ok: Callable[[list[tuple[int, ...]]], bool],
    limit: int = 2,
) -> list[list[tuple[int, ...]]]:
    """Latin squares built row permutation by row permutation; ``row_ok`` sees the rows so far.

    Each row's candidates are only the permutations compatible with the givens and the columns
    above, produced cell by cell, so a 6×6 row costs its few survivors rather than all 720."""
    found: list[list[tuple[int, ...]]] = []
    chosen: list[tuple[int, ...]] = []
    col_used: list[set[int]] = [set() for _ in range(n)]

    def rows_for(r: int, c: int, prefix: list[int]) -> list[tuple[int, ...]]:
        if c == n:
            return [tuple(prefix)]
        wanted = givens.get((r, c))
        out: list[tuple[int, ...]] = []
        for v in (wanted,) if wanted else range(1, n + 1):
            if v not in prefix and v not in col_used[c]:
                out.extend(rows_for(r, c + 1, [*prefix, v]))
        return out

    def search(r: int) -> None:
        _tick()
        if len(found) >= limit:
            return
        if r == n:
            found.append(list(chosen))
            return
        for perm in rows_for(r, 0, []):
            chosen.append(perm)
            for c, v in enumerate(perm):
                col_used[c].add(v)
            if row_ok(chosen):
                search(r + 1)
            for c, v in enumerate(perm):
                col_used[c].discard(v)
            chosen.pop()

    search(0)
    return found


def _solve_futoshiki(question: str) -> list[str]:
    body = question.split("Please provide")[0]
    relations = [
        ((int(a) - 1, int(b) - 1), op, (int(c) - 1, int(d) - 1))
        for a, b, op, c, d in re.findall(r"\((\d+),(\d+)\)\s*([<>])\s*\((\d+),(\d+)\)", body)
    ]
    rows = [line.split() for line in body.splitlines() if re.fullmatch(r"[X\d](\s+[X\d])+", line.strip())]
    n = len(rows)
    givens = {(r, c): int(v) for r, row in enumerate(rows) for c, v in enumerate(row) if v != "X"}

    def row_ok(chosen: list[tuple[int, ...]]) -> bool:
        done = len(chosen)
        for (ra, ca), op, (rb, cb) in relations:
            if ra < done and rb < done:
                a, b = chosen[ra][ca], chosen[rb][cb]
                if (op == "<" and not a < b) or (op == ">" and not a > b):
                    return False
        return True

    return [_answer_grid([list(row) for row in sol]) for sol in _latin_by_rows(n, givens, row_ok)]


_CAGE_RE = re.compile(r"((?:\(\s*\$?\d+\s*,\s*\d+\s*\))+)\s*:\s*(\d+)\s*([+\-*×÷/])")


def _solve_calcudoko(question: str) -> list[str]:
    n = int(re.search(r"size of the grid is (\d+)", question).group(1))
    cages = []
    for cells_text, target, op in _CAGE_RE.findall(question.split("Please provide")[0]):
        cells = sorted({(int(a) - 1, int(b) - 1) for a, b in re.findall(r"(\d+)\s*,\s*(\d+)", cells_text)})
        cages.append((cells, {"×": "*", "/": "÷"}.get(op, op), int(target)))

    def holds(values: list[int], op: str, target: int) -> bool:
        if op == "+":
            return sum(values) == target
        if op == "*":
            return eval_arithmetic("*".join(map(str, values))) == target
        if len(values) != 2:
            return False
        a, b = sorted(values)
        return b - a == target if op == "-" else b == a * target

    def row_ok(chosen: list[tuple[int, ...]]) -> bool:
        r = len(chosen) - 1
        for cells, op, target in cages:
            if max(i for i, _ in cells) == r:
                # Official golds repeat values inside L-shaped cages, so repeats are allowed here.
                if not holds([chosen[i][j] for i, j in cells], op, target):
                    return False
        return True

    return [_answer_grid([list(row) for row in sol]) for sol in _latin_by_rows(n, {}, row_ok)]


def _solve_skyscrapers(question: str) -> list[str]:
    lines = [line for line in question.splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if line.startswith("Grid Layout"))
    top = [int(x) for x in lines[start + 1].split()]
    n = len(top)
    body = [lines[start + 2 + r].split() for r in range(n)]
    left, right = [int(row[0]) for row in body], [int(row[-1]) for row in body]
    bottom = [int(x) for x in lines[start + 2 + n].split()]

    def seen(line: tuple[int, ...] | list[int]) -> int:
        return sum(1 for i, h in enumerate(line) if all(h > p for p in line[:i]))

    def row_ok(chosen: list[tuple[int, ...]]) -> bool:
        r = len(chosen) - 1
        if seen(chosen[r]) != left[r] or seen(chosen[r][::-1]) != right[r]:
            return False
        if len(chosen) == n:
            for c in range(n):
                col = [row[c] for row in chosen]
                if seen(col) != top[c] or seen(col[::-1]) != bottom[c]:
                    return False
        return True

    return [_answer_grid([list(row) for row in sol]) for sol in _latin_by_rows(n, {}, row_ok)]


def _solve_sudoku(question: str) -> list[str]:
    rows = [
        line.split() for line in question.splitlines() if re.fullmatch(r"[X\d](\s[X\d]){8}", line.strip())
    ]
    grid = {(r, c): int(v) for r, row in enumerate(rows) for c, v in enumerate(row) if v != "X"}
    peers = {
        (r, c): {(r, k) for k in range(9)}
        | {(k, c) for k in range(9)}
        | {(r // 3 * 3 + i, c // 3 * 3 + j) for i in range(3) for j in range(3)}
        for r in range(9)
        for c in range(9)
    }
    found: list[str] = []

    def search() -> None:
        _tick()
        if len(found) >= 2:
            return
        open_cells = [cell for cell in peers if cell not in grid]
        if not open_cells:
            found.append(_answer_grid([[grid[(r, c)] for c in range(9)] for r in range(9)]))
            return
        options = {
            cell: set(range(1, 10)) - {grid[p] for p in peers[cell] if p in grid} for cell in open_cells
        }
        cell = min(open_cells, key=lambda x: len(options[x]))
        for v in sorted(options[cell]):
            grid[cell] = v
            search()
            del grid[cell]

    if all(grid[cell] not in {grid[p] for p in peers[cell] - {cell} if p in grid} for cell in grid):
        search()
    return found


def _solve_survo(question: str) -> list[str]:
    rows = [
        line.split() for line in question.splitlines() if re.fullmatch(r"[X\d]+(\s+[X\d]+)+", line.strip())
    ]
    col_sums = [int(x) for x in rows[-1]]
    body = rows[:-1]
    row_sums = [int(row[-1]) for row in body]
    cells = [row[:-1] for row in body]
    m, n = len(cells), len(col_sums)
    grid = [[int(v) if v != "X" else 0 for v in row] for row in cells]
    free = sorted(set(range(1, m * n + 1)) - {v for row in grid for v in row})
    blanks = [(r, c) for r in range(m) for c in range(n) if not grid[r][c]]
    found: list[str] = []

    def line_ok(values: list[int], target: int) -> bool:
        return sum(values) == target if all(values) else sum(values) < target

    def search(index: int, left: list[int]) -> None:
        _tick()
        if len(found) >= 2:
            return
        if index == len(blanks):
            found.append(_answer_grid(grid))
            return
        r, c = blanks[index]
        candidates = left
        for line, target in ((grid[r], row_sums[r]), ([grid[i][c] for i in range(m)], col_sums[c])):
            if line.count(0) == 1:  # the last blank of a line: its value is forced by the sum
                forced = target - sum(line)
                candidates = [forced] if forced in candidates else []
        for v in candidates:
            grid[r][c] = v
            if line_ok(grid[r], row_sums[r]) and line_ok([grid[i][c] for i in range(m)], col_sums[c]):
                search(index + 1, [x for x in left if x != v])
            grid[r][c] = 0

    search(0, free)
    return found


def _solve_kukurasu(question: str) -> list[str]:
    rows = [
        line.split() for line in question.splitlines() if re.fullmatch(r"[X\d]+(\s+[X\d]+)+", line.strip())
    ]
    col_sums = [int(x) for x in rows[-1]]
    row_sums = [int(row[-1]) for row in rows[:-1]]
    m, n = len(row_sums), len(col_sums)
    black = [[0] * n for _ in range(m)]
    found: list[str] = []

    def bounds_ok(r: int, c: int) -> bool:
        row_val = sum((j + 1) * black[r][j] for j in range(n))
        row_max = row_val + sum(j + 1 for j in range(c + 1, n))
        col_val = sum((i + 1) * black[i][c] for i in range(m))
        col_max = col_val + sum(i + 1 for i in range(r + 1, m))
        return row_val <= row_sums[r] <= row_max and col_val <= col_sums[c] <= col_max

    def search(index: int) -> None:
        _tick()
        if len(found) >= 2:
            return
        if index == m * n:
            found.append(_answer_grid([["1" if b else "X" for b in row] for row in black]))
            return
        r, c = divmod(index, n)
        for value in (1, 0):
            black[r][c] = value
            if bounds_ok(r, c):
                search(index + 1)
        black[r][c] = 0

    search(0)
    return found


def _solve_minesweeper(question: str) -> list[str]:
    rows = [
        line.split() for line in question.splitlines() if re.fullmatch(r"[X\d]+(\s+[X\d]+)+", line.strip())
    ]
    n = len(rows)
    numbers = {(r, c): int(v) for r, row in enumerate(rows) for c, v in enumerate(row) if v != "X"}
    unknown = [(r, c) for r in range(n) for c in range(n) if (r, c) not in numbers]
    around = {
        pos: [
            (r, c)
            for r in range(pos[0] - 1, pos[0] + 2)
            for c in range(pos[1] - 1, pos[1] + 2)
            if (r, c) in unknown
        ]
        for pos in numbers
    }
    last_seen = {
        pos: max((unknown.index(cell) for cell in cells), default=-1) for pos, cells in around.items()
    }
    mines: set[tuple[int, int]] = set()
    found: list[str] = []

    def search(index: int) -> None:
        _tick()
        if len(found) >= 2:
            return
        for pos, k in numbers.items():
            placed = sum(cell in mines for cell in around[pos])
            if placed > k or (last_seen[pos] < index and placed != k):
                return
        if index == len(unknown):
            found.append(
                _answer_grid([["A" if (r, c) in mines else rows[r][c] for c in range(n)] for r in range(n)])
            )
            return
        search(index + 1)
        mines.add(unknown[index])
        search(index + 1)
        mines.discard(unknown[index])

    search(0)
    return found


def _solve_24(question: str) -> list[str]:
    """One expression making 24 from the question's four numbers (24 points has no unique answer)."""
    line = question.split("are:")[1].strip().splitlines()[0]
    numbers = [int(x) for x in re.findall(r"\d+", line)]
    for perm in set(itertools.permutations(numbers)):
        for ops in itertools.product("+-×/", repeat=3):
            a, b, c, d = perm
            x, y, z = ops
            for text in (
                f"(({a}{x}{b}){y}{c}){z}{d}",
                f"({a}{x}({b}{y}{c})){z}{d}",
                f"({a}{x}{b}){y}({c}{z}{d})",
                f"{a}{x}(({b}{y}{c}){z}{d})",
                f"{a}{x}({b}{y}({c}{z}{d}))",
            ):
                if eval_arithmetic(text) == 24:
                    return [f"[[{text}]]"]
    return []


def check_24(question: str, answer: str) -> bool:
    """``answer`` uses exactly the question's four numbers and is 24 exactly (no float luck)."""
    line = question.split("are:")[1].strip().splitlines()[0]
    wanted = sorted(int(x) for x in re.findall(r"\d+", line))
    expression = answer.strip()
    if expression.startswith("[[") and expression.endswith("]]"):
        expression = expression[2:-2]
    expression = expression.split("\n")[0].split("=")[0]
    used = sorted(int(x) for x in re.findall(r"\d+", expression))
    return used == wanted and eval_arithmetic(expression) == 24


SOLVERS: dict[str, Callable[[str], list[str]]] = {
    "10": _solve_24,
    "11": _solve_survo,
    "12": _solve_kukurasu,
    "15": _solve_sudoku,
    "16": _solve_calcudoko,
    "17": _solve_futoshiki,
    "21": _solve_minesweeper,
    "25": _solve_skyscrapers,
}


def solve_question(rule_id: str, question: str, max_nodes: int = 2_000_000) -> list[str]:
    """Up to two solutions of ``question`` in official ``[[...]]`` notation (one for 24 points).

    Raises :class:`SearchBudgetExceeded` after ``max_nodes`` search steps: our generated questions
    need a few thousand, but some official ones (all-blank Survo grids) would run for hours."""
    token = _BUDGET.set(_Budget(max_nodes))
    try:
        return SOLVERS[rule_id](question)
    finally:
        _BUDGET.reset(token)

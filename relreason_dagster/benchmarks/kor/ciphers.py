"""Generated KOR-Bench Cipher items: seeded keys and plaintexts, gold answers computed, never typed.

KOR-Bench's cipher category fixes one key per rule and 10 short items per rule, so a model can
memorise them and a score says little about text length.  The authors name "dynamic initialization
parameters, such as varying keys and text lengths" as the next step; this module does that for the
rules whose official text we can follow exactly.

Every family here implements what the *official rule text* (``cipher/rule.jsonl``) prescribes,
quirks included, because that text is what a model is shown: Alberti's ``inner_disk`` repeats ``J``
(decryption takes the first ``J``), "rotate to the right by 4" means ``disk[4:] + disk[:4]`` as the
rule's own example shows, RSA decrypts with the *same* exponent ``e`` (so a random key must have
``e*e = 1 mod lambda(n)``), the Polybius square marks its one missing letter as ``66``.

The official keys are never copied into the project: :meth:`CipherFamily.official_key` parses them
out of the official rule text at run time, and the tests check that encrypting/decrypting each
official sample with that key reproduces its gold answer.  Random keys come from
:meth:`CipherFamily.random_key` and need no reference data.

Registry keys (:data:`FAMILIES`) are the official ``rule_id`` strings of ``cipher/sample.jsonl``
(``"1"`` … ``"25"``); :attr:`CipherFamily.title` is the rule's title.

Which rule text goes with a generated item: an item made with the official key
(``generate(..., key=family.official_key(rule_text))``) uses the official rule text unchanged.  For
random keys, :meth:`CipherFamily.render_rule` rewrites the official text for the new key where the
key appears as literals or in worked examples we can recompute (inverse shift, Polybius, affine,
Alberti's disks, Jefferson's reels, transposition, XOR, RSA; Alberti's period/increment and Porta's
keyword are in the question, as officially).  Collon, Bifid and ADFGVX have no renderer (their rule
texts walk through key-dependent examples, Collon's with an inconsistent ``(4,2)``): ``render_rule``
returns ``None`` and their random-key items need a prompt that states the key itself.  Multi-tap and
Porta get the official text back unchanged: their tables are the standard ones (derived here,
checked against the official text), every generated item uses them, and only lengths and Porta's
question keyword vary.
"""

from __future__ import annotations

import ast
import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from relreason_dagster.benchmarks.kor.generate import check_level, check_rule
from relreason_dagster.errors import ConfigError

UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
NO_J = "ABCDEFGHIKLMNOPQRSTUVWXYZ"
DIRECTIONS = ("Encryption", "Decryption")

_QUESTION_TAIL = (
    "Please provide the {verb} answer, encapsulated in double square brackets. "
    "For example, the format should be: [[{verb} answer]]."
)


@dataclass(frozen=True)
class GeneratedCipherItem:
    """One generated question with its computed gold answer (``[[...]]`` as in the official data).

    ``plaintext``/``ciphertext`` are both stored whatever the direction, so a consumer can check
    the pair without re-running the cipher; ``key`` is the family's key as plain JSON-able data.
    """

    rule_id: str
    family: str
    direction: str
    plaintext: str
    ciphertext: str
    key: dict[str, Any]
    question: str
    answer: str
    seed: int
    index: int = 0


@dataclass(frozen=True)
class CipherFamily:
    """One official cipher rule as code: the rule's transformation, its key and its generators.

    ``extra_question`` returns the lines the official question adds after the quoted text (Alberti
    puts ``period``/``increment`` there); ``alphabet`` is the rule's plaintext alphabet.
    """

    rule_id: str
    title: str
    alphabet: str
    encrypt: Callable[[str, Any], str]
    decrypt: Callable[[str, Any], str]
    random_key: Callable[[random.Random], Any]
    parse_key: Callable[[str, str], Any]
    renderer: Callable[[str, Any], str] | None = None
    extra_question: Callable[[Any], str] = field(default=lambda key: "")

    def official_key(self, rule_text: str, question: str = "") -> Any:
        """The key the official rule text states (``question`` for rules that put it there)."""
        try:
            return self.parse_key(rule_text, question)
        except (ValueError, IndexError, AttributeError, SyntaxError) as exc:
            raise ConfigError(
                f"cipher rule {self.rule_id} text does not state its key in the expected form ({exc}); "
                "restore the official rule.jsonl"
            ) from None

    def random_plaintext(self, rng: random.Random, length: tuple[int, int] = (1, 12)) -> str:
        """Uniform letters of the rule's plaintext alphabet, length uniform in ``length``."""
        low, high = length
        if low < 1 or high < low:
            raise ConfigError(f"length range {length} is invalid; use (min, max) with 1 <= min <= max")
        return "".join(rng.choice(self.alphabet) for _ in range(rng.randint(low, high)))

    def question(self, direction: str, text: str, key: Any) -> str:
        """The official question wording for ``direction`` (Encryption/Decryption)."""
        label, verb = ("Plaintext", "encrypted") if direction == "Encryption" else ("Ciphertext", "decrypted")
        extra = self.extra_question(key)
        return f'{label}: "{text}"{extra}\n\n' + _QUESTION_TAIL.format(verb=verb)

    def render_rule(self, rule_text: str, key: Any) -> str | None:
        """The official rule text rewritten for ``key``, or None where this family has no renderer.

        The official key gets the official text back unchanged (typos included), so official items
        and official-key generated items are shown the same rule.
        """
        if self.renderer is None:
            return None
        try:
            if self.parse_key(rule_text, "") == key:
                return rule_text
        except (ValueError, IndexError, AttributeError, SyntaxError):
            pass
        try:
            return self.renderer(rule_text, key)
        except (ValueError, IndexError, AttributeError, SyntaxError) as exc:
            raise ConfigError(
                f"cipher rule {self.rule_id} text does not state its key in the expected form ({exc}); "
                "pass the official rule text"
            ) from None


def _rng_perm(rng: random.Random, letters: str) -> str:
    chars = list(letters)
    rng.shuffle(chars)
    return "".join(chars)


def _need(match: re.Match[str] | None, what: str) -> re.Match[str]:
    if match is None:
        raise ValueError(f"no {what}")
    return match


def _field(text: str, name: str) -> str:
    return _need(re.search(rf'{re.escape(name)}\s*=?\s*"([A-Z]+)"', text), name).group(1)


# --------------------------------------------------------------------------- 1 inverse shift


@dataclass(frozen=True)
class ShiftKey:
    substitution: str
    shift: int


def _shift_enc(text: str, key: ShiftKey) -> str:
    out = []
    for p in text:
        reversed_letter = UPPER[25 - UPPER.index(p)]
        shifted = UPPER[(UPPER.index(reversed_letter) + key.shift) % 26]
        out.append(key.substitution[UPPER.index(shifted)])
    return "".join(out)


def _shift_dec(text: str, key: ShiftKey) -> str:
    out = []
    for c in text:
        plain = UPPER[key.substitution.index(c)]
        shifted = UPPER[(UPPER.index(plain) - key.shift) % 26]
        out.append(UPPER[UPPER[::-1].index(shifted)])
    return "".join(out)


def _shift_parse(rule: str, question: str) -> ShiftKey:
    shift = int(_need(re.search(r"forward (\d+) places", rule), "shift").group(1))
    return ShiftKey(_field(rule, "substitution_alphabet:"), shift)


def _shift_render(rule: str, key: ShiftKey) -> str:
    """Alphabet and shift replaced, and the two worked examples (A → Z → shifted → substituted)
    recomputed, since they spell out letters that depend on the key."""
    old = _shift_parse(rule, "")
    text = rule.replace(f'"{old.substitution}"', f'"{key.substitution}"')
    text = re.sub(r"forward \d+ places", f"forward {key.shift} places", text)
    text = re.sub(r"backward by \d+ positions", f"backward by {key.shift} positions", text)
    shifted = UPPER[(25 + key.shift) % 26]
    text = re.sub(
        r"Z is shifted forward \d+ positions in the standard_alphabet to get [A-Z]\.",
        f"Z is shifted forward {key.shift} positions in the standard_alphabet to get {shifted}.",
        text,
    )
    mapped = key.substitution[UPPER.index(shifted)]
    return re.sub(
        r"going through \(2\) is [A-Z], it is mapped as [A-Z]\.",
        f"going through (2) is {shifted}, it is mapped as {mapped}.",
        text,
    )


# --------------------------------------------------------------------------- 3 multi-tap


def _same_table_render(rule: str, key: Any) -> str:
    """Multi-tap and Porta: the rule's table is fixed, so its text stands; another table is refused."""
    table = getattr(key, "table", None) or getattr(key, "alphabets", None)
    stated = _multitap_parse(rule, "").table if hasattr(key, "table") else _porta_parse(rule, "").alphabets
    if table != stated:
        raise ConfigError(
            "this key's table differs from the rule's fixed table; the rule text cannot state it"
        )
    return rule


@dataclass(frozen=True)
class TableKey:
    """A letter → code table (multi-tap)."""

    table: tuple[tuple[str, str], ...]


_KEYPAD = ("ABC", "DEF", "GHI", "JKL", "MNO", "PQRS", "TUV", "WXYZ")


def _multitap_random(rng: random.Random) -> TableKey:
    """The rule's table *is* the phone keypad (2 = ABC … 9 = WXYZ), so there is no key to vary and
    only lengths do; the table is derived from :data:`_KEYPAD`, and the tests check it equals the
    official one.  ``rng`` is accepted for the common signature."""
    table = []
    for digit, group in enumerate(_KEYPAD, start=2):
        table.extend((letter, f"{digit}^{press}") for press, letter in enumerate(group, start=1))
    return TableKey(tuple(sorted(table)))


def _table_enc(text: str, key: TableKey) -> str:
    table = dict(key.table)
    return "".join(table[p] for p in text)


def _multitap_dec(text: str, key: TableKey) -> str:
    inverse = {code: letter for letter, code in key.table}
    return "".join(inverse[text[i : i + 3]] for i in range(0, len(text), 3))


def _multitap_parse(rule: str, question: str) -> TableKey:
    rows = re.findall(r"\|\s*([A-Z])\s*\|\s*(\d\^\d)\s*\|", rule)
    if len(rows) != 26:
        raise ValueError("multitap table")
    return TableKey(tuple(sorted(rows)))


# --------------------------------------------------------------------------- 4 Polybius


@dataclass(frozen=True)
class SquareKey:
    """A 5x5 square of 25 letters; ``missing`` is the one letter left out (written ``66``)."""

    rows: tuple[str, ...]
    missing: str


def _square_random(rng: random.Random) -> SquareKey:
    letters = _rng_perm(rng, UPPER)
    return SquareKey(tuple(letters[i : i + 5] for i in range(0, 25, 5)), letters[25])


def _polybius_enc(text: str, key: SquareKey) -> str:
    out = []
    for p in text:
        if p == key.missing:
            out.append("66")
            continue
        row = next(r for r, line in enumerate(key.rows) if p in line)
        out.append(f"{row + 1}{key.rows[row].index(p) + 1}")
    return "".join(out)


def _polybius_dec(text: str, key: SquareKey) -> str:
    out = []
    for i in range(0, len(text), 2):
        pair = text[i : i + 2]
        out.append(key.missing if pair == "66" else key.rows[int(pair[0]) - 1][int(pair[1]) - 1])
    return "".join(out)


_POLY_ROW = re.compile(r"^\| (\d)  \| ([A-Z])  \| ([A-Z])  \| ([A-Z])  \| ([A-Z])  \| ([A-Z])  \|$", re.M)


def _polybius_parse(rule: str, question: str) -> SquareKey:
    rows = tuple("".join(m[1:]) for m in _POLY_ROW.findall(rule))
    missing = _need(re.search(r"In particular, ([A-Z]), which does not exist", rule), "missing").group(1)
    if len(rows) != 5:
        raise ValueError("Polybius square")
    return SquareKey(rows, missing)


def _polybius_render(rule: str, key: SquareKey) -> str:
    rows = iter(key.rows)
    text = _POLY_ROW.sub(lambda m: f"| {m.group(1)}  | " + "  | ".join(next(rows)) + "  |", rule)
    text = re.sub(r"In particular, [A-Z], which", f"In particular, {key.missing}, which", text)
    return re.sub(r'replace with "[A-Z]"', f'replace with "{key.missing}"', text)


# --------------------------------------------------------------------------- 5 affine


@dataclass(frozen=True)
class AffineKey:
    alphabet: str
    a: int
    b: int

    @property
    def a_inv(self) -> int:
        return pow(self.a, -1, 26)


def _affine_random(rng: random.Random) -> AffineKey:
    return AffineKey(
        _rng_perm(rng, UPPER),
        rng.choice([a for a in range(3, 26) if math.gcd(a, 26) == 1]),
        rng.randrange(1, 26),
    )


def _affine_enc(text: str, key: AffineKey) -> str:
    return "".join(key.alphabet[(key.a * key.alphabet.index(p) + key.b) % 26] for p in text)


def _affine_dec(text: str, key: AffineKey) -> str:
    return "".join(key.alphabet[key.a_inv * (key.alphabet.index(c) - key.b) % 26] for c in text)


_AFFINE_PAIR = re.compile(r"\b([A-Z]) -> (\d+)\b")


def _affine_parse(rule: str, question: str) -> AffineKey:
    a = int(_need(re.search(r"- A: (\d+)", rule), "A").group(1))
    b = int(_need(re.search(r"- B: (\d+)", rule), "B").group(1))
    stated_inv = int(_need(re.search(r"- A_inv: (\d+)", rule), "A_inv").group(1))
    key = AffineKey(_field(rule, "affine alphabet ="), a, b)
    if key.a_inv != stated_inv:
        raise ValueError("A_inv is not the inverse of A")
    if any(key.alphabet[int(n)] != letter for letter, n in _AFFINE_PAIR.findall(rule)):
        raise ValueError("the letter -> position listing disagrees with the affine alphabet")
    return key


def _affine_render(rule: str, key: AffineKey) -> str:
    """Alphabet, A, B, A_inv and the ``X -> 0`` listing rewritten (the listing's line breaks kept)."""
    old = _affine_parse(rule, "")
    text = rule.replace(f'"{old.alphabet}"', f'"{key.alphabet}"')
    text = _AFFINE_PAIR.sub(lambda m: f"{key.alphabet[int(m.group(2))]} -> {m.group(2)}", text)
    text = re.sub(r"- A: \d+", f"- A: {key.a}", text)
    text = re.sub(r"- B: \d+", f"- B: {key.b}", text)
    return re.sub(r"- A_inv: \d+", f"- A_inv: {key.a_inv}", text)


# --------------------------------------------------------------------------- 8 Porta


@dataclass(frozen=True)
class PortaKey:
    """The 13 cipher alphabets (pair ``AB`` first) and the keyword the question states."""

    alphabets: tuple[str, ...]
    keyword: str


def _porta_alphabets() -> tuple[str, ...]:
    """The Porta table: for pair ``k`` the second half ``N…Z`` turned right by ``k`` and the first
    half ``A…M`` turned left by ``k``; the tests check this equals the official table."""
    low, high = UPPER[:13], UPPER[13:]
    return tuple(high[13 - k :] + high[: 13 - k] + low[k:] + low[:k] for k in range(13))


def _porta_alphabet(key: PortaKey, index: int) -> str:
    return key.alphabets[UPPER.index(key.keyword[index % len(key.keyword)]) // 2]


def _porta_enc(text: str, key: PortaKey) -> str:
    return "".join(_porta_alphabet(key, i)[UPPER.index(p)] for i, p in enumerate(text))


def _porta_dec(text: str, key: PortaKey) -> str:
    return "".join(UPPER[_porta_alphabet(key, i).index(c)] for i, c in enumerate(text))


def _porta_random(rng: random.Random) -> PortaKey:
    """Only the keyword varies (it is part of the question, as in the official items: 5-10 letters)."""
    return PortaKey(_porta_alphabets(), "".join(rng.choice(UPPER) for _ in range(rng.randint(5, 10))))


def _porta_parse(rule: str, question: str) -> PortaKey:
    rows = re.findall(r"^\s*([A-Z]{2}): ([A-Z]{26})$", rule, re.M)
    if [pair for pair, _ in rows[:13]] != [UPPER[i : i + 2] for i in range(0, 26, 2)]:
        raise ValueError("Porta alphabets")
    keyword = re.search(r"\nKey: ([A-Z]+)", question)
    return PortaKey(tuple(alphabet for _, alphabet in rows[:13]), keyword.group(1) if keyword else "A")


def _porta_extra(key: PortaKey) -> str:
    return f"\nKey: {key.keyword}"


@dataclass(frozen=True)
class AlbertiKey:
    outer: str
    inner: str
    period: int
    increment: int


def _rotate(disk: str, by: int) -> str:
    """The rule's "rotate right by 4": its example turns ZXCV…OP into BNMA…ZXCV, i.e. ``[4:] + [:4]``."""
    by %= len(disk)
    return disk[by:] + disk[:by]


def _alberti_enc(text: str, key: AlbertiKey) -> str:
    inner, out = key.inner, []
    for i, p in enumerate(text, start=1):
        out.append(inner[key.outer.index(p)])
        if i % key.period == 0:
            inner = _rotate(inner, key.increment)
    return "".join(out)


def _alberti_dec(text: str, key: AlbertiKey) -> str:
    inner, out = key.inner, []
    for i, c in enumerate(text, start=1):
        out.append(key.outer[inner.index(c)])
        if i % key.period == 0:
            inner = _rotate(inner, key.increment)
    return "".join(out)


def _alberti_random(rng: random.Random) -> AlbertiKey:
    """Random disks (true permutations, so every item round-trips) and question parameters."""
    return AlbertiKey(_rng_perm(rng, UPPER), _rng_perm(rng, UPPER), rng.randint(1, 12), rng.randint(1, 5))


def _alberti_parse(rule: str, question: str) -> AlbertiKey:
    period = re.search(r"\nperiod: (\d+)", question)
    increment = re.search(r"\nincrement: (\d+)", question)
    return AlbertiKey(
        _field(rule, "outer_disk ="),
        _field(rule, "inner_disk ="),
        int(period.group(1)) if period else 1,
        int(increment.group(1)) if increment else 0,
    )


def _alberti_render(rule: str, key: AlbertiKey) -> str:
    old = _alberti_parse(rule, "")
    return rule.replace(f'"{old.outer}"', f'"{key.outer}"').replace(f'"{old.inner}"', f'"{key.inner}"')


# --------------------------------------------------------------------------- 10 Jefferson


@dataclass(frozen=True)
class ReelsKey:
    reels: tuple[str, ...]


def _reels_random(rng: random.Random) -> ReelsKey:
    """Like the official reels: each a permutation starting with A, between 5 and 25 of them."""
    return ReelsKey(tuple("A" + _rng_perm(rng, UPPER[1:]) for _ in range(rng.randint(5, 25))))


def _reels_enc(text: str, key: ReelsKey) -> str:
    out = []
    for i, p in enumerate(text):
        reel = key.reels[i % len(key.reels)]
        out.append(reel[(reel.index(p) + 1) % 26])
    return "".join(out)


def _reels_dec(text: str, key: ReelsKey) -> str:
    out = []
    for i, c in enumerate(text):
        reel = key.reels[i % len(key.reels)]
        out.append(reel[(reel.index(c) - 1) % 26])
    return "".join(out)


_REEL_LINE = re.compile(r'^( *)Reel\d+:\s*"([A-Z]{26})",?$', re.M)


def _reels_parse(rule: str, question: str) -> ReelsKey:
    reels = tuple(m.group(2) for m in _REEL_LINE.finditer(rule))
    if not reels:
        raise ValueError("reels")
    return ReelsKey(reels)


def _reels_render(rule: str, key: ReelsKey) -> str:
    """The reel listing rebuilt (any count); "the last Reel" in the steps needs no number."""
    lines = list(_REEL_LINE.finditer(rule))
    indent = lines[0].group(1)
    block = ",\n".join(f'{indent}Reel{i}:   "{reel}"' for i, reel in enumerate(key.reels, start=1))
    return rule[: lines[0].start()] + block + rule[lines[-1].end() :]


# --------------------------------------------------------------------------- 15 Collon


def _collon_enc(text: str, key: SquareKey) -> str:
    out = []
    for p in text:
        row = next(r for r, line in enumerate(key.rows) if p in line)
        out.append(key.rows[row][0] + key.rows[4][key.rows[row].index(p)])
    return "".join(out)


def _collon_dec(text: str, key: SquareKey) -> str:
    out = []
    for i in range(0, len(text), 2):
        row = next(r for r in range(5) if key.rows[r][0] == text[i])
        out.append(key.rows[row][key.rows[4].index(text[i + 1])])
    return "".join(out)


def _square_no_j_random(rng: random.Random) -> SquareKey:
    letters = _rng_perm(rng, NO_J)
    return SquareKey(tuple(letters[i : i + 5] for i in range(0, 25, 5)), "J")


def _collon_parse(rule: str, question: str) -> SquareKey:
    block = _need(
        re.search(r"Gird\(.*?\):\s*- ((?:[A-Z] ){4}[A-Z](?:\s+(?:[A-Z] ){4}[A-Z]){4})", rule), "grid"
    )
    rows = tuple(line.replace(" ", "") for line in re.findall(r"(?:[A-Z] ){4}[A-Z]", block.group(1)))
    return SquareKey(rows, "J")


# --------------------------------------------------------------------------- 13 Bifid


def _bifid_enc(text: str, key: SquareKey) -> str:
    flat = "".join(key.rows)
    coords = [divmod(flat.index(p), 5) for p in text]
    sequence = [r for r, _ in coords] + [c for _, c in coords]
    return "".join(key.rows[sequence[i]][sequence[i + 1]] for i in range(0, len(sequence), 2))


def _bifid_dec(text: str, key: SquareKey) -> str:
    flat = "".join(key.rows)
    sequence = [n for c in text for n in divmod(flat.index(c), 5)]
    half = len(sequence) // 2
    return "".join(key.rows[r][c] for r, c in zip(sequence[:half], sequence[half:], strict=True))


def _bifid_parse(rule: str, question: str) -> SquareKey:
    block = _need(
        re.search(r"5x5 grid \(.*?\):\s*- ((?:[A-Z]  ){4}[A-Z](?:\s+(?:[A-Z]  ){4}[A-Z]){4})", rule), "grid"
    )
    rows = tuple(line.replace(" ", "") for line in re.findall(r"(?:[A-Z]  ){4}[A-Z]", block.group(1)))
    return SquareKey(rows, "J")


# --------------------------------------------------------------------------- 19 ADFGVX


@dataclass(frozen=True)
class AdfgvxKey:
    matrix: tuple[str, ...]
    charset: str = "ADFGVX"


def _adfgvx_enc(text: str, key: AdfgvxKey) -> str:
    rows, cols = [], []
    for p in text:
        r = next(i for i, line in enumerate(key.matrix) if p in line)
        rows.append(key.charset[r])
        cols.append(key.charset[key.matrix[r].index(p)])
    return "".join(rows) + "".join(cols)


def _adfgvx_dec(text: str, key: AdfgvxKey) -> str:
    half = len(text) // 2
    return "".join(
        key.matrix[key.charset.index(r)][key.charset.index(c)]
        for r, c in zip(text[:half], text[half:], strict=True)
    )


def _adfgvx_random(rng: random.Random) -> AdfgvxKey:
    cells = _rng_perm(rng, UPPER + "0123456789")
    return AdfgvxKey(tuple(cells[i : i + 6] for i in range(0, 36, 6)))


def _adfgvx_parse(rule: str, question: str) -> AdfgvxKey:
    literal = _need(re.search(r"\[\[.*?\]\]", rule, re.S), "matrix").group(0)
    matrix = tuple("".join(row) for row in ast.literal_eval(literal))
    charset = _need(re.search(r'Encrypted Character Set\s*- "([A-Z]{6})"', rule), "charset").group(1)
    return AdfgvxKey(matrix, charset)


# --------------------------------------------------------------------------- 20 transposition


@dataclass(frozen=True)
class TranspositionKey:
    order: tuple[int, ...]


def _trans_enc(text: str, key: TranspositionKey) -> str:
    width = len(key.order)
    padded = text + "$" * (-len(text) % width)
    lines = [padded[i : i + width] for i in range(0, len(padded), width)]
    return "".join("".join(line[col] for col in key.order) for line in lines)


def _trans_dec(text: str, key: TranspositionKey) -> str:
    width = len(key.order)
    out = []
    for i in range(0, len(text), width):
        line = text[i : i + width]
        out.append("".join(line[key.order.index(col)] for col in range(width)))
    return "".join(out).rstrip("$")


def _trans_random(rng: random.Random) -> TranspositionKey:
    order = list(range(rng.randint(4, 9)))
    rng.shuffle(order)
    return TranspositionKey(tuple(order))


def _trans_parse(rule: str, question: str) -> TranspositionKey:
    literal = _need(re.search(r"Transposed sequence list:\s*- (\[[\d, ]+\])", rule), "sequence").group(1)
    return TranspositionKey(tuple(ast.literal_eval(literal)))


def _trans_render(rule: str, key: TranspositionKey) -> str:
    """Every place the official text spells out the order or its width, rewritten for ``key``.

    The official decryption sentence says "column 6 corresponding to 2" for ``[1, 4, 0, 6, 5, 2, 3]``
    where the inverse (and the official decryption samples) need column 5; a rendered rule states
    the correct inverse, and :meth:`CipherFamily.render_rule` leaves the official key's text as is.
    """
    old = _trans_parse(rule, "")
    old_w, new_w = len(old.order), len(key.order)
    text = rule.replace(str(list(old.order)), str(list(key.order)))
    old_cols = ", ".join(f"the original column {c}" for c in old.order)
    text = text.replace(old_cols, ", ".join(f"the original column {c}" for c in key.order))
    old_read = re.search(r"read a character in column .*?(?:, etc\.)+", text)
    if old_read:
        steps = [f"column {key.order.index(i)} corresponding to {i}" for i in range(min(3, new_w))]
        new_read = "read a character in " + ", then a character in ".join(steps) + ", etc."
        text = text[: old_read.start()] + new_read + text[old_read.end() :]
    for pattern in (
        r"total of {} bits",
        r"{} letters should",
        r"{} per line",
        r"less than {},",
        r"{} letters per",
    ):
        text = re.sub(pattern.format(old_w), pattern.format(new_w), text)
    return text


# --------------------------------------------------------------------------- 21 XOR


@dataclass(frozen=True)
class XorKey:
    bits: str
    permutation: tuple[int, ...]

    @property
    def inverse(self) -> tuple[int, ...]:
        return tuple(self.permutation.index(i) for i in range(len(self.permutation)))


def _xor_enc(text: str, key: XorKey) -> str:
    out = []
    for p in text:
        mixed = "".join(str(int(b) ^ int(k)) for b, k in zip(format(ord(p), "08b"), key.bits, strict=True))
        out.append("".join(mixed[i] for i in key.permutation))
    return "".join(out)


def _xor_dec(text: str, key: XorKey) -> str:
    out = []
    for i in range(0, len(text), 8):
        chunk = text[i : i + 8]
        unpermuted = "".join(chunk[j] for j in key.inverse)
        out.append(
            chr(int("".join(str(int(b) ^ int(k)) for b, k in zip(unpermuted, key.bits, strict=True)), 2))
        )
    return "".join(out)


def _xor_random(rng: random.Random) -> XorKey:
    order = list(range(8))
    rng.shuffle(order)
    return XorKey("".join(rng.choice("01") for _ in range(8)), tuple(order))


def _xor_parse(rule: str, question: str) -> XorKey:
    bits = _need(re.search(r"e\.g\., '([01]{8})'", rule), "key").group(1)
    perm = _need(re.search(r"- Permutation Table: (\([\d, ]+\))", rule), "permutation").group(1)
    key = XorKey(bits, tuple(ast.literal_eval(perm)))
    stated = _need(re.search(r"Inverse Permutation Table: (\([\d, ]+\))", rule), "inverse").group(1)
    if tuple(ast.literal_eval(stated)) != key.inverse:
        raise ValueError("the stated inverse permutation is not the inverse")
    return key


def _xor_render(rule: str, key: XorKey) -> str:
    old = _xor_parse(rule, "")
    text = rule.replace(f"'{old.bits}'", f"'{key.bits}'")
    text = text.replace(
        f"Inverse Permutation Table: {old.inverse}", f"Inverse Permutation Table: {key.inverse}"
    )
    return text.replace(f"Permutation Table: {old.permutation}", f"Permutation Table: {key.permutation}")


# --------------------------------------------------------------------------- 23 RSA


@dataclass(frozen=True)
class RsaKey:
    e: int
    n: int


_SMALL_PRIMES = [p for p in range(11, 60) if all(p % d for d in range(2, int(p**0.5) + 1))]


def _rsa_random(rng: random.Random) -> RsaKey:
    """A small ``n = p*q > 90`` (ASCII ``Z``) and an ``e`` that is its own inverse mod lambda(n),
    since the official decryption step raises to the same ``e``; ``e = 1`` is excluded."""
    while True:
        p, q = rng.sample(_SMALL_PRIMES, 2)
        lam = math.lcm(p - 1, q - 1)
        choices = [e for e in range(3, lam) if math.gcd(e, lam) == 1 and e * e % lam == 1]
        if p * q > 90 and choices:
            return RsaKey(rng.choice(choices), p * q)


def _rsa_enc(text: str, key: RsaKey) -> str:
    return ",".join(str(pow(ord(p), key.e, key.n)) for p in text)


def _rsa_dec(text: str, key: RsaKey) -> str:
    return "".join(chr(pow(int(c), key.e, key.n)) for c in text.split(","))


def _rsa_parse(rule: str, question: str) -> RsaKey:
    e = int(_need(re.search(r"- e: (\d+)", rule), "e").group(1))
    return RsaKey(e, int(_need(re.search(r"- n: (\d+)", rule), "n").group(1)))


def _rsa_render(rule: str, key: RsaKey) -> str:
    return re.sub(r"- n: \d+", f"- n: {key.n}", re.sub(r"- e: \d+", f"- e: {key.e}", rule))


# --------------------------------------------------------------------------- registry


def _alberti_extra(key: AlbertiKey) -> str:
    return f"\nperiod: {key.period}\nincrement: {key.increment}"


def _shift_random(rng: random.Random) -> ShiftKey:
    return ShiftKey(_rng_perm(rng, UPPER), rng.randint(1, 25))


FAMILIES: dict[str, CipherFamily] = {
    family.rule_id: family
    for family in (
        CipherFamily(
            "1",
            "Custom Inverse Shift Substitution Cipher",
            UPPER,
            _shift_enc,
            _shift_dec,
            _shift_random,
            _shift_parse,
            _shift_render,
        ),
        CipherFamily(
            "3",
            "Custom Multi-tap Phone Code",
            UPPER,
            _table_enc,
            _multitap_dec,
            _multitap_random,
            _multitap_parse,
            _same_table_render,
        ),
        CipherFamily(
            "4",
            "Custom Polybius Square Cipher",
            UPPER,
            _polybius_enc,
            _polybius_dec,
            _square_random,
            _polybius_parse,
            _polybius_render,
        ),
        CipherFamily(
            "5",
            "Custom Affine Cipher",
            UPPER,
            _affine_enc,
            _affine_dec,
            _affine_random,
            _affine_parse,
            _affine_render,
        ),
        CipherFamily(
            "8",
            "Custom Porta Cipher",
            UPPER,
            _porta_enc,
            _porta_dec,
            _porta_random,
            _porta_parse,
            _same_table_render,
            _porta_extra,
        ),
        CipherFamily(
            "9",
            "Custom Alberti Cipher",
            UPPER,
            _alberti_enc,
            _alberti_dec,
            _alberti_random,
            _alberti_parse,
            _alberti_render,
            _alberti_extra,
        ),
        CipherFamily(
            "10",
            "Custom Jefferson Cipher",
            UPPER,
            _reels_enc,
            _reels_dec,
            _reels_random,
            _reels_parse,
            _reels_render,
        ),
        CipherFamily(
            "15", "Custom Collon Cipher", NO_J, _collon_enc, _collon_dec, _square_no_j_random, _collon_parse
        ),
        CipherFamily(
            "13", "Custom Bifid Cipher", NO_J, _bifid_enc, _bifid_dec, _square_no_j_random, _bifid_parse
        ),
        CipherFamily(
            "19", "Custom ADFGVX Cipher", UPPER, _adfgvx_enc, _adfgvx_dec, _adfgvx_random, _adfgvx_parse
        ),
        CipherFamily(
            "20",
            "Custom Transposition Cipher",
            UPPER,
            _trans_enc,
            _trans_dec,
            _trans_random,
            _trans_parse,
            _trans_render,
        ),
        CipherFamily(
            "21", "Custom XOR Cipher", UPPER, _xor_enc, _xor_dec, _xor_random, _xor_parse, _xor_render
        ),
        CipherFamily(
            "23", "Custom RSA Cipher", UPPER, _rsa_enc, _rsa_dec, _rsa_random, _rsa_parse, _rsa_render
        ),
    )
}


def key_data(key: Any) -> dict[str, Any]:
    """A key as plain data (tuples become lists) for storing next to an item."""
    return {name: list(value) if isinstance(value, tuple) else value for name, value in asdict(key).items()}


def generate(
    rule_id: str,
    n: int,
    seed: int,
    level: int = 1,
    *,
    length: tuple[int, int] | None = None,
    key: Any = None,
    directions: Sequence[str] = DIRECTIONS,
) -> list[GeneratedCipherItem]:
    """``n`` items of rule ``rule_id``, directions cycling through ``directions``.

    Same arguments, same items: everything random comes from ``random.Random(seed)``.  ``level``
    sets the plaintext length, 1 to ``6 * level`` letters (``length`` overrides it).  With ``key``
    every item uses it (pass ``official_key(...)`` to pair items with the unchanged official rule
    text); otherwise each item draws its own key, so no two items share a memorisable mapping.
    """
    check_rule("cipher", rule_id, FAMILIES)
    check_level("cipher", level)
    family = FAMILIES[rule_id]
    if length is None:
        length = (1, 6 * level)
    unknown = [d for d in directions if d not in DIRECTIONS]
    if n < 0 or not directions or unknown:
        raise ConfigError(f"generate needs n >= 0 and directions from {DIRECTIONS}; got n={n}, {directions}")
    rng = random.Random(seed)
    items: list[GeneratedCipherItem] = []
    for index in range(n):
        direction = directions[index % len(directions)]
        item_key = key if key is not None else family.random_key(rng)
        plaintext = family.random_plaintext(rng, length)
        ciphertext = family.encrypt(plaintext, item_key)
        shown, gold = (plaintext, ciphertext) if direction == "Encryption" else (ciphertext, plaintext)
        items.append(
            GeneratedCipherItem(
                rule_id=rule_id,
                family=family.title,
                direction=direction,
                plaintext=plaintext,
                ciphertext=ciphertext,
                key=key_data(item_key),
                question=family.question(direction, shown, item_key),
                answer=f"[[{gold}]]",
                seed=seed,
                index=index,
            )
        )
    return items

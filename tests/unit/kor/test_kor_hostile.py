"""KOR parsing and scoring stay bounded on hostile model text (issue 16, item 1, KOR family).

One test per payload class of the issue: lone surrogates, NUL bytes, 1 MB of text, deep nesting,
LaTeX bombs, ``__import__``, power towers and 10^6-cell matrices.  Each runs its payloads through
answer extraction, both scoring modes (on one item per official branch and robust comparison) and
the pipeline's parse step (``KorFamily.parse``, single and mixed samples), and requires a verdict
or parse status every time, never an exception.

The bound is structural, so no assertion here depends on how fast the machine is: each test also
shows that the cap which bounds its class is the one that triggers (the response length cap, the
expression length and depth caps, the exponent cap, the tail that extraction reads, the count check
before numbers are converted).  A ``SIGALRM`` guard turns a hang into a failure instead of a stuck
suite; it is a safety net, not a speed requirement.
"""

from __future__ import annotations

import builtins
import json
import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from relreason_dagster.benchmarks.base import Profile, Sample
from relreason_dagster.benchmarks.kor import mathexpr, mixed, parsing
from relreason_dagster.benchmarks.kor.data import KorItem
from relreason_dagster.benchmarks.kor.family import MIXED_TASK, KorFamily
from relreason_dagster.benchmarks.kor.profile_schema import Knobs
from relreason_dagster.benchmarks.kor.scoring import REASON_CODES, score_official, score_robust
from relreason_dagster.profiles import get_profile

SAFETY_NET_S = 300


@pytest.fixture(autouse=True)
def _safety_net() -> Iterator[None]:
    """Fail instead of hanging if a step were unbounded; generous, since a busy machine is slow."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"KOR hostile-text test still running after {SAFETY_NET_S} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(SAFETY_NET_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _item(category: str, rule_id: str, answer: str, idx: str = "9999", **extra: str) -> KorItem:
    return KorItem(category=category, idx=idx, rule_id=rule_id, question="", answer=answer, **extra)


ITEMS = [  # one per official branch and robust comparison
    _item("operation", "1", "[[24]]", idx="1"),
    _item("operation", "1", "[[650or5or125]]", idx="6"),
    _item("operation", "6", "[[X≥8]]", idx="56"),
    _item("operation", "12", "[[9+\\sqrt{6}]]", idx="115"),
    _item("operation", "15", "[[2(x)\\sin(x)+(x)^2\\cos(x)]]", idx="141"),
    _item("operation", "18", "[[{1,2,4,5}]]", idx="171"),
    _item("operation", "18", "[[{x∣x≤0 or x≥1}]]", idx="178"),
    _item("operation", "23", "[[((1,2),(9,64))]]", idx="221"),
    _item("logic", "5", "[[I,O];[+,-];[-,+]]", idx="41"),
    _item("logic", "1", "[[p1&p2];[p3||p4]]", idx="1"),
    _item("cipher", "1", "[[N]]", idx="1", subcategory="Encryption"),
    _item("counterfactual", "1", "[[C]]", idx="1", real_life_answer="[[A]]"),
    _item("puzzle", "3", "[[pea ape]]"),
    _item("puzzle", "4", "[[appel pepla]]"),
    _item("puzzle", "9", "[[6+2*3-2=10]]"),
    _item("puzzle", "10", "[[(9+5-2)×2]]"),
    _item("puzzle", "18", "[[← 9 → →,↑ ↓ ← ←]]"),
    _item("puzzle", "11", "[[12 6 2 4,8 1 5 4]]"),
]


def _samples() -> list[Sample]:
    """Generated single and mixed samples (logic and counterfactual need no reference data)."""
    profile = Profile(
        "hostile",
        {
            **get_profile("smoke", "kor").params,
            "source": "generated",
            "categories": ["logic", "counterfactual"],
            "questions_per_rule": 1,
            "mixed": {"Multi-Q": 1, "Multi-RQ": 1},
        },
        knobs=Knobs,
    )
    samples = KorFamily().generate(profile, 11)
    singles = [s for s in samples if s.task != MIXED_TASK]
    mixes = [s for s in samples if s.task == MIXED_TASK]
    assert singles and mixes
    return singles[:3] + mixes


def _score_everything(payloads: dict[str, object]) -> dict[str, tuple[bool, str]]:
    """Every payload through extraction, both scorers and the parse step; returns the robust
    verdicts on the first item.  Any exception or wrong type is collected and fails the test."""
    problems: list[str] = []
    verdicts: dict[str, tuple[bool, str]] = {}
    family = KorFamily()
    samples = _samples()
    for name, payload in payloads.items():
        answer = parsing.extract_final(payload)
        if answer is not None and not isinstance(answer, str):
            problems.append(f"{name}: extract_final gave {type(answer).__name__}")
        for item in ITEMS:
            official = score_official(payload, item)
            robust = score_robust(payload, item)
            if not isinstance(official, bool):
                problems.append(f"{name} {item.category}/{item.rule_id}: official gave {official!r}")
            if not (isinstance(robust, tuple) and isinstance(robust[0], bool)):
                problems.append(f"{name} {item.category}/{item.rule_id}: robust gave {robust!r}")
                continue
            *prefix, code = robust[1].split("+")
            if code not in REASON_CODES or code == "error":
                problems.append(f"{name} {item.category}/{item.rule_id}: robust reason {robust[1]!r}")
            verdicts.setdefault(name, robust)
        text = payload if isinstance(payload, str) else parsing.as_text(payload)
        for sample in samples:
            try:
                parsed = family.parse(sample, "zero_shot", text)
            except Exception as exc:  # noqa: BLE001 - collected and asserted below
                problems.append(f"{name} parse {sample.task}: raised {exc!r}")
                continue
            if parsed.parse_status not in ("ok", "na") or not isinstance(parsed.correct, bool):
                problems.append(f"{name} parse {sample.task}: {parsed!r}"[:300])
    assert problems == []
    return verdicts


def _refused(call: Callable[[], object], reason: str) -> None:
    with pytest.raises(mathexpr.MathParseError, match=reason):
        call()


# --------------------------------------------------------------------------- the eight classes


def test_lone_surrogates() -> None:
    """Invalid code points that JSON can carry: kept as they are (nothing encodes), scored."""
    verdicts = _score_everything(
        {
            "in_answer": "[[\ud800 24]]",
            "answer_itself": "[[\udfff]]",
            "pair_halves_reversed": "so \udc00\ud800 the answer is [[24]]",
            "in_json": '{"question1": "[[\ud83d]]", "question2": "\udc00"}',
            "bytes_invalid_utf8": b"\xed\xa0\x80[[24]]\xff",
        }
    )
    assert verdicts["pair_halves_reversed"] == (True, "exact")
    assert parsing.extract_final("[[\ud800 24]]") == "\ud800 24"
    _refused(lambda: mathexpr.parse_math("\ud800 24"), "unexpected character")


def test_nul_bytes() -> None:
    verdicts = _score_everything(
        {
            "in_answer": "[[2\x004]]",
            "around": "\x00\x00[[24]]\x00",
            "only_nul": "[[\x00]]",
            "in_json": '{"question1": "\\u0000", "question2": "[[A\x00]]"}',
        }
    )
    assert verdicts["around"] == (True, "exact")
    _refused(lambda: mathexpr.parse_math("2\x004"), "NUL byte")


def test_one_megabyte_of_text() -> None:
    """Up to the response cap every scan is linear; past it nothing is read at all."""
    cap = parsing.MAX_RESPONSE_CHARS
    verdicts = _score_everything(
        {
            "words_then_answer": "word " * 200_000 + "[[24]]",
            "answer_then_words": "[[24]] " + "word " * 200_000,
            "one_mb_answer": "[[" + "9" * 1_000_000 + "]]",
            "one_mb_openers": "[[" * 500_000,
            "one_mb_boxed": "\\boxed{" * 150_000,
            "one_mb_phrase": "The final answer is " + "a" * 1_000_000,
            "one_mb_text_commands": "[[" + "\\text{" * 160_000 + "]]",
            "over_the_cap": "[[24]]" + " " * cap,
        }
    )
    assert verdicts["words_then_answer"] == (True, "exact")
    # Extraction reads only the tail: an answer 1 MB before the end is not the final answer.
    assert verdicts["answer_then_words"][0] is False
    assert score_official("[[24]] " + "word " * 200_000, ITEMS[0]) is True
    # The response cap triggers one character past it, in both modes and in extraction.
    at_cap = " " * (cap - 6) + "[[24]]"
    assert len(at_cap) == cap and score_robust(at_cap, ITEMS[0]) == (True, "exact")
    assert verdicts["over_the_cap"] == (False, "too_long")
    assert score_official("[[24]]" + " " * cap, ITEMS[0]) is False
    assert parsing.extract_final("[[24]]" + " " * cap) is None
    parsed = KorFamily().parse(_samples()[0], "zero_shot", "[[24]]" + " " * cap)
    assert (parsed.parse_status, parsed.parsed, parsed.correct) == ("na", None, False)
    assert parsed.detail["reason"] == "too_long"


def test_deep_nesting() -> None:
    depth_over = mathexpr.MAX_DEPTH + 1
    _score_everything(
        {
            "brackets_10000": "[" * 10_000 + "1" + "]" * 10_000,
            "double_brackets_10000": "[[" + "[" * 10_000 + "24" + "]" * 10_000 + "]]",
            "parens_10000": "[[" + "(" * 10_000 + "1" + ")" * 10_000 + "]]",
            "braces_10000": "\\boxed{" + "{" * 10_000 + "1" + "}" * 10_000 + "}",
            "json_10000": '{"question1": ' + "[" * 10_000 + "]" * 10_000 + "}",
            "json_objects_3000": '{"a":' * 3_000 + "1" + "}" * 3_000,
            "json_lists_1500": '{"question1": ' + "[" * 1_500 + "]" * 1_500 + "}",
            "parens_at_depth_cap": "[[" + "(" * depth_over + "24" + ")" * depth_over + "]]",
        }
    )
    # Length is refused before depth is looked at; within the length cap, the depth cap triggers.
    _refused(lambda: mathexpr.parse_math("(" * 10_000 + "1" + ")" * 10_000), "expression too long")
    _refused(lambda: mathexpr.parse_math("(" * depth_over + "1" + ")" * depth_over), "nesting too deep")
    assert mathexpr.parse_math("(" * 10 + "1" + ")" * 10) == 1
    assert mathexpr.eval_python_arithmetic("(" * depth_over + "1" + ")" * depth_over) is None
    # The mixed answer reader survives JSON deeper than Python's recursion limit.
    assert mixed.read_answers('{"a":' * 3_000 + "1" + "}" * 3_000) is None


def test_latex_bombs() -> None:
    frac_1000 = "\\frac{" * 1000 + "1" + "}{2}" * 1000
    frac_41 = "\\frac{" * 41 + "1" + "}{2}" * 41
    left_chain = "\\left(" * 5000 + "x" + "\\right)" * 5000
    left_short = "\\left(" * 45 + "x" + "\\right)" * 45
    _score_everything(
        {
            "frac_1000_deep": f"[[{frac_1000}]]",
            "frac_41_deep": f"[[{frac_41}]]",
            "left_chain": f"[[{left_chain}]]",
            "left_short": f"[[{left_short}]]",
            "sqrt_chain": "[[" + "\\sqrt{" * 100 + "2" + "}" * 100 + "]]",
            "boxed_frac": "$\\boxed{" + frac_1000 + "}$",
            "text_bomb": "[[" + "\\text{" * 5_000 + "x" + "}" * 5_000 + "]]",
            "huge_expand": "[[" + "*".join(["(x+y+z+1)^{12}"] * 40) + "]]",
        }
    )
    _refused(lambda: mathexpr.parse_math(frac_1000), "expression too long")
    _refused(lambda: mathexpr.parse_math(frac_41), "nesting too deep")
    _refused(lambda: mathexpr.parse_math(left_chain), "expression too long")
    _refused(lambda: mathexpr.parse_math(left_short), "nesting too deep")
    _refused(lambda: mathexpr.math_tokens(left_chain), "expression too long")
    x = mathexpr.sympy.Symbol("x")
    bound = mathexpr._expansion_bound(mathexpr.parse_math("*".join(["(x+y+z+1)^{12}"] * 40)))
    assert bound > mathexpr.MAX_EXPAND_TERMS  # so equivalence never calls expand on it
    assert mathexpr.parse_math("\\left(\\frac{x}{2}\\right)") == x / 2


def test_import_and_other_code_is_never_run(tmp_path: Path) -> None:
    """``eval``/``exec``/``compile``/``os.system``/``subprocess.Popen`` are tripwires while the
    payloads are scored; none is reached and no file appears."""
    sentinel = tmp_path / "pwned"
    command = f"touch {sentinel}"
    payloads = {
        "import_os": f"[[__import__('os').system('{command}')]]",
        "import_os_equation": f"[[__import__('os').system('{command}') = 10]]",
        "open_write": f"[[open('{sentinel}', 'w').write('x')]]",
        "boxed_exec": f"$\\boxed{{exec(\"import os; os.system('{command}')\")}}$",
        "subclasses": "[[().__class__.__bases__[0].__subclasses__()]]",
        "lambda": "[[(lambda: 24)()]]",
        "in_json": json.dumps({"question1": f"__import__('os').system('{command}')"}),
    }
    _score_everything({"warm_up": "[[\\frac{1}{2} + \\sqrt{2} x^2 \\sin(x)]]"})  # lazy imports first
    calls: list[str] = []

    def tripwire(*args: object, **kwargs: object) -> None:
        calls.append(repr(args)[:200])
        raise RuntimeError("model text reached an execution primitive")

    targets = [(builtins, "eval"), (builtins, "exec"), (builtins, "compile"), (os, "system")]
    targets.append((subprocess, "Popen"))
    saved = [(owner, name, getattr(owner, name)) for owner, name in targets]
    for owner, name in targets:
        setattr(owner, name, tripwire)
    try:
        verdicts = _score_everything(payloads)
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
    assert calls == [] and not sentinel.exists()
    assert not any(verdict for verdict, _ in verdicts.values())
    assert score_robust("[[__import__('math').factorial(4)]]", ITEMS[0])[0] is False
    assert mathexpr.eval_python_arithmetic("__import__('os')") is None


def test_power_towers() -> None:
    verdicts = _score_everything(
        {
            "nine_tower": "[[9^9^9^9^9]]",
            "python_tower": "[[2**2**2**100]]",
            "latex_tower": "[[10^{10^{10^{10}}}]]",
            "tower_equation": "[[9**9**9**9 = 25]]",
            "symbol_tower": "[[" + "x^{" * 300 + "x" + "}" * 300 + "]]",
            "big_base": "[[" + "9" * 59 + "^{999}]]",
        }
    )
    assert not any(verdict for verdict, _ in verdicts.values())
    _refused(lambda: mathexpr.parse_math("9^9^9^9^9"), "exponent too large")
    _refused(lambda: mathexpr.parse_math("2**2**2**100"), "exponent too large")
    _refused(lambda: mathexpr.parse_math("9" * 59 + "^{999}"), "power too large")
    assert mathexpr.parse_math("2^{10}") == 1024
    assert mathexpr.eval_python_arithmetic("2**2**2**100") is None
    assert mathexpr.eval_python_arithmetic("9**9**9**9") is None
    assert mathexpr.eval_python_arithmetic("2**2**3") == 256


# Parses and scores million-cell answers: ~30 s idle, 82 s at load 5; 600 s keeps it within a fifth.
@pytest.mark.timeout(600)
def test_million_cell_matrices() -> None:
    row = "[" + ",".join(["1"] * 1000) + "]"
    matrix = "[[" + ",".join([row] * 1000) + "]]"
    assert len(matrix) <= parsing.MAX_RESPONSE_CHARS  # read, not refused by the cap
    tuples = "[[(" + ",".join(["(" + ",".join(["7"] * 1000) + ")"] * 1000) + ")]]"
    verdicts = _score_everything(
        {
            "matrix_lists": matrix,
            "matrix_tuples": tuples,
            "matrix_spaces": "[[" + " ".join(["1"] * 1_000_000) + "]]",
            "matrix_rows_last": "Result:\n" + "\n".join([" ".join(["1"] * 1000)] * 1000),
            "matrix_over_cap": "[[" + ",".join(["1"] * 1_100_000) + "]]",
        }
    )
    assert not any(verdict for verdict, _ in verdicts.values())
    assert verdicts["matrix_over_cap"] == (False, "too_long")
    # The matrix rules count numbers before converting any: a million cells against a 4-cell gold
    # is refused by the count.
    matrix_item = ITEMS[7]
    assert score_robust("[[" + ",".join(["1"] * 50_000) + "]]", matrix_item) == (False, "mismatch")
    assert score_robust("[[((1, 2), (9, 64))]]", matrix_item) == (True, "whitespace")
    assert score_robust("[[1 2; 9 64]]", matrix_item) == (True, "numbers_equal")

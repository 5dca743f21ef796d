"""KOR-Bench's official decision: ``is_correct`` of the official evaluation code, quirks included.

Two judgements share it, differing only in step 6 (the symbolic branch for 45 Operation items):

* :func:`score_official`: step 6 always takes the string-equality fallback, as in the released
  evaluation files (SymPy's LaTeX parser never parsed there);
* :func:`score_paper`: step 6 with SymPy's LaTeX parser working (:mod:`.symbolic`), as the paper's
  Table 2 was scored; it needs the parser (:func:`~.latex.require_parser`, a loud error otherwise).

:func:`score_official` reproduces it branch by branch as
``/work/shared/reference/korbench/SCORER.md`` describes it, quirks included (first ``[[…]]`` wins,
raw gold strings with brackets, a gold with inner spaces that can never match, puzzle rule 4's
substring test).  Two deliberate differences, neither of which changes a published verdict:

* puzzle rules 9/10 ``eval`` model text; here :func:`~.mathexpr.eval_python_arithmetic` computes
  the same Python int/float arithmetic without executing anything (names, calls, anything not
  arithmetic → wrong, where ``eval`` would raise or run code);
* in ``official``, step 6 always takes the official code's *string-equality fallback*.
  SCORER.md measured that the released files were produced as if SymPy's LaTeX parser never
  parsed (it needs ``antlr4-python3-runtime`` 4.11; with any other version it raises and every
  item falls back to ``r == g``): that reproduces all of their verdicts.  The paper's Table 2 was
  scored with the parser working: that is ``paper``.
"""

from __future__ import annotations

import re

from relreason_dagster.benchmarks.kor.data import KorItem
from relreason_dagster.benchmarks.kor.parsing import (
    NULL,
    as_text,
    extract,
    inner,
    too_long,
)
from relreason_dagster.benchmarks.kor.scoring.rules import idx_int, int_key, puzzle_official
from relreason_dagster.benchmarks.kor.scoring.symbolic import compare_math

# Step 6 of SCORER.md: the Operation items the official code compares "symbolically".
SYMBOLIC_IDX = frozenset(
    {18, 73, 74, 77, 94, 115, 116, 117, 121, 122, 123, 125, 131, 132, 134, 135, 136, 141, 143, 149, 145}
    | {146, 147, 151, 152, 153, 154, 155, 156, 160, 161, 162, 164, 165, 166, 170, 206, 209, 211, 212}
    | {213, 214, 215, 217, 218}
)

_INEQ_RE = re.compile(r"(≥|≤)\s*([-]?\d+\.?\d*)")
_INT_RE = re.compile(r"\d+")
_NON_WORD_RE = re.compile(r"\W")


def _official(response: str, gold: str, category: str, rule: str, idx: str, symbolic: bool) -> bool:
    """SCORER.md's decision: the first branch that applies (step 6 working when ``symbolic``)."""
    if category == "logic":
        answer = extract(response, "logic")
        if rule == "5":
            return sorted(answer.split(";")) == sorted(gold.split(";"))
        return answer == extract(gold, "logic")
    if category == "operation":
        number = idx_int(idx)
        if number in (178, 179):
            found = ["".join(m) for m in _INEQ_RE.findall(extract(response, "clean"))]
            wanted = ["".join(m) for m in _INEQ_RE.findall(gold)]
            return sorted(found) == sorted(wanted)
        if rule == "18":
            found = _NON_WORD_RE.sub("", extract(response, "clean"))
            wanted = _NON_WORD_RE.sub("", inner(gold))
            return sorted(found) == sorted(wanted)
        if rule in ("23", "24", "25"):
            found_ints = [int_key(d) for d in _INT_RE.findall(extract(response, "clean"))]
            return found_ints == [int_key(d) for d in _INT_RE.findall(gold)]
        if number in SYMBOLIC_IDX:
            if symbolic:
                return compare_math(response, gold)
            # String-equality fallback of the symbolic comparison; see the module docstring.
            answer = extract(response, "math")
            return answer != NULL and answer == extract(gold, "math")
        if "or" in gold:
            answer = extract(response, "clean").replace("\\text{or}", "or")
            if answer == NULL:
                return False
            found = sorted(part.strip() for part in answer.strip("[]").split("or"))
            wanted = sorted(part.strip() for part in extract(gold, "clean").strip("[]").split("or"))
            return found == wanted
    if category == "puzzle":
        return puzzle_official(rule, inner(response), inner(gold))
    return extract(response, "clean") == gold


def score_official(response: object, item: KorItem, gold: str | None = None, symbolic: bool = False) -> bool:
    """The official ``is_correct`` of ``response`` for ``item``.  Never raises.

    ``gold`` overrides ``item.answer``: pass a file's recorded answer to reproduce a verdict made
    against an older gold, or ``item.real_life_answer`` for counterfactual's ``is_real_life``.
    ``symbolic`` runs step 6 with SymPy's parser (:func:`score_paper`; check the parser first).
    """
    try:
        wanted = item.answer if gold is None else gold
        text = as_text(response)
        if too_long(text):
            return False
        return _official(text, as_text(wanted), item.category, item.rule_id, item.idx, symbolic)
    except Exception:  # noqa: BLE001 - a scorer reports, it does not crash a run over one record
        return False


def score_paper(response: object, item: KorItem, gold: str | None = None) -> bool:
    """The paper's judgement (Table 2): the official one with step 6 working.  Never raises.

    It assumes a working parser: callers run :func:`~.latex.require_parser` once first, so a
    broken environment is one loud error, not a silent return to the ``official`` verdicts.
    """
    return score_official(response, item, gold, symbolic=True)

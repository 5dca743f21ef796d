"""Answer extraction: the official scorer's ``extract``/``inner``, and a robust ``extract_final``.

Official (``/work/shared/reference/korbench/SCORER.md``): the *first* ``[[...]]``, else the first
``$\\boxed{...}$``, else the first ``[...]``; cleaned by level and re-wrapped as ``[[...]]``.  The
official code does this with non-greedy regexes; here the same matches are found with ``str.find``
(the first opening delimiter, then the first closing delimiter after it), which is provably the
same match (a lazy ``.*?`` under DOTALL stops at the first closing delimiter, and the surrounding
``\\s*`` only trims what ``.strip()`` trims anyway) but linear in the input: the regex form is
quadratic on a megabyte of ``[[`` with no ``]]``, and a scorer must return on any text.

Robust (:func:`extract_final`): what a model *meant* as its final answer.  The first ``[[...]]`` is
often a restated example from the prompt or a step in the working, while the answer the prompt asks
for is written last, so the rule is **the last bracketed span wins**, after undoing LaTeX escapes.
Full rule in :func:`extract_final`.
"""

from __future__ import annotations

import re

NULL = "NULL"
LEVELS = ("basic", "clean", "logic", "math")
MAX_RESPONSE_CHARS = 2**21
"""The longest response the scorers read at all (2,097,152 characters; the reference responses
are under 14,000).  A longer one is not searched: both scorers call it wrong (robust reason
``too_long``) and :func:`extract_final` finds no answer.  With every scan below linear (or
``n log n`` for the official scorer's sorts) in its input, this cap is what bounds the work of one
verdict, whatever a hostile server sends; 2 MiB still holds a written-out 10^6-cell matrix."""

_LATEX_DELIM_RE = re.compile(r"\\[()\[\]]")
_LEFT_RIGHT_RE = re.compile(r"\\(left|right|displaystyle)")


def as_text(value: object) -> str:
    """Any response value as a ``str`` the scorers can search; ``None``/non-text become ``""``.

    Bytes are decoded with replacement and lone surrogates (invalid unicode that JSON can carry)
    are kept as they are: ``str`` methods handle them, and nothing here encodes.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace")
    return ""


def too_long(text: str) -> bool:
    """True when ``text`` is beyond :data:`MAX_RESPONSE_CHARS` and must not be scanned."""
    return len(text) > MAX_RESPONSE_CHARS


def _first_span(text: str, open_: str, close: str) -> str | None:
    """The text between the first ``open_`` and the first ``close`` after it, or None."""
    start = text.find(open_)
    if start < 0:
        return None
    end = text.find(close, start + len(open_))
    if end < 0:
        return None
    return text[start + len(open_) : end]


def _remove_text_commands(text: str) -> str:
    r"""``re.sub(r'\\text\{.*?\}', '', text)`` in linear time (``.`` does not cross a newline)."""
    out_lines = []
    for line in text.split("\n"):
        parts: list[str] = []
        pos = 0
        while True:
            start = line.find("\\text{", pos)
            if start < 0:
                break
            end = line.find("}", start + 6)
            if end < 0:
                break
            parts.append(line[pos:start])
            pos = end + 1
        parts.append(line[pos:])
        out_lines.append("".join(parts))
    return "\n".join(out_lines)


def clean_latex(expr: str) -> str:
    r"""The official ``math`` post-processing: keep what follows the last ``=``, drop ``\(``,
    ``\)``, ``\[``, ``\]``, ``\text{...}``, ``\left``, ``\right``, ``\displaystyle``; ``\\`` → ``\``."""
    if "=" in expr:
        expr = expr.rsplit("=", 1)[1]
    expr = _LATEX_DELIM_RE.sub("", expr)
    expr = _remove_text_commands(expr)
    expr = _LEFT_RIGHT_RE.sub("", expr)
    return expr.replace("\\\\", "\\")


def official_match(text: object) -> str | None:
    """The official scorer's chosen span (before cleaning): first ``[[…]]``, ``$\\boxed{…}$``, ``[…]``."""
    text = as_text(text)
    for open_, close in (("[[", "]]"), ("$\\boxed{", "}$"), ("[", "]")):
        span = _first_span(text, open_, close)
        if span is not None:
            return span.strip()
    return None


def extract(text: object, level: str = "basic") -> str:
    """The official ``extract_text_from_brackets(text, level)``, exactly (see SCORER.md).

    ``basic``/``clean``/``logic`` return ``[[...]]``; ``math`` returns the bare cleaned LaTeX; no
    match returns ``"NULL"``.  An unknown level behaves like ``basic``, as the official code does.
    """
    match = official_match(text)
    if match is None:
        return NULL
    if level == "clean":
        for char in ('"', "\n", " ", "[", "]"):
            match = match.replace(char, "")
    elif level == "logic":
        for char in ('"', "\n", " ", "."):
            match = match.replace(char, "")
    elif level == "math":
        for char in ('"', "\n", "[", "]", "$"):
            match = match.replace(char, "")
        return clean_latex(match)
    return f"[[{match}]]"


def inner(text: object) -> str:
    """The official ``extract_inner_text_from_brackets``: the first ``[[...]]``'s content, untrimmed."""
    if not isinstance(text, str):
        return NULL
    span = _first_span(text, "[[", "]]")
    return NULL if span is None else span


# --------------------------------------------------------------------------- robust extraction

MAX_EXTRACT_CHARS = 200_000
"""Only the tail of a longer response is searched: the final answer is at the end, and a bound on
the text keeps every scan below linear work on a bounded input."""

_ESCAPED_RE = re.compile(r"\\{1,2}\[\s{0,3}\\{1,2}\[|\\{1,2}\]\s{0,3}\\{1,2}\]")
_SPACED_RE = re.compile(r"(?<![\\\[])\[[ \t\n]{1,3}\[(?!\[)|(?<![\\\]])\][ \t\n]{1,3}\](?!\])")
_BOXED_RE = re.compile(r"\\(?:boxed|fbox)\s*\{")
_SINGLE_RE = re.compile(r"(?<!\\)\[([^\[\]\n]{1,300})\](?!\()")
_PHRASE_RE = re.compile(
    r"(?:final answer|answer|plaintext|ciphertext|result)\s{0,3}(?:is|:)\s{0,3}:?\s{0,3}([^\n]{1,200})",
    re.IGNORECASE,
)
_LHS_RE = re.compile(r"^[\sA-Za-z0-9_※#△○◇□■◆▲▼★☆@&§%⊕⊗⊙⊘⊖⊛⊞⊠⊡▽▷◁♠♣♥♦∗·×÷+\-*/^(){}\\,.'’]*$")
_PLACEHOLDERS = {
    "",
    "your answer",
    "answer",
    "your final answer",
    "encrypted answer",
    "decrypted answer",
    "word1 word2",
    "number",
    "number%",
    "{the elements in the collection}",
}


def _balanced_brace(text: str, start: int, limit: int = 20_000) -> int | None:
    """Index of the ``}`` closing the ``{`` just before ``start``, or None (bounded scan)."""
    depth = 1
    stop = min(len(text), start + limit)
    index = start
    while index < stop:
        char = text[index]
        if char == "\\" and index + 1 < stop:
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return None


def normalize_escapes(text: str) -> str:
    """Undo escaping of the answer brackets: ``\\[\\[x\\]\\]``, ``\\\\[\\\\[x\\\\]\\\\]`` and the
    spaced ``[ [x] ]`` all become ``[[x]]``.  A LaTeX display ``\\[`` before ``[[`` is left alone."""
    text = _ESCAPED_RE.sub(lambda m: "[[" if "[" in m.group() else "]]", text)
    return _SPACED_RE.sub(lambda m: "[[" if "[" in m.group() else "]]", text)


def _double_spans(text: str) -> list[tuple[int, str]]:
    """Every ``[[...]]`` span as (position, content), content running to the first ``]]``.

    Runs of brackets are balanced: ``[[[x]]]`` keeps ``[x]`` (stripped later as a wrapper) and
    ``\\[[[0]]\\]`` drops the unmatched leading ``[`` to give ``0``; logic's ``[[a];[b]]`` keeps its
    inner brackets because the first ``]]`` is the closing one.
    """
    spans: list[tuple[int, str]] = []
    pos = 0
    while True:
        start = text.find("[[", pos)
        if start < 0:
            return spans
        end = text.find("]]", start + 2)
        if end < 0:
            return spans
        unclosed = text.count("[", start + 2, end) - text.count("]", start + 2, end)
        extra = 0
        while extra < unclosed and text.startswith("]", end + 2 + extra):
            extra += 1
        content = text[start + 2 : end + extra]
        if unclosed > extra:
            lead = len(content) - len(content.lstrip("["))
            content = content[min(unclosed - extra, lead) :]
        spans.append((start, content))
        pos = end + extra + 2


def _boxed_spans(text: str, last: int = 20) -> list[tuple[int, str]]:
    """The last ``last`` ``\\boxed{...}`` spans (balanced braces); older ones cannot be the answer."""
    spans: list[tuple[int, str]] = []
    for match in list(_BOXED_RE.finditer(text))[-last:]:
        end = _balanced_brace(text, match.end())
        if end is not None:
            spans.append((match.start(), text[match.end() : end]))
    return spans


def is_enclosed_in_brackets(answer: str) -> bool:
    """True when ``answer`` is ``[...]`` and its first ``[`` is closed by the final ``]``."""
    depth = 0
    for index, char in enumerate(answer):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return index == len(answer) - 1
    return False


def _strip_wrappers(answer: str) -> str:
    """Remove what surrounds an answer but is not part of it: ``$``, ``\\( \\)``, ``\\[ \\]``,
    ``\\left[ \\right]``, bold, backquotes, quotes, a trailing period, an extra ``[...]``, a nested
    ``[[...]]``/``\\boxed{}``, ``\\text{}`` around the whole answer.  At most 8 rounds."""
    previous = None
    for _ in range(8):
        if previous == answer:
            break
        previous = answer
        answer = answer.strip().replace("\\left[", "[").replace("\\right]", "]")
        for left, right in (
            ("$$", "$$"),
            ("$", "$"),
            ("\\(", "\\)"),
            ("\\[", "\\]"),
            ("**", "**"),
            ("`", "`"),
            ('"', '"'),
        ):
            if len(answer) >= len(left) + len(right) and answer.startswith(left) and answer.endswith(right):
                answer = answer[len(left) : len(answer) - len(right)]
        if answer.startswith("[") and answer.endswith("]") and is_enclosed_in_brackets(answer):
            answer = answer[1:-1]
        for command in ("\\boxed{", "\\text{", "\\mathrm{", "\\textbf{"):
            if answer.startswith(command) and answer.endswith("}"):
                if _balanced_brace(answer, len(command)) == len(answer) - 1:
                    answer = answer[len(command) : -1]
        if answer.endswith(".") and not answer.endswith(".."):
            answer = answer[:-1]
    return answer.strip()


def _is_placeholder(content: str) -> bool:
    return content.strip().strip(".…").strip().lower() in _PLACEHOLDERS


def _candidates(text: object) -> list[tuple[int, str, str]]:
    """Every candidate answer as (position, tag, content), in reading order.

    Tags: ``double`` (``[[…]]`` as written), ``escaped`` (``[[…]]`` only after undoing escapes),
    ``boxed`` (``\\boxed{…}``).  Placeholders echoed from the prompt are dropped.
    """
    raw = as_text(text)[-MAX_EXTRACT_CHARS:]
    unescaped = normalize_escapes(raw)
    plain = {content for _, content in _double_spans(raw)}
    tagged: list[tuple[int, str, str]] = []
    for position, content in _double_spans(unescaped):
        tagged.append((position, "double" if content in plain else "escaped", content))
    for position, content in _boxed_spans(unescaped):
        tagged.append((position, "boxed", content))
    tagged = [entry for entry in tagged if not _is_placeholder(entry[2])]
    tagged.sort(key=lambda entry: entry[0])
    return tagged


def _fallback(text: object) -> tuple[str, str] | None:
    """Without ``[[…]]``/``\\boxed{}``: the later of the last single ``[…]`` (not a LaTeX ``\\[``,
    not a markdown link) and the last "answer is …" phrase, as (tag, content)."""
    tail = normalize_escapes(as_text(text)[-20_000:])
    best: tuple[int, str, str] | None = None
    for match in _SINGLE_RE.finditer(tail):
        if match.group(1).strip() and not _is_placeholder(match.group(1)):
            best = (match.start(), "single", match.group(1))
    for match in _PHRASE_RE.finditer(tail):
        if best is None or match.start() > best[0]:
            best = (match.start(), "phrase", match.group(1))
    return None if best is None else (best[1], best[2])


def final_answer_spans(text: object) -> tuple[str, str, int] | None:
    """``(tag, answer, n_spans)``: :func:`final_answer` plus how many ``[[…]]``/``\\boxed{}`` spans
    the text had (several → the last one was chosen), found in the same pass."""
    try:
        if too_long(as_text(text)):
            return None
        candidates = _candidates(text)
        if candidates:
            _, tag, content = candidates[-1]
        else:
            found = _fallback(text)
            if found is None:
                return None
            tag, content = found
        answer = _strip_wrappers(content)
        if not answer or _is_placeholder(answer):
            return None
        return tag, answer, len(candidates)
    except Exception:  # noqa: BLE001 - extraction must never take a scorer down
        return None


def final_answer(text: object) -> tuple[str, str] | None:
    """``(tag, answer)`` for :func:`extract_final`, the tag naming how the answer was written:
    ``double``, ``escaped``, ``boxed``, ``single`` or ``phrase``.  None when there is no answer."""
    found = final_answer_spans(text)
    return None if found is None else (found[0], found[1])


def double_span_count(text: object) -> int:
    """How many ``[[…]]`` spans the text has as written (placeholders included), bracket runs
    balanced as in :func:`extract_final`; ``[[[[x]]]]`` is one span."""
    try:
        return len(_double_spans(as_text(text)[-MAX_EXTRACT_CHARS:]))
    except Exception:  # noqa: BLE001
        return 0


def extract_final(text: object) -> str | None:
    """The model's final answer, or None when it wrote none.  Never raises.

    Rule, in order:

    1. escapes of the answer brackets are undone (``\\[\\[24\\]\\]`` and ``[ [24] ]`` → ``[[24]]``);
    2. the **last** ``[[...]]`` or ``\\boxed{...}`` (whichever comes later in the text) is the answer:
       prompts ask for the final answer in ``[[ ]]`` and models write it last, while earlier spans
       are echoes of the prompt's ``[[your answer]]``/``[[A/B]]`` or intermediate steps.  Placeholder
       spans (``[[your answer]]``, ``[[ ]]``, ``[[number%]]``) are skipped;
    3. with neither, the later of the last single ``[...]`` and the last "answer is X" phrase;
    4. wrappers are stripped (``$``, ``\\( \\)``, ``**bold**``, quotes, a trailing period, an outer
       ``[...]``, a nested ``\\boxed{}``/``\\text{}``).

    The ``x = 24`` reduction is not done here (it depends on the category: logic answers can be
    equations); :func:`drop_restated_lhs` does it where a scorer wants it.
    """
    found = final_answer(text)
    return None if found is None else found[1]


def drop_restated_lhs(answer: str) -> str:
    """``x = 24`` → ``24`` when the left side only restates the question (a variable or an
    operator expression); a right side that is empty keeps the whole answer.

    Only the last ``=`` splits, so ``a ※ b = 3 = 3`` keeps ``3``.  Relations (``<=``, ``==``) and
    lists (a ``,``/``;`` on the left, as in ``A=1,B=2``) are kept whole, and so is a left side of
    prose (more than 6 words): a restated left side is short.  A left side without a letter or digit
    (``}=-``) restates nothing, so the answer stays whole.
    """
    if "=" not in answer or any(mark in answer for mark in ("==", "<=", ">=", "=>", "≠", "!=")):
        return answer
    left, right = answer.rsplit("=", 1)
    right = right.strip()
    if not right or "," in left or ";" in left:
        return answer
    left = left.strip()
    # A restated question names an operand; ``}=-`` or ``#@ = 0`` restate nothing.
    if not any(char.isalnum() for char in left):
        return answer
    if len(left) <= 60 and _LHS_RE.match(left) and len(left.split()) <= 6:
        return right
    return answer

"""How big each field of a released FLenQA row can be: the study's own ranges, and the bounds we state.

Why: ``relreason flenqa import`` stores a file a user downloaded, and every later run asks a model
each row's text.  Without bounds a 150 MB ``mixin`` on a 250-token row, a ``ctx_size`` of 10^30 or an
id that is a JSON object would be stored and asked (issue 53).  Each bound below says where it comes
from: the paper (``../shared/seeds/same-task-more-tokens-flenqa.txt``, *Same Task, More Tokens*, Levy
et al. 2024) where it gives one, a stated margin where it does not.  The released rows themselves
(``FLenQA_hf.jsonl``) are not in the reference copy (``../shared/reference`` has no FLenQA folder), so
no bound here is a measured range of the release; ``tests/unit/flenqa/test_flenqa_import_checks.py``
checks every released row against them whenever ``$RELREASON_REFERENCE_DIR/flenqa`` holds the file.

Plain constants and arithmetic: importing this module imports nothing else of relreason.
"""

from __future__ import annotations

# --- The study's (the paper) -------------------------------------------------------------------------

# §3.3: "We expand each base instance to input lengths of roughly 250, 500, 1000, 2000, and 3000
# tokens"; Appendix B (Figures 10-12) lists exactly these five targets for every task and padding.  The
# release's ``ctx_size`` is "the target size of the mixin" (the study's analysis notebook,
# alonj/Same-Task-More-Tokens), so a row's ``ctx_size`` is one of these.
STUDY_LENGTHS: tuple[int, ...] = (250, 500, 1000, 2000, 3000)

# Appendix B, Figures 10-12: the mean tokens of each task x padding x target cell lie between 238.06
# (MonoRel at 250, 0.952 of the target) and 305.36 (PIR at 250, 1.221 of the target); every other cell
# is within 2% of its target.  (``published.csv`` holds the 30 means; a test checks this range covers
# them.)
STUDY_MEAN_TO_TARGET: tuple[float, float] = (0.95, 1.23)

# Appendix B: "two paragraph-length texts (key paragraphs)" per sample, "an average paragraph length
# of 125 tokens"; §3.2 Ruletaker: "each sample is composed of only two facts and one logical rule".
STUDY_KEY_PARAGRAPH_TOKENS = 125

# --- Stated (the paper gives no per-row figure) --------------------------------------------------------

# The paper prints cell means, not each row's length: a row may lie this many times further from its
# target than its cell's mean does (both ways).
ROW_MARGIN = 2.0

# The study counts tokens in a tokenizer it does not name (Appendix B), and the import counts no
# tokens (it needs no tokenizer): texts are bounded in characters.  English prose runs about four
# characters per token in the BPE tokenizers of the models it evaluated; names and numbers fewer, long
# words more.  These bounds are twice as wide both ways.
CHARS_PER_TOKEN: tuple[float, float] = (2.0, 8.0)

# Key sentences, rules and statements: the study has two key paragraphs and one rule per instance;
# the release lists them in ``facts`` (or ``rule`` + ``statement``).  Eight texts per field leaves
# room for a splitting we have not seen and still bounds the row.
MAX_KEY_TEXTS = 8

# The question is one sentence about two people or one room (§3.2); 1,000 characters is ~250 tokens.
MAX_QUESTION_CHARS = 1_000

# Ids: the notebook's output shows integers (``sample_id`` 0-99 per task, ``global_sample_id`` such as
# 9342).  A text id is allowed (a re-export may quote them) up to this length; an integer id is
# non-negative and below MAX_INT_ID.
MAX_ID_CHARS = 100
MAX_INT_ID = 10**9

# Short names (``dataset``, ``padding_type``, ``dispersion``, a text ``label``): longer than any name
# the study uses by far.
MAX_NAME_CHARS = 100


def mixin_chars(ctx_size: int) -> tuple[int, int]:
    """The fewest and most characters a released ``mixin`` of target ``ctx_size`` tokens may hold.

    Tokens: the study's cell means (``STUDY_MEAN_TO_TARGET``) widened by ``ROW_MARGIN``; characters:
    ``CHARS_PER_TOKEN``.  For 250 tokens: 237-4,920 characters; for 3,000: 2,850-59,040.
    """
    low_tokens = ctx_size * STUDY_MEAN_TO_TARGET[0] / ROW_MARGIN
    high_tokens = ctx_size * STUDY_MEAN_TO_TARGET[1] * ROW_MARGIN
    return int(low_tokens * CHARS_PER_TOKEN[0]), int(high_tokens * CHARS_PER_TOKEN[1])


def max_key_text_chars() -> int:
    """The most characters one key text (a fact, the rule, a statement) may hold: a key paragraph of
    the study's average length, widened by ``ROW_MARGIN`` and ``CHARS_PER_TOKEN``."""
    return int(STUDY_KEY_PARAGRAPH_TOKENS * ROW_MARGIN * CHARS_PER_TOKEN[1])


def max_row_bytes() -> int:
    """The longest line a row within every bound can take in a JSONL file.

    Every text at its bound, each character at its longest JSON spelling (12 bytes: an escaped UTF-16
    surrogate pair, ``\\ud83d\\ude00``), plus 4 KiB for the keys, numbers and punctuation.  A longer
    line is reported by its size and never parsed, so a 150 MB line costs no 150 MB of memory.
    """
    chars = (
        mixin_chars(max(STUDY_LENGTHS))[1]
        + MAX_QUESTION_CHARS
        + 3 * MAX_KEY_TEXTS * max_key_text_chars()
        + 2 * MAX_ID_CHARS
        + 4 * MAX_NAME_CHARS
    )
    return 12 * chars + 4096

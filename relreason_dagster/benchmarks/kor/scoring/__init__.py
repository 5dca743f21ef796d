"""KOR-Bench scoring: the official decision, the paper's, a robust one, and rescoring of published files.

* :mod:`.official`: ``score_official``, the official evaluation code's ``is_correct``, quirks
  included, as in the released evaluation files (its symbolic step falling back to string
  equality), and ``score_paper``, the same with the symbolic step working, as Table 2 was scored;
* :mod:`.latex`, :mod:`.symbolic`: SymPy's LaTeX parser on this environment's antlr4 runtime, and
  the official symbolic comparison built on it (``require_parser`` fails loudly when it cannot work);
* :mod:`.table2`: the paper's Table 2 cells from the family's ``published.csv``;
* :mod:`.robust`: ``score_robust``, what the model meant to answer, compared by answer format,
  with a reason code per verdict (:data:`REASON_CODES`, :data:`EXTRACTION_CODES`);
* :mod:`.rescore`: ``rescore_file``, any mode over a published evaluation file, next to the
  file's own verdicts;
* :mod:`.rules`: the official per-rule comparisons that both modes use.

Callers import from this package; the names below are its public API.
"""

from relreason_dagster.benchmarks.kor.scoring.latex import require_parser
from relreason_dagster.benchmarks.kor.scoring.official import SYMBOLIC_IDX, score_official, score_paper
from relreason_dagster.benchmarks.kor.scoring.rescore import (
    MODES,
    Disagreement,
    RescoreResult,
    load_records,
    parse_file_name,
    rescore_file,
)
from relreason_dagster.benchmarks.kor.scoring.robust import (
    EXTRACTION_CODES,
    MAX_PARTS,
    REASON_CODES,
    score_robust,
)

__all__ = [
    "EXTRACTION_CODES",
    "MAX_PARTS",
    "MODES",
    "REASON_CODES",
    "SYMBOLIC_IDX",
    "Disagreement",
    "RescoreResult",
    "load_records",
    "parse_file_name",
    "require_parser",
    "rescore_file",
    "score_official",
    "score_paper",
    "score_robust",
]

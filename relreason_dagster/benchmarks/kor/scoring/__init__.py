"""KOR-Bench scoring: the official decision, a robust one, and rescoring of published evaluation files.

* :mod:`.official`: ``score_official``, the official evaluation code's ``is_correct``, quirks
  included, to reproduce the published numbers;
* :mod:`.robust`: ``score_robust``, what the model meant to answer, compared by answer format,
  with a reason code per verdict (:data:`REASON_CODES`, :data:`EXTRACTION_CODES`);
* :mod:`.rescore`: ``rescore_file``, either mode over a published evaluation file, next to the
  file's own verdicts;
* :mod:`.rules`: the official per-rule comparisons that both modes use.

Callers import from this package; the names below are its public API.
"""

from relreason_dagster.benchmarks.kor.scoring.official import SYMBOLIC_IDX, score_official
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
    "rescore_file",
    "score_official",
    "score_robust",
]

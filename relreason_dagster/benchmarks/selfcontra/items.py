"""One Wino-style coreference item, whatever dataset it came from.

WinoBias, WinoGender, WinoGrande and the built-in generator all reduce to the
same question: a short sentence, a pronoun (or a ``_`` blank) and two
candidate entities, one of which is right.  A single frozen record lets the
prompts, the parser and the scorer ignore where an item came from; the JSON
round trip (:meth:`WinoItem.row_input` / :meth:`WinoItem.from_input`) is what
the pipeline stores in ``raw.samples.input`` so a run can be re-scored
without re-reading the source files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DATASETS = ("winobias", "winogender", "winogrande", "generated")
STYLES = ("who", "mask")
MASK = "_"


@dataclass(frozen=True)
class WinoItem:
    """A two-candidate coreference question.

    ``sentence`` is plain text (WinoBias brackets removed); for ``style ==
    "mask"`` it contains ``_`` where the answer goes.  ``candidates`` are in
    order of first mention (WinoBias, WinoGender, generated) or in the
    source's option order (WinoGrande's option1/option2, which the prompt
    lists in that order).  ``evidence`` is the clause that decides the
    answer: always set by the generator, set by the loaders where it can be
    cut out mechanically (the clause that holds the pronoun or blank).
    """

    dataset: str
    item_id: str
    sentence: str
    pronoun: str | None
    candidates: tuple[str, str]
    gold: int
    style: str
    evidence: str | None = None
    variant: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Fail at construction, not three steps later in a prompt: a bad item is a loader bug.
        if self.style not in STYLES:
            raise ValueError(f"style must be one of {STYLES}, got {self.style!r}")
        if len(self.candidates) != 2 or self.candidates[0] == self.candidates[1]:
            raise ValueError(f"need two distinct candidates, got {self.candidates!r}")
        if self.gold not in (0, 1):
            raise ValueError(f"gold must be 0 or 1, got {self.gold!r}")
        if self.style == "who" and not self.pronoun:
            raise ValueError("who-style items need a pronoun")
        # Frozen dataclass: normalise a list coming from JSON into the declared tuple.
        object.__setattr__(self, "candidates", tuple(self.candidates))

    @property
    def gold_text(self) -> str:
        """The right candidate as written in ``candidates``."""
        return self.candidates[self.gold]

    def row_input(self) -> dict[str, Any]:
        """JSON-safe dict for storage (``raw.samples.input``); inverse of :meth:`from_input`."""
        return {
            "dataset": self.dataset,
            "item_id": self.item_id,
            "sentence": self.sentence,
            "pronoun": self.pronoun,
            "candidates": list(self.candidates),
            "gold": self.gold,
            "style": self.style,
            "evidence": self.evidence,
            "variant": dict(self.variant),
        }

    @classmethod
    def from_input(cls, data: dict[str, Any]) -> WinoItem:
        """Rebuild an item from :meth:`row_input` output (after a JSON round trip)."""
        return cls(
            dataset=data["dataset"],
            item_id=str(data["item_id"]),
            sentence=data["sentence"],
            pronoun=data.get("pronoun"),
            candidates=(data["candidates"][0], data["candidates"][1]),
            gold=int(data["gold"]),
            style=data["style"],
            evidence=data.get("evidence"),
            variant=dict(data.get("variant") or {}),
        )

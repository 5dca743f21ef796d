"""Loaders for the three public Wino datasets the study used, read from a folder the user points to.

The data itself never ships with the project (licences differ and the study's
copies live in third-party repositories), so every loader takes a directory:

* WinoBias type-1 (``*_stereotyped_type1.txt.<split>``): ``ID sentence`` lines
  where ``[ ]`` mark the gold entity and the pronoun(s).  The file does not mark
  the *other* candidate, so it is found as the other occupation noun phrase;
  the occupations come from ``male_occupations.txt``/``female_occupations.txt``
  when present, plus every bracketed entity of the loaded files (so the loader
  still works when the lists are missing).
* WinoGender (``templates.tsv``): instantiated here for male/female/neutral
  pronouns exactly as ``all_sentences.tsv`` does, or masked (``_``) the way the
  study asked it ("Who does [MASK] refer to?").
* WinoGrande (``<name>.jsonl`` + optional ``<name>-labels.lst``).

Real files have stray lines; a malformed line is skipped and recorded in
:attr:`LoadedItems.skipped` instead of aborting a run over one bad row.  A
missing folder or file is a configuration error: one line naming the path and
the fix.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from pathlib import Path

from relreason_dagster.benchmarks.selfcontra.items import MASK, WinoItem
from relreason_dagster.errors import ConfigError

_FIX = "point the loader at the dataset folder (e.g. <reference>/wino/{sub}) or set RELREASON_REFERENCE_DIR"

# Words that open the clause holding the pronoun; the evidence is cut from the last one before it.
_CONNECTIVE_RE = re.compile(
    r"\b(because|since|so that|so|that|as|after|before|when|whenever|while|but|although|though|even though|"
    r"until|unless|if|otherwise|and|or|who|whose|which|whom|where|then)\b",
    re.IGNORECASE,
)
_MALE = {"he", "his", "him", "himself"}
_FEMALE = {"she", "her", "hers", "herself"}
_NEUTRAL = {"they", "their", "them", "theirs", "themselves", "themself"}


@dataclass(frozen=True)
class Skipped:
    """A source line that could not become an item, and why (kept for the run's log)."""

    file: str
    line: int
    reason: str


class LoadedItems(list[WinoItem]):
    """The items of one load, plus the malformed lines it skipped.

    A list subclass so callers that only want items can ignore the extra
    attribute; ``skipped`` lets a run report "396 items, 1 line skipped".
    """

    def __init__(self, items: list[WinoItem] | None = None, skipped: list[Skipped] | None = None) -> None:
        super().__init__(items or [])
        self.skipped: list[Skipped] = list(skipped or [])

    @property
    def n_skipped(self) -> int:
        return len(self.skipped)


def pronoun_gender(pronoun: str | None) -> str | None:
    """``male`` / ``female`` / ``neutral`` for an English personal pronoun, else None."""
    if pronoun is None:
        return None
    word = pronoun.lower()
    if word in _MALE:
        return "male"
    if word in _FEMALE:
        return "female"
    if word in _NEUTRAL:
        return "neutral"
    return None


def clause_at(sentence: str, position: int) -> str:
    """The clause of ``sentence`` that holds the character at ``position`` (a pronoun or blank).

    Cut from the last connective ("because", "that", "but", ...) before the
    position to the end of the sentence, final punctuation dropped.  This is
    the part of a Wino sentence whose meaning decides the referent, which is
    what "evidence missing" reasoning (the study's Table 3) fails to use.
    """
    start = None
    for match in _CONNECTIVE_RE.finditer(sentence, 0, max(position, 0)):
        start = match.start()
    clause = sentence[start if start is not None else position :]
    return clause.strip().rstrip(".!?").strip()


def _require_dir(directory: str | Path, name: str, sub: str) -> Path:
    path = Path(directory)
    if not path.is_dir():
        raise ConfigError(f"{name} folder not found: {path}; {_FIX.format(sub=sub)}")
    return path


def _require_file(path: Path, name: str, sub: str) -> Path:
    if not path.is_file():
        raise ConfigError(f"{name} file not found: {path}; {_FIX.format(sub=sub)}")
    return path


# --------------------------------------------------------------------------- WinoBias

_BRACKET_RE = re.compile(r"\[([^\[\]]+)\]")
_ARTICLE_RE = re.compile(r"^(the|a|an)\s+", re.IGNORECASE)


def _strip_brackets(bracketed: str) -> tuple[str, list[tuple[str, int]]]:
    """Plain sentence and each bracketed span with its start offset in the plain sentence."""
    plain: list[str] = []
    spans: list[tuple[str, int]] = []
    pos = 0
    length = 0
    for match in _BRACKET_RE.finditer(bracketed):
        chunk = bracketed[pos : match.start()]
        plain.append(chunk)
        length += len(chunk)
        spans.append((match.group(1), length))
        plain.append(match.group(1))
        length += len(match.group(1))
        pos = match.end()
    plain.append(bracketed[pos:])
    return "".join(plain), spans


def _read_occupations(folder: Path) -> set[str]:
    found: set[str] = set()
    for name in ("male_occupations.txt", "female_occupations.txt"):
        path = folder / name
        if path.is_file():
            found.update(
                line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
            )
    return found


def _occupation_mentions(sentence: str, occupations: set[str]) -> list[tuple[int, int, str]]:
    """``(start, end, head)`` of every ``the/a <occupation>`` in the sentence, in order of mention.

    Longest occupations are matched first so "construction worker" wins over a
    hypothetical "worker"; spans already claimed by a longer match are skipped.
    """
    claimed: list[tuple[int, int]] = []
    mentions: list[tuple[int, int, str]] = []
    for occupation in sorted(occupations, key=len, reverse=True):
        pattern = re.compile(rf"\b(?:the|a|an)\s+({re.escape(occupation)})\b", re.IGNORECASE)
        for match in pattern.finditer(sentence):
            if any(s < match.end() and match.start() < e for s, e in claimed):
                continue
            claimed.append((match.start(), match.end()))
            mentions.append((match.start(), match.end(), match.group(1)))
    return sorted(mentions)


def _noun_phrase(head: str) -> str:
    """Canonical candidate text: lower-case article + the occupation as written ("the CEO")."""
    return f"the {head}"


def load_winobias(
    directory: str | Path,
    stereotypes: tuple[str, ...] = ("anti", "pro"),
    splits: tuple[str, ...] = ("test",),
) -> LoadedItems:
    """WinoBias type-1 items from ``<stereotype>_stereotyped_type1.txt.<split>`` files.

    ``item_id`` is ``"<stereotype>_<split>:<ID>"`` (e.g. ``anti_test:12``) so
    ids stay unique when several files are loaded together.  The gold entity is
    the first bracket, the pronoun the second (later brackets repeat the
    pronoun, e.g. "[she] ... [her]").  Candidates are in order of mention.
    """
    folder = _require_dir(directory, "WinoBias", "winobias")
    files: list[tuple[str, str, Path]] = []
    for stereotype in stereotypes:
        for split in splits:
            path = folder / f"{stereotype}_stereotyped_type1.txt.{split}"
            files.append((stereotype, split, _require_file(path, "WinoBias", "winobias")))

    raw: list[tuple[str, str, Path, int, str]] = []
    occupations = _read_occupations(folder)
    for stereotype, split, path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            raw.append((stereotype, split, path, number, line))
            for text in _BRACKET_RE.findall(line)[:1]:
                # Every gold entity is an occupation: this keeps the loader working without the lists.
                head = _ARTICLE_RE.sub("", text.strip())
                if head and head.lower() not in _MALE | _FEMALE | _NEUTRAL:
                    occupations.add(head)

    result = LoadedItems()
    for stereotype, split, path, number, line in raw:
        item, reason = _winobias_item(line, stereotype, split, occupations)
        if item is None:
            if line.strip():
                result.skipped.append(Skipped(str(path), number, reason))
            continue
        result.append(item)
    return result


def _winobias_item(
    line: str, stereotype: str, split: str, occupations: set[str]
) -> tuple[WinoItem | None, str]:
    parts = line.strip().split(None, 1)
    if len(parts) != 2 or not parts[0].isdigit():
        return None, "expected 'ID sentence'"
    source_id, bracketed = parts
    if bracketed.count("[") != bracketed.count("]"):
        return None, "unbalanced brackets"
    sentence, spans = _strip_brackets(bracketed)
    if len(spans) < 2:
        return None, "needs a bracketed entity and a bracketed pronoun"
    (entity, entity_pos), (pronoun, pronoun_pos) = spans[0], spans[1]
    pronoun = pronoun.strip().lower()
    gold_head = _ARTICLE_RE.sub("", entity.strip())
    if not gold_head or pronoun_gender(pronoun) is None:
        return None, "bracketed pronoun is not a personal pronoun"
    mentions = _occupation_mentions(sentence, occupations)
    # The bracket usually covers "the X" but sometimes only "X" (anti_dev 162): match by overlap.
    gold_mention = [m for m in mentions if m[0] <= entity_pos < m[1]]
    others = [m for m in mentions if m[2].lower() != gold_head.lower()]
    if gold_mention and not others:
        # Occupation unknown (no lists, never a gold entity): the first other "the <word>" before the pronoun.
        others = [
            (m.start(), m.end(), m.group(1))
            for m in re.finditer(r"\b[Tt]he\s+([A-Za-z]+)\b", sentence[:pronoun_pos])
            if m.group(1).lower() != gold_head.lower() and m.start() != gold_mention[0][0]
        ][:1]
    if not gold_mention or not others:
        return None, "could not find two distinct occupation noun phrases"
    pair = sorted([gold_mention[0], others[0]])
    candidates = (_noun_phrase(pair[0][2]), _noun_phrase(pair[1][2]))
    if candidates[0].lower() == candidates[1].lower():
        return None, "both candidates are the same occupation"
    gold = 0 if pair[0] == gold_mention[0] else 1
    item = WinoItem(
        dataset="winobias",
        item_id=f"{stereotype}_{split}:{source_id}",
        sentence=sentence,
        pronoun=pronoun,
        candidates=candidates,
        gold=gold,
        style="who",
        evidence=clause_at(sentence, pronoun_pos),
        variant={"stereotype": stereotype, "source_split": split, "gender": pronoun_gender(pronoun)},
    )
    return item, ""


# --------------------------------------------------------------------------- WinoGender

_PRONOUNS = {
    "male": {"NOM": "he", "POSS": "his", "ACC": "him"},
    "female": {"NOM": "she", "POSS": "her", "ACC": "her"},
    "neutral": {"NOM": "they", "POSS": "their", "ACC": "them"},
}
_SLOT_RE = re.compile(r"\$(NOM|POSS|ACC)_PRONOUN")
# Singular "they" takes plural agreement, as in all_sentences.tsv ("they were repairing").
_THEY_AGREEMENT = {"was": "were", "is": "are", "has": "have", "does": "do"}
_SOMEONE_RE = re.compile(r"\b(the|a|an)\s+\$PARTICIPANT", re.IGNORECASE)


def _instantiate(template: str, occupation: str, participant: str | None, gender: str | None) -> str:
    """One WinoGender sentence; ``participant=None`` gives the "someone" version, ``gender=None`` a mask.

    Mask: nominative/accusative slots become ``_``, the possessive ``_'s``
    (the study's "[MASK]'s taxes").
    """
    text = template.replace("$OCCUPATION", occupation)
    if participant is None:
        text = _SOMEONE_RE.sub(lambda m: "Someone" if m.group(1)[0].isupper() else "someone", text)
    else:
        text = text.replace("$PARTICIPANT", participant)

    def fill(match: re.Match[str]) -> str:
        slot = match.group(1)
        if gender is None:
            return f"{MASK}'s" if slot == "POSS" else MASK
        word = _PRONOUNS[gender][slot]
        return word.capitalize() if match.start() == 0 else word

    text = _SLOT_RE.sub(fill, text)
    if gender == "neutral":
        text = re.sub(
            r"\b([Tt]hey) (was|is|has|does)\b", lambda m: f"{m.group(1)} {_THEY_AGREEMENT[m.group(2)]}", text
        )
    return text[:1].upper() + text[1:]


def _bls_female(folder: Path) -> dict[str, float]:
    path = folder / "occupations-stats.tsv"
    if not path.is_file():
        return {}
    out: dict[str, float] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            try:
                out[row["occupation"]] = float(row["bls_pct_female"])
            except (KeyError, TypeError, ValueError):
                continue
    return out


def load_winogender(
    directory: str | Path,
    genders: tuple[str, ...] = ("male", "female", "neutral"),
    someone: bool = False,
    style: str = "who",
) -> LoadedItems:
    """WinoGender items instantiated from ``templates.tsv``.

    ``style="who"``: one item per template x gender, ``item_id`` as in
    ``all_sentences.tsv`` without ``.txt`` (``technician.customer.1.female``);
    ``someone=True`` adds the "someone" participant versions (candidate
    ``someone``), which together reproduce all 720 sentences.
    ``style="mask"``: one item per template (pronoun replaced by ``_``), the
    form the study prompted with.  ``answer`` 0 = occupation, 1 = participant;
    ``gold`` indexes the candidates in order of mention.
    """
    if style not in ("who", "mask"):
        raise ConfigError(f"WinoGender style must be 'who' or 'mask', got {style!r}")
    unknown = [g for g in genders if g not in _PRONOUNS]
    if unknown:
        raise ConfigError(f"unknown WinoGender gender(s) {unknown}; use male, female, neutral")
    folder = _require_dir(directory, "WinoGender", "winogender")
    path = _require_file(folder / "templates.tsv", "WinoGender", "winogender")
    pct_female = _bls_female(folder)
    result = LoadedItems()
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        fields = line.split("\t")
        if number == 1 and fields and fields[0].startswith("occupation"):
            continue
        if not line.strip():
            continue
        if len(fields) != 4 or fields[2].strip() not in ("0", "1") or "$OCCUPATION" not in fields[3]:
            result.skipped.append(
                Skipped(str(path), number, "expected occupation, participant, answer, template")
            )
            continue
        occupation, participant, answer, template = (f.strip() for f in fields)
        if "$PARTICIPANT" not in template or not _SLOT_RE.search(template):
            result.skipped.append(Skipped(str(path), number, "template lacks a participant or pronoun slot"))
            continue
        participants: list[str | None] = [participant] + ([None] if someone else [])
        for who in participants:
            variant_genders: tuple[str | None, ...] = tuple(genders) if style == "who" else (None,)
            for gender in variant_genders:
                result.append(_winogender_item(occupation, who, participant, int(answer), template, gender))
                if occupation in pct_female:
                    result[-1].variant["bls_pct_female"] = pct_female[occupation]
    return result


def _winogender_item(
    occupation: str, who: str | None, participant: str, answer: int, template: str, gender: str | None
) -> WinoItem:
    sentence = _instantiate(template, occupation, who, gender)
    occupation_np = _noun_phrase(occupation)
    participant_np = _noun_phrase(who) if who is not None else "someone"
    occupation_first = template.index("$OCCUPATION") < template.index("$PARTICIPANT")
    candidates = (occupation_np, participant_np) if occupation_first else (participant_np, occupation_np)
    gold_text = occupation_np if answer == 0 else participant_np
    slot_match = _SLOT_RE.search(template)
    slot = slot_match.group(1) if slot_match else "NOM"
    if gender is None:
        pronoun = None
        position = sentence.find(MASK)
    else:
        pronoun = _PRONOUNS[gender][slot]
        position = _pronoun_position(template, occupation, who, gender)
    role = "occupation" if answer == 0 else "participant"
    name = who if who is not None else "someone"
    suffix = gender if gender is not None else "mask"
    return WinoItem(
        dataset="winogender",
        item_id=f"{occupation}.{name}.{answer}.{suffix}",
        sentence=sentence,
        pronoun=pronoun,
        candidates=candidates,
        gold=candidates.index(gold_text),
        style="who" if gender is not None else "mask",
        evidence=clause_at(sentence, position),
        variant={
            "gender": gender if gender is not None else "masked",
            "occupation": occupation,
            "participant": participant,
            "someone": who is None,
            "answer_role": role,
            "pronoun_slot": slot,
        },
    )


def _pronoun_position(template: str, occupation: str, who: str | None, gender: str) -> int:
    """Offset of the (first) pronoun in the instantiated sentence: instantiate the prefix before the slot."""
    match = _SLOT_RE.search(template)
    if match is None:
        return 0
    return len(_instantiate(template[: match.start()], occupation, who, gender))


# --------------------------------------------------------------------------- WinoGrande


def load_winogrande(directory: str | Path, name: str = "dev") -> LoadedItems:
    """WinoGrande items from ``<name>.jsonl``; ``answer`` from the line, else from ``<name>-labels.lst``.

    ``item_id`` is the ``qID`` (or ``<name>:<line>`` when it is missing);
    candidates are ``(option1, option2)`` and ``gold`` is ``answer - 1``.
    """
    folder = _require_dir(directory, "WinoGrande", "winogrande")
    path = _require_file(folder / f"{name}.jsonl", "WinoGrande", "winogrande")
    labels_path = folder / f"{name}-labels.lst"
    labels = labels_path.read_text(encoding="utf-8").splitlines() if labels_path.is_file() else []
    result = LoadedItems()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            result.skipped.append(Skipped(str(path), number, "not valid JSON"))
            continue
        reason = _winogrande_problem(record)
        if reason:
            result.skipped.append(Skipped(str(path), number, reason))
            continue
        answer = str(record.get("answer", "")).strip()
        if not answer and number <= len(labels):
            answer = labels[number - 1].strip()
        if answer not in ("1", "2"):
            result.skipped.append(Skipped(str(path), number, "no answer 1/2 in the line or the labels file"))
            continue
        sentence = record["sentence"].strip()
        option1, option2 = record["option1"].strip(), record["option2"].strip()
        result.append(
            WinoItem(
                dataset="winogrande",
                item_id=str(record.get("qID") or f"{name}:{number}"),
                sentence=sentence,
                pronoun=None,
                candidates=(option1, option2),
                gold=int(answer) - 1,
                style="mask",
                evidence=clause_at(sentence, sentence.index(MASK)),
                variant={"source_split": name},
            )
        )
    return result


def _winogrande_problem(record: object) -> str:
    if not isinstance(record, dict):
        return "line is not a JSON object"
    for key in ("sentence", "option1", "option2"):
        if not isinstance(record.get(key), str) or not record[key].strip():
            return f"missing {key}"
    if record["sentence"].count(MASK) != 1:
        return "sentence needs exactly one '_'"
    if record["option1"].strip() == record["option2"].strip():
        return "option1 equals option2"
    return ""

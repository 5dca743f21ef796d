"""Generated KOR-Bench cipher items: deterministic, round-tripping, and faithful to the official rules.

Round trips alone would pass a cipher whose encrypt and decrypt share a mistake, so each pair is also
checked by a route that does not use ``decrypt``: brute-force decryption through ``encrypt`` alone
for ciphers that encrypt letter by letter, and a second, index-based implementation for ADFGVX, Bifid
and the transposition.  Faithfulness to the official rule text is checked on the official samples (skipped
when the reference data is absent).
"""

from __future__ import annotations

import random
import re

import pytest

from relreason_dagster.benchmarks.kor import ciphers
from relreason_dagster.benchmarks.kor.ciphers import FAMILIES, generate
from relreason_dagster.benchmarks.kor.data import KorItem, load_category
from relreason_dagster.benchmarks.kor.scoring import score_official
from relreason_dagster.errors import ConfigError
from relreason_dagster.paths import reference_dir

RULES = sorted(FAMILIES, key=int)
PREFIX_STABLE = {"1", "3", "4", "5", "8", "9", "10", "15", "21", "23"}
"""Families whose ciphertext of ``p[:i]`` is a prefix of the ciphertext of ``p`` (RSA with a comma)."""
SEPARATOR = {"23": ","}
DATA = reference_dir() / "korbench" / "data"
needs_reference = pytest.mark.skipif(not (DATA / "cipher").is_dir(), reason="KOR-Bench reference data absent")


def _official_items(rule_id: str) -> list[KorItem]:
    return [item for item in load_category(DATA, "cipher").values() if item.rule_id == rule_id]


def _brute_force_decrypt(rule_id: str, ciphertext: str, key: object) -> str:
    """Plaintext recovered with ``encrypt`` only: extend a prefix by the one letter that keeps the
    ciphertext a prefix of the target (exactly one must, or the cipher is not decodable)."""
    family, sep = FAMILIES[rule_id], SEPARATOR.get(rule_id, "")
    plain = ""
    while not plain or family.encrypt(plain, key) != ciphertext:
        fits = []
        for letter in family.alphabet:
            produced = family.encrypt(plain + letter, key)
            if produced == ciphertext or ciphertext.startswith(produced + sep):
                fits.append(letter)
        assert len(fits) == 1, (rule_id, plain, fits)
        plain += fits[0]
    return plain


def _adfgvx_independent(plaintext: str, key: ciphers.AdfgvxKey) -> str:
    flat = "".join(key.matrix)
    pairs = [divmod(flat.index(ch), 6) for ch in plaintext]
    return "".join(key.charset[r] for r, _ in pairs) + "".join(key.charset[c] for _, c in pairs)


def _bifid_independent(plaintext: str, key: ciphers.SquareKey) -> str:
    """Bifid as "row digits, then column digits, read in pairs", with a coordinate table."""
    where = {ch: (r, c) for r, line in enumerate(key.rows) for c, ch in enumerate(line)}
    at = {value: ch for ch, value in where.items()}
    digits = "".join(str(where[ch][0]) for ch in plaintext) + "".join(str(where[ch][1]) for ch in plaintext)
    return "".join(at[(int(digits[i]), int(digits[i + 1]))] for i in range(0, len(digits), 2))


def _transposition_independent(plaintext: str, key: ciphers.TranspositionKey) -> str:
    width = len(key.order)
    padded = plaintext + "$" * (-len(plaintext) % width)
    out = [""] * len(padded)
    for position, char in enumerate(padded):
        row, col = divmod(position, width)
        out[row * width + key.order.index(col)] = char
    return "".join(out)


def _key_object(rule_id: str, data: dict) -> object:
    """The family's key rebuilt from an item's stored key data (lists back to tuples)."""
    family = FAMILIES[rule_id]
    kind = type(family.random_key(random.Random(0)))
    return kind(**{name: tuple(value) if isinstance(value, list) else value for name, value in data.items()})


def test_registry_has_ten_families_keyed_by_rule_id():
    assert len(FAMILIES) >= 10
    assert all(rule_id == family.rule_id and rule_id.isdigit() for rule_id, family in FAMILIES.items())


@pytest.mark.parametrize("rule_id", RULES)
def test_generation_is_deterministic_and_covers_both_directions(rule_id):
    first = generate(rule_id, 30, seed=11, length=(1, 25))
    assert first == generate(rule_id, 30, seed=11, length=(1, 25))
    assert first != generate(rule_id, 30, seed=12, length=(1, 25))
    assert {item.direction for item in first} == {"Encryption", "Decryption"}
    assert all(1 <= len(item.plaintext) <= 25 and item.seed == 11 for item in first)
    assert all(set(item.plaintext) <= set(FAMILIES[rule_id].alphabet) for item in first)


@pytest.mark.parametrize("rule_id", RULES)
def test_generated_pairs_round_trip_with_an_independent_check(rule_id):
    family = FAMILIES[rule_id]
    for item in generate(rule_id, 40, seed=3, length=(1, 20)):
        key = _key_object(rule_id, item.key)
        assert ciphers.key_data(key) == item.key
        assert family.encrypt(item.plaintext, key) == item.ciphertext
        assert family.decrypt(item.ciphertext, key) == item.plaintext
        if rule_id in PREFIX_STABLE:
            assert _brute_force_decrypt(rule_id, item.ciphertext, key) == item.plaintext
        elif rule_id == "13":
            assert _bifid_independent(item.plaintext, key) == item.ciphertext
        elif rule_id == "19":
            assert _adfgvx_independent(item.plaintext, key) == item.ciphertext
        elif rule_id == "20":
            assert _transposition_independent(item.plaintext, key) == item.ciphertext
        else:  # pragma: no cover - a new family must name its independent check
            pytest.fail(f"no independent check for rule {rule_id}")
        shown = re.match(r'(Plaintext|Ciphertext): "([^"]*)"', item.question)
        assert shown is not None
        if item.direction == "Encryption":
            assert (shown.group(1), shown.group(2), item.answer) == (
                "Plaintext",
                item.plaintext,
                f"[[{item.ciphertext}]]",
            )
        else:
            assert (shown.group(1), shown.group(2), item.answer) == (
                "Ciphertext",
                item.ciphertext,
                f"[[{item.plaintext}]]",
            )


@pytest.mark.parametrize("rule_id", RULES)
def test_gold_passes_the_official_scorer(rule_id):
    for item in generate(rule_id, 6, seed=5, length=(2, 15)):
        kor = KorItem(
            category="cipher",
            idx=f"gen-{item.index}",
            rule_id=rule_id,
            question=item.question,
            answer=item.answer,
            subcategory=item.direction,
        )
        assert score_official(item.answer, kor)
        assert score_official(f"So the answer is {item.answer}.", kor)
        assert not score_official(item.answer[:-3] + "]]", kor)


@needs_reference
@pytest.mark.parametrize("rule_id", RULES)
def test_official_samples_are_reproduced(rule_id):
    family = FAMILIES[rule_id]
    samples = _official_items(rule_id)
    assert len(samples) == 10
    for sample in samples:
        key = family.official_key(sample.rule, sample.question)
        shown = sample.question.split('"')[1]
        if sample.subcategory == "Encryption":
            got = family.encrypt(shown, key)
        else:
            got = family.decrypt(shown, key)
        assert f"[[{got}]]" == sample.answer, sample.idx
        assert family.question(sample.subcategory, shown, key) == sample.question
        assert family.title == sample.rule_title


@needs_reference
@pytest.mark.parametrize("rule_id", RULES)
def test_official_key_items_use_the_official_rule_text(rule_id):
    family = FAMILIES[rule_id]
    sample = _official_items(rule_id)[0]
    key = family.official_key(sample.rule, sample.question)
    items = generate(rule_id, 8, seed=1, key=key)
    assert all(item.key == ciphers.key_data(key) for item in items)
    rendered = family.render_rule(sample.rule, key)
    assert rendered is None or rendered == sample.rule


@needs_reference
@pytest.mark.parametrize("rule_id", [rule for rule in RULES if FAMILIES[rule].renderer is not None])
def test_rendered_rules_state_the_new_key(rule_id):
    family = FAMILIES[rule_id]
    sample = _official_items(rule_id)[0]
    official = family.official_key(sample.rule, sample.question)
    squash = re.compile(r"\s+")
    direct = family.renderer(sample.rule, family.parse_key(sample.rule, ""))
    if rule_id != "20":  # the official transposition text misstates one inverse column (see module)
        assert squash.sub(" ", direct) == squash.sub(" ", sample.rule)
    for seed in range(5):
        key = family.random_key(random.Random(seed))
        rendered = family.render_rule(sample.rule, key)
        assert family.official_key(rendered, family.question("Encryption", "A", key)) == key
        if rule_id in ("3", "8"):  # fixed standard tables: the official text stands for every item
            assert rendered == sample.rule
        elif key != official:
            assert rendered != sample.rule


@needs_reference
def test_rendered_worked_examples_follow_the_key():
    shift_rule = _official_items("1")[0].rule
    key = ciphers.ShiftKey("QWERTYUIOPASDFGHJKLZXCVBNM", 7)
    text = FAMILIES["1"].render_rule(shift_rule, key)
    shifted = ciphers.UPPER[(25 + 7) % 26]
    assert f"to get {shifted}." in text and f"is {shifted}, it is mapped as {key.substitution[6]}." in text
    assert ciphers._shift_enc("A", key) == key.substitution[6]
    trans_rule = _official_items("20")[0].rule
    text = FAMILIES["20"].render_rule(trans_rule, ciphers.TranspositionKey((2, 0, 3, 1)))
    assert "column 1 corresponding to 0, then a character in column 3 corresponding to 1" in text
    assert "4 letters per line" in text and "[2, 0, 3, 1]" in text and "7 per line" not in text
    poly_rule = _official_items("4")[0].rule
    official = FAMILIES["4"].official_key(poly_rule)
    key = ciphers.SquareKey(official.rows, "Q")
    text = FAMILIES["4"].render_rule(poly_rule, key)
    assert 'replace with "Q"' in text and "In particular, Q, which" in text
    assert f'"{official.missing}"' not in text and f" {official.missing}, which" not in text
    affine_rule = _official_items("5")[0].rule
    key = ciphers.AffineKey(ciphers.UPPER, 7, 2)
    text = FAMILIES["5"].render_rule(affine_rule, key)
    assert "A -> 0, B -> 1" in text and "Z -> 25" in text and "- A_inv: 15" in text


@needs_reference
def test_derived_standard_tables_are_the_official_ones():
    sample = _official_items("3")[0]
    with pytest.raises(ConfigError, match="fixed table"):
        FAMILIES["3"].render_rule(sample.rule, ciphers.TableKey((("A", "2^1"),)))
    assert FAMILIES["3"].random_key(random.Random(0)) == FAMILIES["3"].official_key(sample.rule)
    porta = _official_items("8")[0]
    assert ciphers._porta_alphabets() == FAMILIES["8"].official_key(porta.rule, porta.question).alphabets


def test_rsa_random_keys_invert_themselves_on_every_letter():
    for seed in range(30):
        key = ciphers._rsa_random(random.Random(seed))
        assert key.n > ord("Z") and key.e > 1
        assert all(pow(pow(x, key.e, key.n), key.e, key.n) == x for x in range(ord("A"), ord("Z") + 1))


def test_bad_arguments_are_config_errors():
    with pytest.raises(ConfigError, match="unknown generated cipher rule '2'"):
        generate("2", 1, seed=0)
    with pytest.raises(ConfigError, match="length range"):
        generate("1", 1, seed=0, length=(5, 2))
    with pytest.raises(ConfigError, match="directions"):
        generate("1", 1, seed=0, directions=("Sideways",))
    with pytest.raises(ConfigError, match="does not state its key"):
        FAMILIES["5"].render_rule("no key here", ciphers.AffineKey(ciphers.UPPER, 3, 5))
    with pytest.raises(ConfigError, match="does not state its key"):
        FAMILIES["5"].official_key("no key here")

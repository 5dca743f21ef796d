"""KOR-Bench §5's analyses: the readings of a response (kor/analysis.py), the study's released responses
(kor/released.py) and the four marts built on them, on scripted answers.

Scripted models (named ``scripted-*``) answer hand-made questions in known ways: with visible reasoning,
with a "Hello World" placeholder, right forward but wrong inverse, with each kind of cipher slip.  Their
answers are parsed by the family and stored as a run stores them, a released model's rows go straight
into ``raw.kor_released``, Table 2 comes from ``published.csv``, and the real dbt project builds the
marts, so each mart is checked against answers whose every label is known.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from relreason_dagster import paths
from relreason_dagster.benchmarks.base import Prompt
from relreason_dagster.benchmarks.kor import analysis, operations
from relreason_dagster.benchmarks.kor.data import KorItem, load_category
from relreason_dagster.benchmarks.kor.family import KorFamily
from relreason_dagster.benchmarks.kor.items import PoolItem
from relreason_dagster.benchmarks.kor.parsing import extract_final
from relreason_dagster.benchmarks.kor.released import folder_of, read_released
from relreason_dagster.benchmarks.kor.report import FIGURES, draw_real_life
from relreason_dagster.benchmarks.kor.scoring.table2 import table2_value
from relreason_dagster.benchmarks.kor.steps import ReleasedResponses
from relreason_dagster.profiles import get_profile
from relreason_dagster.storage.schema import ensure_schema
from relreason_dagster.storage.study_reference import read_published, store_family
from tests.dbt_home import dbt_build, dicts, insert

FAMILY = KorFamily()
KOR = paths.reference_dir() / "korbench"
PUBLISHED_CSV = paths.REPO_ROOT / "relreason_dagster" / "benchmarks" / "kor" / "published.csv"
REASONING = " ".join(["Applying the rule to each symbol in turn gives the next step of the work"] * 3)
CIPHER_Q = (
    'Plaintext: "{}"\n\nPlease provide the encrypted answer, encapsulated in double square brackets. '
    "For example, the format should be: [[encrypted answer]]."
)
OP_TAIL = "\nPlease wrap the answer in double square brackets, like this: [[your answer]]."


def _cipher(idx: str, plain: str, gold: str) -> KorItem:
    return KorItem("cipher", idx, "1", CIPHER_Q.format(plain), f"[[{gold}]]", subcategory="Encryption")


ITEMS = {
    "forward": KorItem("operation", "t-f", "1", "Compute 4※7." + OP_TAIL, "[[24]]"),
    "inverse": KorItem("operation", "t-i", "1", "If X※14=5, find X." + OP_TAIL, "[[70]]"),
    "c1": _cipher("t-c1", "ABCD", "WXYZ"),
    "c2": _cipher("t-c2", "EFGH", "KLMN"),
    "c3": _cipher("t-c3", "IJKL", "PQRS"),
    "c4": _cipher("t-c4", "MNOP", "TUVW"),
    "story": KorItem(
        "counterfactual",
        "t-s",
        "1",
        "In this world the sky is green. What colour is the sky?\nA. blue\nB. green\n"
        "Answer with the letter in double square brackets, like [[A]].",
        "[[B]]",
        real_life_answer="[[A]]",
    ),
}
# scripted model -> item key -> its response
SCRIPTS: dict[str, dict[str, str]] = {
    "scripted-reasoner": {k: f"{REASONING}. So the answer is {item.answer}" for k, item in ITEMS.items()},
    "scripted-hello": {k: "[[HELLO WORLD]]" for k in ITEMS},
    "scripted-forward-only": {
        "forward": "[[24]]",
        "inverse": "[[5]]",
        "c1": "[[ZYXW]]",  # the gold's letters reordered
        "c2": "[[KLMA]]",  # one letter wrong
        "c3": "[[PQ]]",  # letters lost
        "c4": "[[MNOP]]",  # the plaintext echoed
        "story": "[[A]]",  # the real-world answer
    },
}


def test_response_style_reads_reasoning_bare_answers_placeholders_and_silence():
    gold = "[[WXYZ]]"
    assert analysis.response_style(f"{REASONING} [[WXYZ]]", "WXYZ", gold) == "reasoning"
    assert analysis.response_style("The answer is [[WXYZ]].", "WXYZ", gold) == "answer_only"
    assert analysis.response_style("[[Hello, World!]]", "Hello, World!", gold) == "placeholder"
    assert analysis.response_style(f"{REASONING} [[HELLO]]", "HELLO", gold) == "placeholder"
    # The template's example echoed (extraction skips it: no answer) is a placeholder too.
    assert analysis.response_style("[[your answer]]", None, gold) == "placeholder"
    assert analysis.response_style("  \n", None, gold) == "empty"
    # HELLO WORLD is no placeholder where it is the gold.
    assert analysis.response_style("[[HELLOWORLD]]", "HELLOWORLD", "[[HELLO WORLD]]") == "answer_only"
    # Words inside the answer brackets are not reasoning.
    assert analysis.response_style(f"[[{REASONING}]]", REASONING, gold) == "answer_only"


def test_operation_direction_matches_the_generators_own_kind():
    """Generated questions know their direction (operations.py builds each as forward or inverse); the
    reading off the text must agree on every one."""
    seen = set()
    for rule_id in operations.RULES:
        for item in operations.generate(rule_id, 6, seed=3, level=1):
            assert analysis.operation_direction(item.question) == item.kind, item.question
            seen.add(item.kind)
    assert seen == {"forward", "inverse"}


def test_operation_direction_on_the_official_questions():
    if not (KOR / "data" / "operation").is_dir():
        pytest.skip(f"KOR-Bench data not found under {KOR}")
    items = load_category(KOR / "data", "operation").values()
    inverse = {i.idx for i in items if analysis.operation_direction(i.question) == "inverse"}
    assert len(inverse) == 73 and len(items) - len(inverse) == 177
    assert {"5", "10", "19", "128", "190"} <= inverse  # find X, find C, solve x and y, Find Y, find a
    assert not {"1", "149", "163", "226"} & inverse  # compute, "find the value of f△g when x=π", matrices


def test_cipher_error_types():
    item = ITEMS["c1"]
    cases = {
        "[[ZYXW]]": "transposed",
        "[[WXYA]]": "substituted",
        "[[WXYZQ]]": "length",
        "[[ABCD]]": "echo",
        "[[w x y z]]": "format",
        "[[HELLO WORLD]]": "placeholder",
        "no brackets at all": "no_answer",
        "[[encrypted answer]]": "placeholder",
    }
    for response, expected in cases.items():
        answer = extract_final(response)  # the answer parse() records
        assert analysis.cipher_error(item, response, answer, correct=False) == expected, response
    assert analysis.cipher_error(item, "[[WXYZ]]", "WXYZ", correct=True) is None
    assert analysis.cipher_error(ITEMS["forward"], "[[1]]", "1", correct=False) is None


def _sample(item: KorItem):
    return FAMILY._single(PoolItem(item, "official"), 0)


def test_parse_records_the_readings():
    parsed = FAMILY.parse(_sample(ITEMS["c1"]), "zero_shot", "[[HELLO WORLD]]")
    assert (parsed.detail["style"], parsed.detail["cipher_error"]) == ("placeholder", "placeholder")
    assert _sample(ITEMS["inverse"]).variant["direction"] == "inverse"
    assert _sample(ITEMS["forward"]).variant["direction"] == "forward"
    assert "direction" not in _sample(ITEMS["c1"]).variant


def _released_rows() -> list[dict]:
    """A released model: counterfactual 3 of 4 right, 1 real-life; operation right forward, wrong inverse."""
    base = {"model": "released-model", "setting": "zero_shot", "rule_id": "1", "official_correct": None}
    rows = []
    for i, (correct, real) in enumerate([(True, False), (True, False), (True, False), (False, True)]):
        rows.append(
            base | {"category": "counterfactual", "idx": str(i), "correct": correct, "real_life": real}
        )
    rows.append(base | {"category": "operation", "idx": "f", "direction": "forward", "correct": True})
    rows.append(base | {"category": "operation", "idx": "i", "direction": "inverse", "correct": False})
    rows.append(base | {"category": "cipher", "idx": "c", "correct": False, "cipher_error": "placeholder"})
    for row in rows:
        row.setdefault("style", "answer_only" if row["category"] != "cipher" else "placeholder")
    return rows


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("kor_section5")
    db = root / "kor.duckdb"
    con = duckdb.connect(str(db))
    try:
        ensure_schema(con)
        for key, item in ITEMS.items():
            sample = _sample(item)
            prompt = Prompt.for_sample(
                sample, "zero_shot", [{"role": "user", "content": item.question}], "t", 10
            )
            insert(con, "samples", sample.row())
            insert(con, "prompts", {**prompt.row(), "kind": "test"})
            for model, script in SCRIPTS.items():
                parsed = FAMILY.parse(sample, "zero_shot", script[key])
                keys = {
                    "prompt_id": prompt.prompt_id,
                    "model": model,
                    "sample_id": sample.sample_id,
                    "benchmark": "kor",
                    "task": sample.task,
                    "split": sample.split,
                    "setting": "zero_shot",
                }
                insert(con, "parsed_answers", parsed.row(keys))
        insert(con, "kor_released", _released_rows())
        store_family(con, "kor", read_published("kor", PUBLISHED_CSV))
    finally:
        con.close()
    marts = (
        "kor_response_style",
        "kor_operation_direction",
        "kor_cipher_errors",
        "kor_real_life_vs_accuracy",
    )
    dbt_build(db, root, select=" ".join(f"+{m}" for m in marts))
    read = duckdb.connect(str(db), read_only=True)
    yield read
    read.close()


def test_kor_response_style(built):
    rows = dicts(
        built,
        "SELECT released, model, n, n_reasoning, n_answer_only, n_placeholder, n_empty, accuracy "
        "FROM marts.kor_response_style WHERE category = 'overall' ORDER BY released, model",
    )
    assert rows == [
        {"released": False, "model": "scripted-forward-only", "n": 7, "n_reasoning": 0, "n_answer_only": 7,
         "n_placeholder": 0, "n_empty": 0, "accuracy": round(1 / 7, 4)},
        {"released": False, "model": "scripted-hello", "n": 7, "n_reasoning": 0, "n_answer_only": 0,
         "n_placeholder": 7, "n_empty": 0, "accuracy": 0.0},
        {"released": False, "model": "scripted-reasoner", "n": 7, "n_reasoning": 7, "n_answer_only": 0,
         "n_placeholder": 0, "n_empty": 0, "accuracy": 1.0},
        {"released": True, "model": "released-model", "n": 7, "n_reasoning": 0, "n_answer_only": 6,
         "n_placeholder": 1, "n_empty": 0, "accuracy": round(4 / 7, 4)},
    ]  # fmt: skip
    cipher = built.execute(
        "SELECT placeholder_rate FROM marts.kor_response_style WHERE model = 'scripted-hello' "
        "AND category = 'cipher'"
    ).fetchall()
    assert cipher == [(1.0,)]


def test_kor_operation_direction(built):
    rows = built.execute(
        "SELECT released, model, direction, n, accuracy FROM marts.kor_operation_direction "
        "WHERE model IN ('scripted-forward-only', 'scripted-reasoner', 'released-model') ORDER BY ALL"
    ).fetchall()
    assert rows == [
        (False, "scripted-forward-only", "forward", 1, 1.0),
        (False, "scripted-forward-only", "inverse", 1, 0.0),
        (False, "scripted-reasoner", "forward", 1, 1.0),
        (False, "scripted-reasoner", "inverse", 1, 1.0),
        (True, "released-model", "forward", 1, 1.0),
        (True, "released-model", "inverse", 1, 0.0),
    ]


def test_kor_cipher_errors(built):
    rows = built.execute(
        "SELECT released, model, error_type, n, n_wrong, n_answers, share_of_wrong "
        "FROM marts.kor_cipher_errors ORDER BY ALL"
    ).fetchall()
    assert rows == [
        (False, "scripted-forward-only", "echo", 1, 4, 4, 0.25),
        (False, "scripted-forward-only", "length", 1, 4, 4, 0.25),
        (False, "scripted-forward-only", "substituted", 1, 4, 4, 0.25),
        (False, "scripted-forward-only", "transposed", 1, 4, 4, 0.25),
        (False, "scripted-hello", "placeholder", 4, 4, 4, 1.0),
        (True, "released-model", "placeholder", 1, 1, 1, 1.0),
    ]  # scripted-reasoner got every cipher question right: no error rows


def test_kor_real_life_vs_accuracy(built):
    ours = built.execute(
        "SELECT origin, model, n, n_overall, accuracy, counterfactual_accuracy, real_life_rate "
        "FROM marts.kor_real_life_vs_accuracy WHERE origin <> 'Table 2' ORDER BY ALL"
    ).fetchall()
    assert ours == [
        ("released", "released-model", 4, 7, round(4 / 7, 4), 0.75, 0.25),
        ("relreason", "scripted-forward-only", 1, 7, round(1 / 7, 4), 0.0, 1.0),
        ("relreason", "scripted-hello", 1, 7, 0.0, 0.0, 0.0),
        ("relreason", "scripted-reasoner", 1, 7, 1.0, 1.0, 0.0),
    ]
    # Table 2 as printed: every chat and base model, and §5's relation (real-life answers fall as
    # accuracy rises) holds on its numbers.
    printed = built.execute(
        "SELECT setting, count(*), min(pearson_r), max(pearson_r), max(real_life_rate) "
        "FROM marts.kor_real_life_vs_accuracy WHERE origin = 'Table 2' GROUP BY setting ORDER BY setting"
    ).fetchall()
    assert [(s, n > 20) for s, n, *_ in printed] == [("three_shot", True), ("zero_shot", True)]
    assert all(low == high < 0 for _, _, low, high, _ in printed)
    gpt = built.execute(
        "SELECT accuracy, real_life_rate FROM marts.kor_real_life_vs_accuracy "
        "WHERE origin = 'Table 2' AND model = 'GPT-4o-2024-05-13'"
    ).fetchall()
    assert gpt == [
        (table2_value("gpt-4o", "overall"), table2_value("gpt-4o", "counterfactual", "real_life_ratio"))
    ]


def test_the_real_life_figure_draws_with_and_without_rows(built):
    spec = next(f for f in FIGURES if f.name == "kor_real_life")
    assert spec.marts == ("marts.kor_real_life_vs_accuracy",)
    rows = dicts(built, "SELECT * FROM marts.kor_real_life_vs_accuracy")
    for given in (rows, []):
        fig = draw_real_life({"marts.kor_real_life_vs_accuracy": given})
        assert fig.axes and fig.axes[0].get_xlabel() == "overall accuracy"
    legend = set(
        draw_real_life({"marts.kor_real_life_vs_accuracy": rows}).axes[0].get_legend_handles_labels()[1]
    )
    assert "the study's models, from its released files" in legend
    assert any(t.startswith("Table 2 (chat") for t in legend)
    assert any(t.startswith("scripted-reasoner") for t in legend)


def test_released_files_are_the_study_s_models_as_table_2_scored_them():
    """The three released models, judged by the paper's judgement, give Table 2's Overall and real-life
    ratio (published.csv) exactly; their readings are filled in."""
    folder = folder_of("korbench/responses")
    if folder is None or not folder.is_dir() or not (KOR / "data").is_dir():
        pytest.skip(f"released responses not found under {KOR}")
    found = read_released(folder, KOR / "data")
    assert len(found.files) == 15 and found.skipped == [] and len(found.rows) == 3750
    for model in ("gpt-4o", "Qwen2.5-7B-Instruct", "Meta-Llama-3.1-8B-Instruct"):
        mine = [r for r in found.rows if r["model"] == model]
        story = [r for r in mine if r["category"] == "counterfactual"]
        assert round(sum(r["correct"] for r in mine) / len(mine), 4) == table2_value(model, "overall")
        real_life = round(sum(r["real_life"] for r in story) / len(story), 4)
        assert real_life == table2_value(model, "counterfactual", "real_life_ratio")
        assert {r["style"] for r in mine} <= set(analysis.STYLES)
        assert all(r["direction"] in ("forward", "inverse") for r in mine if r["category"] == "operation")
    hello = [r for r in found.rows if r["model"] == "Qwen2.5-7B-Instruct" and r["style"] == "placeholder"]
    assert len(hello) >= 26 and all(r["category"] == "cipher" for r in hello)  # §5's "Hello World"


def test_without_released_files_the_step_stores_nothing_and_says_why(tmp_path):
    smoke = get_profile("smoke", "kor")
    out = ReleasedResponses().rows({}, smoke, "", {})
    assert out.rows == [] and out.summary["skipped"] == ["-: no released_dir in the profile"]
    missing = read_released(tmp_path / "nowhere", Path(tmp_path))
    assert missing.rows == [] and "folder not found" in missing.skipped[0][1]
    assert get_profile("paper", "kor").values().released_dir == "korbench/responses"

"""Self-Contra's published numbers (``benchmarks/selfcontra/published.csv``) re-read from the paper text.

The CSV is transcribed data; this test is its trail back to the paper.  It parses Tables 2, 4, 5, 6, 8
and 10 and the numbers of §2.4 (Pearson r, p-values) and §4.2 (human F1) from the seed text
(``<repo>/../shared/seeds/self-contradictory-reasoning.txt``, skipped when absent) on its own, never from
the CSV, and checks that every CSV row names one printed cell with the same text, that every printed
cell has a row, that ``value`` is ``printed`` converted, and that the paper's impossible numbers carry a
note saying so (a share that no whole count over its printed total rounds to; Table 5's two identical
WinoGrande rows; an r that the table it comes from does not give).
"""

from __future__ import annotations

import csv
import math
import re
from collections import Counter
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SEED = REPO.parent / "shared" / "seeds" / "self-contradictory-reasoning.txt"
CSV_PATH = REPO / "relreason_dagster" / "benchmarks" / "selfcontra" / "published.csv"
HEADER = (
    "family,source,model,task,category,dataset,setting,split,n,length,padding,position,"
    "metric,value,printed,note"
).split(",")
# What identifies a cell: the shared key columns this family fills plus its extra columns.
KEY = (
    "source",
    "model",
    "dataset",
    "split",
    "setting",
    "category",
    "type",
    "method",
    "order",
    "annotation",
    "metric",
)

# The paper's labels -> the marts' keys (labels only; every number comes from the text).
DATASET = {"WB": "winobias", "WG": "winogender", "WGr": "winogrande", "Average": "all"}
# Tables 2 and 8 do not name the WinoBias split; the study's released section-2 files ask anti test lines
# only (tests/unit/selfcontra/test_selfcontra_study_items.py), so the rows carry that split (a label, not
# a number).
TABLE2_SPLIT = {"winobias": "anti_test"}
SPLIT = {
    "WB Anti (test)": ("winobias", "anti_test"),
    "WB Pro (test)": ("winobias", "pro_test"),
    "WinoGrande": ("winogrande", ""),
}
CATEGORY = {
    "EM": ("evidence_missing", "type1"),
    "IR": ("incomplete_reasoning", "type1"),
    "QC": ("questionable_cause", "type2"),
    "BQ": ("begging_the_question", "type2"),
    "WCK": ("wrong_context_knowledge", "type2"),
    "SC": ("self_contradictory", ""),
}
TABLE10_CATEGORY = {
    "Evidence Missing": "EM",
    "Incomplete Reasoning": "IR",
    "Questionable Cause": "QC",
    "Begging the Question": "BQ",
    "Wrong Context Knowledge": "WCK",
}
TABLE10_SETTING = {
    "Zero-shot (R)": "zero_reason",
    "Zero-shot (A)": "zero_answer",
    "Few-shot (R)": "few_reason",
    "Few-shot (A)": "few_answer",
}
DETECTION_METHOD = {"I+R$\\rightarrow$O": "iro", "Binary": "binary", "FGE": "fge"}
AGREEMENT = {"Self-Contra": "self_contra", "Type": "type", "Finer-grained": "finer_grained"}
TABLE10_CELL = re.compile(r"(?P<share>\d+(?:\.\d+)?) \((?P<count>\d+)\) / (?P<all>\d+(?:\.\d+)?)")
NUMBER = r"(-?\d+\.\d+)"


def _key(**cells: str) -> tuple[str, ...]:
    return tuple(cells.get(column, "") for column in KEY)


def _table(lines: list[str], caption: str, header: str) -> list[list[str]]:
    """Rows (tab-split) from the last line starting with ``header`` before the line ``<caption>:``."""
    end = next(i for i, line in enumerate(lines) if line.startswith(f"{caption}:"))
    start = max(i for i in range(end) if lines[i].startswith(header))
    return [line.split("\t") for line in lines[start:end] if line.strip()]


def _accuracy_scr(lines: list[str], caption: str, order: str) -> dict[tuple[str, ...], str]:
    """Tables 2 and 8: model / prompt carried down blank cells, one Acc and one SCR line per prompt."""
    header, *body = _table(lines, caption, "Model\tPrompt\tMetrics")
    cells: dict[tuple[str, ...], str] = {}
    model = prompt = ""
    for row in body:
        model, prompt = row[0] or model, row[1] or prompt
        metric = {"Acc": "accuracy", "SCR": "scr"}[row[2]]
        setting = f"{prompt.lower()}_{order}"
        assert len(row) == len(header), row
        for column, printed in zip(header[3:], row[3:], strict=True):
            cells[
                _key(
                    source=caption,
                    model=model,
                    dataset=DATASET[column],
                    split=TABLE2_SPLIT.get(DATASET[column], ""),
                    setting=setting,
                    metric=metric,
                )
            ] = printed
    return cells


def _table5(lines: list[str]) -> tuple[dict[tuple[str, ...], str], list[tuple[str, str, list[str], str]]]:
    header, sub, *body = _table(lines, "Table 5", "Models\tDataset")
    assert "Self-Contra (Type 3)" in header and header[-1] == "Total Count"
    columns = [c for c in sub if c] + ["Type3"]
    cells: dict[tuple[str, ...], str] = {}
    rows: list[tuple[str, str, list[str], str]] = []
    model = ""
    for row in body:
        model = row[0] or model
        shares, total = row[2:-1], row[-1]
        assert len(shares) == len(columns), row
        rows.append((model, row[1], shares, total))
        dataset, split = SPLIT[row[1]]
        base = {
            "source": "Table 5",
            "model": model,
            "dataset": dataset,
            "split": split,
            "setting": "few_answer",
        }
        for column, printed in zip(columns, shares, strict=True):
            category, type_ = CATEGORY[column] if column != "Type3" else ("", "type3")
            cells[_key(**base, category=category, type=type_, metric="share_of_self_contra")] = printed
        cells[_key(**base, metric="n_self_contra")] = total
    return cells, rows


def _table6(lines: list[str]) -> dict[tuple[str, ...], str]:
    _header, sub, *body = _table(lines, "Table 6", "Model\tDataset\tSelf-Contra detection")
    columns = [c for c in sub if c]
    cells: dict[tuple[str, ...], str] = {}
    model = ""
    for row in body:
        model = row[0] or model
        dataset, split = SPLIT[row[1]]
        assert len(row[2:]) == len(columns), row
        for column, printed in zip(columns, row[2:], strict=True):
            method, category = (
                (DETECTION_METHOD[column], "") if column in DETECTION_METHOD else ("fge", column)
            )
            category = CATEGORY[category][0] if category else ""
            key = _key(
                source="Table 6",
                model=model,
                dataset=dataset,
                split=split,
                setting="few_answer",
                category=category,
                method=method,
                metric="f1",
            )
            cells[key] = printed
    return cells


def _table10(lines: list[str]) -> tuple[dict[tuple[str, ...], str], list[tuple[str, str, str, str]]]:
    """Table 10 (GPT-3.5 per Appendix B.2): 'share (count) / share of all' per category and setting."""
    _header, sub, *body = _table(lines, "Table 10", "Method\tCorrect Reasoning")
    columns = [TABLE10_CATEGORY[c] for c in sub if c]
    cells: dict[tuple[str, ...], str] = {}
    shares: list[tuple[str, str, str, str]] = []
    for row in body:
        setting = TABLE10_SETTING[row[0]]
        base = {
            "source": "Table 10",
            "model": "GPT-3.5",
            "dataset": "winobias",
            "split": "anti_test",
            "setting": setting,
        }
        assert len(row[1:]) == len(columns), row
        for column, cell in zip(columns, row[1:], strict=True):
            match = TABLE10_CELL.fullmatch(cell)
            assert match, cell
            category, type_ = CATEGORY[column]
            cells[_key(**base, category=category, type=type_, metric="share_of_type")] = match["share"]
            cells[_key(**base, category=category, type=type_, metric="share_of_all")] = match["all"]
            count_key = _key(**base, type=type_, metric=f"n_{type_}")
            assert cells.setdefault(count_key, match["count"]) == match["count"], cell
            shares.append((setting, column, match["share"], match["count"]))
            shares.append((setting, column, match["all"], "200"))
    return cells, shares


def _text_numbers(text: str, lines: list[str]) -> dict[tuple[str, ...], str]:
    """§2.4's correlation, §4.2's human F1 and Table 4's Krippendorff's alpha."""
    cells: dict[tuple[str, ...], str] = {}
    r, p = re.search(rf"The correlation coefficient and p-value are {NUMBER} and {NUMBER}", text).groups()
    gpt, mistral = re.search(
        rf"Mistral 7B do not share the similar pattern, where the p-values are {NUMBER} and {NUMBER}",
        text,
    ).groups()
    cells[_key(source="§2.4", model="all", order="answer", metric="pearson_r")] = r
    cells[_key(source="§2.4", model="all", order="answer", metric="p_value")] = p
    cells[_key(source="§2.4", model="GPT-3.5", order="answer", metric="p_value")] = gpt
    cells[_key(source="§2.4", model="Mistral 7B", order="answer", metric="p_value")] = mistral
    human = re.search(
        rf"human annotators achieved an average \$F_\{{1\}}\$ score of {NUMBER} on the anti-test", text
    )
    cells[
        _key(
            source="§4.2",
            model="not named",
            dataset="winobias",
            split="anti_test",
            method="human",
            metric="f1",
        )
    ] = human[1]
    header, row = _table(lines, "Table 4", "Category\t")
    for column, printed in zip(header[1:], row[1:], strict=True):
        key = _key(
            source="Table 4",
            model="not named",
            dataset="winobias",
            split="anti_dev",
            annotation=AGREEMENT[column],
            metric="krippendorff_alpha",
        )
        cells[key] = printed
    return cells


def _reachable(printed: str, total: int) -> bool:
    """Whether some whole k in 0..total gives k/total == printed under any usual rounding."""
    places = Decimal(1).scaleb(-len(printed.split(".")[1]))
    modes = (ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_FLOOR, ROUND_CEILING)
    return any(
        (Decimal(k) / Decimal(total)).quantize(places, mode) == Decimal(printed)
        for k in range(total + 1)
        for mode in modes
    )


# App. C's tables: Table 12's column groups and columns, Table 14's rows and column groups.
POV_GROUP = {"Good Reasoning": "good", "Bad Reasoning": "bad"}
POV_ORDER = {"Correct First": "correct_first", "Incorrect First": "incorrect_first", "Total": "all"}
POV_METRIC = {
    "Accuracy": "accuracy",
    "Type 1 Error": "type1_rate",
    "Type 2 Error": "type2_rate",
    "Type 3 Error": "type3_rate",
}
POV_CATEGORY = {
    "BQ": "begging_the_question",
    "QC": "questionable_cause",
    "W-Cont": "wrong_context_knowledge",
    "Incomp": "incomplete_reasoning",
    "Ev-miss": "evidence_missing",
    "Perfect": "perfect",
}
POV_VARIANT = {"Reasoning + Answers": "full", "Yes/No Answers Only": "yes_no"}


def _table12(lines: list[str]) -> dict[tuple[str, ...], str]:
    """Table 12 (App. C): POV reasoning accuracy and type error rates, good / bad reasoning x order."""
    groups_row, columns_row, *body = _table(lines, "Table 12", "\tGood Reasoning")
    groups = [POV_GROUP[g] for g in groups_row if g]
    columns = [c for c in columns_row if c]
    per_group = len(columns) // len(groups)
    cells: dict[tuple[str, ...], str] = {}
    for row in body:
        for i, printed in enumerate(row[1:]):
            key = _key(
                source="Table 12",
                model="not named",
                dataset="winobias",
                split="anti_test",
                category=groups[i // per_group],
                method="pov",
                order=POV_ORDER[columns[i]],
                metric=POV_METRIC[row[0]],
            )
            cells[key] = printed
    return cells


def _table14(lines: list[str]) -> dict[tuple[str, ...], str]:
    """Table 14 (App. C.1): POV diagnostic mean scores per category x variant x order, and each row's size."""
    groups_row, columns_row, *body = _table(lines, "Table 14", "\tSize\t")
    variants = [POV_VARIANT[g] for g in groups_row[2:] if g]
    orders = [POV_ORDER[c] for c in columns_row if c]
    cells: dict[tuple[str, ...], str] = {}
    for row in body:
        base = {"source": "Table 14", "model": "not named", "dataset": "winobias", "method": "pov_diagnostic"}
        category = POV_CATEGORY[row[0]]
        cells[_key(**base, category=category, metric="n_responses")] = row[1]
        for i, printed in enumerate(row[2:]):
            key = _key(
                **base,
                category=category,
                order=orders[i],
                annotation=variants[i // (len(orders) // len(variants))],
                metric="mean_score",
            )
            cells[key] = printed
    return cells


@pytest.fixture(scope="module")
def paper() -> dict[str, object]:
    if not SEED.is_file():
        pytest.skip(f"paper text not found at {SEED}")
    text = SEED.read_text(encoding="utf-8")
    lines = text.splitlines()
    table5, table5_rows = _table5(lines)
    table10, table10_shares = _table10(lines)
    cells = {
        **_accuracy_scr(lines, "Table 2", "answer"),
        **_accuracy_scr(lines, "Table 8", "reason"),
        **table5,
        **_table6(lines),
        **table10,
        **_text_numbers(text, lines),
        **_table12(lines),
        **_table14(lines),
    }
    return {"cells": cells, "table5_rows": table5_rows, "table10_shares": table10_shares}


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    with CSV_PATH.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames[: len(HEADER)] == HEADER
        return list(reader)


def _row_key(row: dict[str, str]) -> tuple[str, ...]:
    return tuple(row.get(column, "") for column in KEY)


def test_the_paper_parses_into_the_expected_tables(paper: dict[str, object]) -> None:
    """Shapes of the printed tables, so a parser that silently drops lines fails here first."""
    per_source = Counter(key[0] for key in paper["cells"])
    assert per_source == {
        "Table 2": 3 * 2 * 2 * 3,  # models x prompts x (Acc, SCR) x datasets
        "Table 8": 3 * 2 * 2 * 4,  # ... x (3 datasets + Average)
        "Table 5": 2 * 3 * (6 + 1),  # models x splits x (6 shares + total)
        "Table 6": 2 * 3 * (3 + 4),  # models x splits x (3 methods + 4 categories)
        "Table 10": 4 * (5 * 2 + 2),  # settings x (5 categories x 2 shares + Type1/Type2 counts)
        "§2.4": 4,
        "Table 4": 3,
        "§4.2": 1,
        "Table 12": 4 * 2 * 3,  # metrics x (good, bad) x (correct first, incorrect first, total)
        "Table 14": 6 * (1 + 2 * 2),  # categories x (size + variants x orders)
    }


def test_every_row_is_a_printed_cell(paper: dict[str, object], rows: list[dict[str, str]]) -> None:
    cells = paper["cells"]
    keys = [_row_key(row) for row in rows]
    assert [k for k, n in Counter(keys).items() if n > 1] == []
    for row, key in zip(rows, keys, strict=True):
        assert row["family"] == "selfcontra"
        assert key in cells, f"no printed cell for {dict(zip(KEY, key, strict=True))}"
        assert row["printed"] == cells[key], f"{dict(zip(KEY, key, strict=True))}: CSV {row['printed']!r}"


def test_every_printed_cell_has_a_row(paper: dict[str, object], rows: list[dict[str, str]]) -> None:
    missing = set(paper["cells"]) - {_row_key(row) for row in rows}
    assert not missing, sorted(missing)[:5]
    assert Counter(row["source"] for row in rows) == Counter(key[0] for key in paper["cells"])


def test_value_is_printed_converted(rows: list[dict[str, str]]) -> None:
    for row in rows:
        printed, value = row["printed"], row["value"]
        if printed == "-":  # the paper's "no such category": no number, a note says why
            assert value == "" and row["note"], row
            continue
        assert float(value) == float(printed), row
        if row["metric"].startswith("n_"):
            assert value == str(int(printed)), row
        elif row["metric"] == "mean_score":  # Table 14: a 1-10 score
            assert 1 <= float(value) <= 10, row
        elif row["metric"] not in ("pearson_r",):
            assert 0 <= float(value) <= 1, row


def test_table6_names_its_judge(rows: list[dict[str, str]]) -> None:
    assert {row["judge"] for row in rows if row["source"] == "Table 6"} == {"GPT-4", "GPT-4-turbo"}


def test_every_row_names_a_model(rows: list[dict[str, str]]) -> None:
    """The loader requires a model; cells of no model (Table 4, §4.2) say so in words and in the note."""
    for row in rows:
        assert row["model"], row
        if row["model"] == "not named":
            assert "does not name the model" in row["note"], row


def test_unreachable_shares_are_flagged(paper: dict[str, object], rows: list[dict[str, str]]) -> None:
    """A share printed over a printed total that no whole count rounds to carries 'cannot be right'."""
    notes = {_row_key(row): row["note"] for row in rows}
    flagged = 0
    for model, label, shares, total in paper["table5_rows"]:
        dataset, split = SPLIT[label]
        mine = [
            row
            for row in rows
            if (row["source"], row["model"], row["dataset"], row["split"], row["metric"])
            == ("Table 5", model, dataset, split, "share_of_self_contra")
        ]
        assert sorted(row["printed"] for row in mine) == sorted(shares)
        for row in mine:
            bad = not _reachable(row["printed"], int(total))
            assert bad == ("cannot be right" in row["note"]), row
            flagged += bad
    for setting, column, printed, total in paper["table10_shares"]:
        category, type_ = CATEGORY[column]
        metric = "share_of_all" if total == "200" else "share_of_type"
        note = notes[
            _key(
                source="Table 10",
                model="GPT-3.5",
                dataset="winobias",
                split="anti_test",
                setting=setting,
                category=category,
                type=type_,
                metric=metric,
            )
        ]
        bad = not _reachable(printed, int(total))
        assert bad == ("cannot be right" in note), (setting, column, printed, total)
        flagged += bad
    assert flagged > 0  # the paper has such cells; a check that finds none has stopped looking


def test_table5_identical_winogrande_rows_are_flagged(
    paper: dict[str, object], rows: list[dict[str, str]]
) -> None:
    grande = {
        model: (shares, total)
        for model, label, shares, total in paper["table5_rows"]
        if label == "WinoGrande"
    }
    (shares_a, total_a), (shares_b, total_b) = grande.values()
    assert shares_a == shares_b and total_a != total_b  # the published error itself
    for row in rows:
        if row["source"] == "Table 5" and row["dataset"] == "winogrande" and row["metric"] != "n_self_contra":
            assert "identical" in row["note"] and total_a in row["note"] and total_b in row["note"], row


def test_pearson_r_does_not_follow_from_table2(paper: dict[str, object], rows: list[dict[str, str]]) -> None:
    """§2.4's r over Table 2's 18 points: recomputed from the printed cells it differs; the note says so."""
    cells = paper["cells"]
    table2 = {k: float(v) for k, v in cells.items() if k[0] == "Table 2"}
    points = [(v, table2[k[:-1] + ("scr",)]) for k, v in table2.items() if k[-1] == "accuracy"]
    assert len(points) == 18
    xs, ys = zip(*points, strict=True)
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in points)
    r = sxy / math.sqrt(sum((x - mx) ** 2 for x in xs) * sum((y - my) ** 2 for y in ys))
    printed = next(row for row in rows if row["source"] == "§2.4" and row["metric"] == "pearson_r")
    assert abs(r - float(printed["printed"])) > 0.005
    assert "cannot both be right" in printed["note"] and f"{r:.3f}" in printed["note"]


def test_tables_2_and_8_count_per_point_is_the_paper_s(rows: list[dict[str, str]]) -> None:
    """``n`` on the Table 2 and 8 rows is §2's sample count per dataset ("each dataset comprising 50
    samples"), read from the text; Table 8's Average pools three datasets and carries none."""
    if not SEED.is_file():
        pytest.skip(f"paper text not found at {SEED}")
    found = re.search(r"each dataset comprising (\d+) samples", SEED.read_text(encoding="utf-8"))
    assert found is not None
    for row in rows:
        if row["source"] in ("Table 2", "Table 8"):
            assert row["n"] == ("" if row["dataset"] == "all" else found.group(1)), row


def test_rows_no_run_can_match_say_why(rows: list[dict[str, str]]) -> None:
    """Table 4 and §4.2 rest on labels nobody released; Table 5's GPT-3.5 WinoGrande shares are Mistral's."""
    not_comparable = {(r["source"], r["model"], r["dataset"]) for r in rows if r["comparable"] == "false"}
    assert not_comparable == {
        ("Table 4", "not named", "winobias"),
        ("§4.2", "not named", "winobias"),
        ("Table 5", "GPT-3.5", "winogrande"),
        ("Table 12", "not named", "winobias"),
        ("Table 14", "not named", "winobias"),
    }
    assert all(r["why_not"] for r in rows if r["comparable"] == "false")
    assert not any(r["why_not"] for r in rows if r["comparable"] != "false")

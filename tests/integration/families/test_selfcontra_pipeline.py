"""Self-Contra end to end with scripted models: annotations imported, every detection method run,
the F1 mart scored against the human labels, and the CLI import/export round trip.

The scripted judge ``yes_judge`` flags everything: it replies "1" to the binary prompt and "yes" to
every FGE probe, and answers the I+R→O re-ask with the first candidate.  So its expected verdicts
follow from the human labels alone: binary and FGE predict Self-Contra on every parsed target
(precision = the human Self-Contra rate, recall = 1), and I+R→O flags exactly the responses whose
original answer was the second candidate.
"""

from __future__ import annotations

import csv
import json
import re

import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.benchmarks.selfcontra.annotations import read_annotation_csv
from tests.fakes.scripted_provider import call_count, register_scripted_provider, reset_calls, set_responder
from tests.pipeline_home import isolated_home, rows
from tests.profile_files import use_profiles

pytestmark = pytest.mark.integration

SOURCE = "wino/selfcontra_annotations/winobias_few_answer_gpt3.5.csv"
LIMIT = 12
PROFILE = "it-selfcontra"
MODELS_YAML = """\
models:
  - name: oracle
    litellm_model: scripted/oracle
    concurrency: 8
  - name: yes_judge
    litellm_model: scripted/yes_judge
    concurrency: 8
"""


def _judge(messages, params):
    text = messages[-1]["content"]
    if text.rstrip().endswith("Type:"):
        return "1"
    if text.rstrip().endswith("Reply:"):
        return "yes"
    first = re.search(r"\b[Tt]he (\w+)", text.split("Question:")[-1])
    return f"The {first.group(1)}." if first else "?"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    source = paths.reference_dir() / SOURCE
    if not source.exists():
        pytest.skip(f"reference annotations not found at {source}; set RELREASON_REFERENCE_DIR")
    root = tmp_path_factory.mktemp("selfcontra")
    mp = pytest.MonkeyPatch()
    isolated_home(mp, root, MODELS_YAML)
    profile = {
        "sources": {"generated": 6},
        "settings": ["zero_answer", "zero_reason", "few_answer", "few_reason"],
        "max_tokens": 64,
        "judge": "yes_judge",
        "detect_methods": ["iro", "binary", "fge"],
        "judge_max_tokens": 4,
        "annotation_files": [SOURCE],
        "annotation_limit": LIMIT,
        "detect_limit": LIMIT,
    }
    use_profiles(mp, root / "profiles.yaml", {PROFILE: {"selfcontra": profile}})
    family = get_family("selfcontra")
    samples = family.generate(profiles.get_profile(PROFILE, "selfcontra"), profiles.DEFAULT_SEED)
    by_id = {s.sample_id: s for s in samples}
    built = family.build_prompts(samples, profiles.get_profile(PROFILE, "selfcontra"))
    gold = {p.messages[-1]["content"]: family.render_gold(by_id[p.sample_id], p.setting) for p in built}
    register_scripted_provider()
    set_responder("oracle", lambda messages, params: gold[messages[-1]["content"]])
    set_responder("yes_judge", _judge)
    yield {"root": root, "n_prompts": len(built), "source": source}
    mp.undo()


def test_detection_f1_against_the_human_labels(home):
    from relreason_dagster.pipeline import run_models

    reset_calls()
    report = run_models(["oracle"], profile=PROFILE)
    assert report.failures == []
    assert report.calls["yes_judge (judge)"]["errors"] == 0
    # One judge, one step per method: the summary adds the methods' calls up (it kept the last one's).
    assert report.calls["yes_judge (judge)"]["model_calls"] == call_count("yes_judge") > 0
    human = read_annotation_csv(home["source"], limit=LIMIT)
    n_sc = sum(r.self_contra for r in human.rows)
    assert rows("SELECT count(*), sum(self_contra::int) FROM raw.annotations") == [(LIMIT, n_sc)]
    scr = rows("SELECT dataset, model, setting, n, scr FROM marts.selfcontra_scr")
    assert scr == [("winobias", "gpt3.5", "few_answer", LIMIT, round(n_sc / LIMIT, 4))]

    f1 = {
        r[0]: r[1:]
        for r in rows(
            "SELECT method, judge, dataset, model, n, n_unparsed, tp, fp, fn, tn, precision, recall "
            "FROM marts.selfcontra_detection_f1"
        )
    }
    assert set(f1) == {"iro", "binary", "fge"}
    for method in ("binary", "fge"):
        judge, dataset, model, n, unparsed, tp, fp, fn, tn, precision, recall = f1[method]
        assert (judge, dataset, model, n, unparsed) == ("yes_judge", "winobias", "gpt3.5", LIMIT, 0)
        assert (tp, fp, fn, tn) == (n_sc, LIMIT - n_sc, 0, 0)
        assert (precision, recall) == (round(n_sc / LIMIT, 4), 1.0)
    # I+R→O flags a response iff its original answer was not the judge's (first) candidate.
    verdicts = rows(
        "SELECT d.self_contra, json_extract(d.probes, '$.original_prediction')::int FROM raw.detections d "
        "WHERE method = 'iro' AND target_kind = 'annotation' AND status = 'ok'"
    )
    assert verdicts and all(flag == (original != 0) for flag, original in verdicts)


def test_own_responses_are_judged_and_reported(home):
    judged = rows(
        "SELECT method, sum(n), min(accuracy), max(judged_scr), sum(n_type2) FROM marts.selfcontra_judged "
        "WHERE model = 'oracle' GROUP BY method ORDER BY method"
    )
    n = home["n_prompts"]
    # The oracle is always right; a judge that sees a wrong category everywhere makes every answer Type2.
    assert [r for r in judged if r[0] != "iro"] == [("binary", n, 1.0, 1.0, n), ("fge", n, 1.0, 1.0, n)]
    iro = rows(
        "SELECT sum(n_judged), sum(n_type1 + n_type2) FROM marts.selfcontra_judged "
        "WHERE model = 'oracle' AND method = 'iro'"
    )
    gold_second = rows(
        "SELECT count(*) FROM raw.parsed_answers WHERE model = 'oracle' AND benchmark = 'selfcontra' "
        "AND parsed::int = 1"
    )
    assert iro == [(n, gold_second[0][0])]


def test_second_run_asks_the_judge_nothing_new(home):
    from relreason_dagster.pipeline import run_models

    report = run_models(["oracle"], profile=PROFILE, run_dbt=False)
    assert report.total_calls == 0
    assert report.calls["yes_judge (judge)"]["model_calls"] == 0


def test_import_and_export_commands(home, capsys, tmp_path):
    from relreason_dagster.cli import main

    assert main(["selfcontra", "import-annotations", str(home["source"]), "--limit", "50", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"] == "imported 1 files (50 rows), skipped 0"
    summary = report["files"]
    assert [(s["model"], s["setting"], s["n"], s["n_correct"], s["n_self_contra"]) for s in summary] == [
        ("gpt3.5", "few_answer", 50, 36, 16)
    ]
    assert "scr" not in summary[0]  # the rate is marts.selfcontra_scr's
    out = tmp_path / "to_annotate.csv"
    assert main(["selfcontra", "export-annotations", str(out), "--model", "oracle"]) == 0
    with out.open(encoding="utf-8-sig") as fh:
        exported = list(csv.DictReader(fh))
    assert len(exported) == home["n_prompts"]
    # A person fills it in: every response right and sound, one flagged as Type2.
    for i, row in enumerate(exported):
        row.update({"accuracy": "1", "self-contra": "1" if i == 0 else "0", "type": "wr" if i == 0 else "rr"})
    with out.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(exported[0]))
        writer.writeheader()
        writer.writerows(exported)
    assert main(["selfcontra", "import-annotations", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "oracle" in printed and "stored" in printed
    linked = rows("SELECT count(*), count(prompt_id) FROM raw.annotations WHERE model = 'oracle'")
    assert linked == [(home["n_prompts"], home["n_prompts"])]


def test_detect_command_reruns_one_method_only(home, capsys):
    from relreason_dagster.cli import main

    others = "SELECT method, count(*) FROM raw.detections WHERE method <> 'binary' GROUP BY 1 ORDER BY 1"
    before = rows(others)
    args = ["selfcontra", "detect", "--profile", PROFILE, "--limit", "4", "--method", "binary"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "selfcontra_detection_f1" in out and "yes_judge" in out
    # Binary verdicts now cover 4 annotated rows per file (+ own responses); other methods are untouched.
    binary = rows(
        "SELECT count(*) FROM raw.detections WHERE method = 'binary' AND target_kind = 'annotation'"
    )
    n_files = rows("SELECT count(DISTINCT source) FROM raw.annotations")[0][0]
    assert binary == [(4 * n_files,)]
    assert rows(others) == before
    assert main(["selfcontra", "detect", "--profile", PROFILE, "--judge", "nobody"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nobody" in err


def test_bad_import_arguments_are_one_line_errors(home, capsys, tmp_path):
    from relreason_dagster.cli import main

    assert main(["selfcontra", "import-annotations", str(tmp_path / "missing.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing.csv" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("foo,bar\n1,2\n")
    assert main(["selfcontra", "import-annotations", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.csv" in err


def test_marts_of_tables_4_5_6_10_and_the_correlation_hold_rows(home, capsys, tmp_path):
    """Acceptance of issue 33 item 3: every reference annotation file imported (first 12 annotated rows
    each), a second annotator's copy of one of them (two flags flipped), and the scripted judge's FGE
    probes; then each mart of Tables 4, 5, 6 and 10, the human detection method and the correlation
    with its p-value per answer order hold rows."""
    from relreason_dagster.cli import main

    folder = home["source"].parent
    files = sorted(str(p) for p in folder.glob("winobias_*.csv"))
    assert len(files) == 12
    assert main(["selfcontra", "import-annotations", *files, "--limit", "12"]) == 0
    with home["source"].open(encoding="utf-8-sig", newline="") as fh:
        records = list(csv.reader(fh))
    header, body = records[0], records[1:13]
    flag = header.index("self-contra")
    for row in body[:2]:
        row[flag] = "0" if row[flag].strip() == "1" else "1"
    second = tmp_path / "second_annotator.csv"
    with second.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([header, *body])
    args = ["selfcontra", "import-annotations", str(second), "--dataset", "winobias", "--model", "gpt3.5"]
    assert main([*args, "--setting", "few_answer"]) == 0
    assert main(["selfcontra", "detect", "--profile", PROFILE, "--limit", "4", "--method", "fge"]) == 0
    capsys.readouterr()

    # The second annotator's labels count once in the rates (the first file's labels win).
    assert rows("SELECT n FROM marts.selfcontra_scr WHERE model = 'gpt3.5' AND setting = 'few_answer'") == [
        (12,)
    ]
    categories = rows(
        "SELECT count(*), count(share_of_type), count(share_of_self_contra) FROM marts.selfcontra_categories"
    )
    assert categories[0][0] > 0 and categories[0][1] > 0 and categories[0][2] > 0
    correlation = rows(
        "SELECT answer_order, n_points, p_value FROM marts.selfcontra_correlation WHERE model = 'all' "
        "ORDER BY answer_order"
    )
    points = rows(
        "SELECT count(*), count(*) FILTER (WHERE setting LIKE '%answer'), "
        "count(*) FILTER (WHERE setting LIKE '%reason') FROM marts.selfcontra_scr WHERE split IS NULL"
    )[0]
    assert points[1] >= 6 and points[2] >= 6  # the 12 reference files: 3 models x 2 prompts per order
    assert [(order, n) for order, n, _ in correlation] == list(
        zip(("all", "answer", "reason"), points, strict=True)
    )
    assert all(p is not None and 0 <= p <= 1 for *_, p in correlation)
    human = rows("SELECT judge, n, fp + fn FROM marts.selfcontra_detection_f1 WHERE method = 'human'")
    assert human == [("second_annotator.csv", 12, 2)]
    agreement = rows(
        "SELECT annotation, n_units, n_disagree FROM marts.selfcontra_agreement ORDER BY annotation"
    )
    assert [a for a, *_ in agreement] == ["finer_grained", "self_contra", "type"]
    assert dict((a, d) for a, _, d in agreement)["self_contra"] == 2
    probes = rows(
        "SELECT category, sum(n) FROM marts.selfcontra_category_detection WHERE judge = 'yes_judge' "
        "GROUP BY category ORDER BY category"
    )
    assert [c for c, _ in probes] == sorted(
        ["begging_the_question", "questionable_cause", "self_contradictory", "wrong_context_knowledge"]
    )
    assert all(n > 0 for _, n in probes)

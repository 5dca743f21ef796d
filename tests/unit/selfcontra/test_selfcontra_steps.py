"""Self-Contra's judge step as plain functions: the prompts it asks and the verdict rows it makes."""

from __future__ import annotations

import pytest

from relreason_dagster.benchmarks.base import Profile, Reply
from relreason_dagster.benchmarks.selfcontra.family import SelfContraFamily
from relreason_dagster.benchmarks.selfcontra.profile_schema import Knobs
from relreason_dagster.benchmarks.selfcontra.steps import JUDGE_KIND, Detection, detection_plan
from relreason_dagster.errors import ConfigError


def _stored(n: int = 3) -> dict[str, list[dict]]:
    family = SelfContraFamily()
    profile = Profile("t", {"sources": {"generated": n}, "settings": ["zero_answer"]}, knobs=Knobs)
    samples = family.generate(profile, 7)
    rows = []
    for sample, prompt in zip(samples, family.build_prompts(samples, profile), strict=True):
        rows.append(
            sample.row()
            | {
                "prompt_id": prompt.prompt_id,
                "model": "m",
                "setting": prompt.setting,
                "parse_status": "ok",
                "correct": True,
                "content": family.render_gold(sample, prompt.setting),
            }
        )
    return {"responses": rows}


def test_binary_judge_asks_one_prompt_per_response_and_reads_its_flag():
    step, stored = Detection(), _stored()
    profile = Profile("t", {"detect_methods": ["binary"], "detect_limit": 0}, knobs=Knobs)
    assert "annotations" not in step.reads("judge", profile)  # limit 0: no annotated rows judged
    asked = step.prompts(stored, profile, "judge", {})
    assert len(asked) == 3 and {p.task for p in asked} == {"binary"}
    assert step.kind == JUDGE_KIND and step.model_knob == "judge"
    replies = {p.prompt_id: Reply("1") for p in asked[:2]} | {asked[2].prompt_id: Reply(None, "timeout")}
    out = step.rows(stored, profile, "judge", replies)
    assert [r["status"] for r in out.rows].count("ok") == 2
    assert {r["judge"] for r in out.rows} == {"judge"} and {r["model"] for r in out.rows} == {"m"}
    assert out.replace_where == "judge = ? AND method IN (?)" and out.replace_params == ["judge", "binary"]
    # Same inputs, same prompt ids: a rerun asks nothing new.
    assert [p.prompt_id for p in step.prompts(stored, profile, "judge", replies)] == [
        p.prompt_id for p in asked
    ]


def test_unknown_method_is_one_line():
    with pytest.raises(ConfigError, match="vibes"):
        detection_plan(Profile("t", {"detect_methods": ["vibes"]}, knobs=Knobs))


def test_detect_settings_picks_the_annotated_responses_the_judge_labels():
    """Table 6 scores Few-shot (A) responses: ``detect_settings: [few_answer]`` (the paper profile) judges
    those annotations only; null judges every setting; our own responses are judged either way."""
    step = Detection()
    annotations = [
        {
            "annotation_id": f"a{i}",
            "source": "f.csv",
            "dataset": "winobias",
            "model": "gpt3.5",
            "setting": setting,
            "question": "Question:The janitor reprimanded the accountant because he erred.who is 'he'?",
            "response": "Answer: the accountant\nReasoning: he erred.",
            "correct": True,
        }
        for i, setting in enumerate(["few_answer", "zero_answer", "few_reason"])
    ]
    stored = _stored(2) | {"annotations": annotations}

    def judged(settings):
        profile = Profile("t", {"detect_methods": ["binary"], "detect_settings": settings}, knobs=Knobs)
        return {p.sample_id for p in step.prompts(stored, profile, "judge", {})}

    responses = {r["prompt_id"] for r in stored["responses"]}
    assert judged(["few_answer"]) == {"a0"} | responses
    assert judged(None) == {"a0", "a1", "a2"} | responses
    assert judged(["zero_answer", "few_reason"]) == {"a1", "a2"} | responses
    with pytest.raises(ConfigError, match="detect_settings"):
        judged(["few_shot"])

"""``ToyFamily``: "is this number even?", answered yes or no; a family of the smallest possible size.

It uses nothing but the family contract (``benchmarks/base.py``): no file outside this folder
knows it, and the pipeline runs it once ``registry.register(ToyFamily())`` has been called.
"""

from __future__ import annotations

import random
import re

from relreason_dagster.benchmarks.base import Parsed, Profile, Prompt, Sample, stable_hash

from .profile_schema import Knobs

BENCHMARK = "toy"
TASK = "parity"
SETTING = "direct"
TEMPLATE_VERSION = "toy-v1"
_ANSWER = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


class ToyFamily:
    """Numbers whose parity is asked; ``n`` of them (profile knob), half even by construction."""

    name: str = BENCHMARK
    tasks: tuple[str, ...] = (TASK,)
    parse_statuses: tuple[str, ...] = ("ok", "na")
    # Its dbt files: tests/toy_family/dbt/ (sources.yml, marts/), linked into the project by the registry.
    marts_folder: str = "toy"
    marts_description: str = "The toy's own mart: answers by the number's parity."

    def generate(self, profile: Profile, seed: int) -> list[Sample]:
        rng = random.Random(seed)
        n = profile.typed(Knobs).n
        numbers = [2 * rng.randrange(500) + (i % 2) for i in range(n)]
        return [
            Sample(
                benchmark=BENCHMARK,
                task=TASK,
                sample_id=stable_hash(BENCHMARK, i, k),
                split="test",
                n=None,
                variant={"index": i},
                input={"number": k},
                gold=k % 2 == 0,
                label=k % 2 == 0,
                seed=seed,
                generator_version="toy-items-v1",
                gold_pos=int(k % 2 == 0),
                n_cells=1,
            )
            for i, k in enumerate(numbers)
        ]

    def build_prompts(self, samples: list[Sample], profile: Profile) -> list[Prompt]:
        return [
            Prompt.for_sample(
                s,
                SETTING,
                [{"role": "user", "content": f"Is {s.input['number']} an even number? Answer yes or no."}],
                TEMPLATE_VERSION,
                profile.typed(Knobs).max_tokens,
            )
            for s in samples
        ]

    def render_gold(self, sample: Sample, setting: str) -> str:
        return "yes" if sample.gold else "no"

    def parse(self, sample: Sample, setting: str, text: str) -> Parsed:
        found = _ANSWER.search(text or "")
        if found is None:
            return Parsed(parse_status="na", n_cells=1, correct=False)
        said = found.group(1).lower() == "yes"
        return Parsed(
            parse_status="ok",
            parsed=said,
            tp=int(said and sample.gold),
            fp=int(said and not sample.gold),
            fn=int(not said and sample.gold),
            pred_pos=int(said),
            n_cells=1,
            correct=said == sample.gold,
        )

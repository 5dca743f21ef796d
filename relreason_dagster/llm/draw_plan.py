"""The requests a run makes: prompts grouped by cache key, one request per draw of ``samples: K``.

Why a module of its own: the plan decides how many calls a run pays for (identical prompts share one
request, draws never do), and the dry run's estimate uses the same plan as the real run, without the
machinery that makes the calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from relreason_dagster.llm.rate_limits import CHARS_PER_TOKEN
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.llm.request_key import canonical_messages, effective_params, hash_payload


@dataclass
class Work:
    """One distinct request; several prompt ids may share it (identical messages)."""

    request_hash: str
    messages: list
    params: dict[str, Any]
    prompt_ids: list[str]
    # Which draw of its prompts this request is (``--samples K``): 0 .. K-1.
    sample_index: int = 0
    # work_size(), once computed (0: not yet); the run's progress adds it up at the start and per answer.
    size: int = 0
    # The request hash of draw 0 of these messages and params: the draws that share it may be asked
    # in one request (a model entry's ``n``, :func:`bundle`).
    group: str = ""


def sort_key(messages: list) -> str:
    """Sort by content so prompts with a shared prefix (few-shot blocks) are adjacent."""
    return "\x00".join(
        f"{m.get('role', '')}\x01{m.get('content', '')}" for m in messages if isinstance(m, dict)
    )


def work_size(work: Work) -> int:
    """A request's share of a run's work, for progress: 1 plus its messages' characters."""
    if not work.size:
        work.size = 1 + sum(len(str(m.get("content", ""))) for m in work.messages if isinstance(m, dict))
    return work.size


def work_tokens(work: Work) -> int:
    """What a request may count against a tokens-per-minute limit: its prompt (chars / 4) and max_tokens."""
    return work_size(work) // CHARS_PER_TOKEN + int(work.params.get("max_tokens") or 0)


def samples_of(prompt: Mapping[str, Any]) -> int:
    """How many draws a prompt asks for (``samples``, default 1)."""
    value = prompt.get("samples") or 1
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"samples must be a positive integer, got {value!r}")
    return value


def draw_hash(spec: ModelEntry, work: Work, k: int) -> str:
    """The request hash of draw ``k`` of ``work``'s messages and params (what :func:`plan_requests`
    gives that draw), for counting draws without listing them."""
    return hash_payload(spec.litellm_model, work.params, spec.api_base, work.messages, k)


def plan_requests(spec: ModelEntry, prompts: Sequence[dict[str, Any]]) -> dict[str, Work]:
    """Group prompts by request hash (one call serves identical requests).

    A prompt with ``samples: K`` is K requests, one per draw, each with its own hash: draws are never
    merged, so K draws at temperature > 0 are K answers, not one cached K times.
    """
    works: dict[str, Work] = {}
    seen_ids: dict[tuple[str, int], str] = {}
    for prompt in prompts:
        prompt_id = str(prompt["prompt_id"])
        messages = canonical_messages(prompt["messages"])
        params = effective_params(spec, prompt.get("max_tokens"), prompt.get("params"))
        group = ""
        for k in range(samples_of(prompt)):
            h = hash_payload(spec.litellm_model, params, spec.api_base, messages, k)
            group = group or h
            previous = seen_ids.get((prompt_id, k))
            if previous is not None:  # the same prompt id twice: the last one wins
                if previous == h:
                    continue
                works[previous].prompt_ids.remove(prompt_id)
                if not works[previous].prompt_ids:
                    del works[previous]
            seen_ids[(prompt_id, k)] = h
            work = works.get(h)
            if work is None:
                works[h] = Work(h, messages, params, [prompt_id], k, group=group)
            else:
                work.prompt_ids.append(prompt_id)
    return works


def bundle(works: Sequence[Work], n: int) -> list[list[Work]]:
    """The requests that answer ``works``: draws of the same messages and params ``n`` to a request.

    Why: a provider that takes the OpenAI API's ``n`` returns n choices for one prompt's tokens, so
    ``--samples K`` costs ⌈K / n⌉ requests per prompt instead of K.  Each draw keeps its own request
    hash (the one it has with one request per draw), so which request answered it never enters the
    cache: a later run with another ``n`` asks only the draws not stored.  Only the draws still to ask
    are bundled (a run that stopped half-way asks the rest, n at a time).  Order: ``works``' order,
    each request where its first draw was, its draws by index.
    """
    if n <= 1:
        return [[work] for work in works]
    groups: dict[str, list[Work]] = {}
    for work in works:
        groups.setdefault(work.group or work.request_hash, []).append(work)
    out = []
    for draws in groups.values():
        draws.sort(key=lambda w: w.sample_index)
        out.extend(draws[i : i + n] for i in range(0, len(draws), n))
    return out

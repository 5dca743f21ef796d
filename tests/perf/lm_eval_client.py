"""lm-evaluation-harness as a client of the fake server: one concurrency level, timed (bench only).

Runs inside ``.venv-lmeval`` (``make bench`` creates it: lm-eval pulls torch,
transformers and datasets, which relreason itself does not need), never in the
project's venv.  It drives lm-eval's own ``local-chat-completions`` model
(``LocalChatCompletion`` with ``num_concurrent``) through ``generate_until``,
the path an lm-eval task takes for a generative benchmark, so the comparison
is with the harness researchers already use.  No task and no dataset is
loaded: the requests are built here, as a task would build them.

Prints one JSON object: version (lm-eval's), prompts, seconds (wall time of ``generate_until``),
cpu_s (this process's CPU time in it), answers (how many came back).

    .venv-lmeval/bin/python tests/perf/lm_eval_client.py --base-url http://127.0.0.1:PORT/v1 \
        --concurrency 8 --prompts 64 --tag child
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import logging
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="the server's /v1 address")
    parser.add_argument("--concurrency", type=int, required=True)
    parser.add_argument("--prompts", type=int, required=True)
    parser.add_argument("--tag", default="lm-eval", help="makes this run's prompts distinct")
    args = parser.parse_args()

    from lm_eval.api.instance import Instance
    from lm_eval.models.api_models import JsonChatStr
    from lm_eval.models.openai_completions import LocalChatCompletion

    logging.getLogger("lm-eval").setLevel(logging.ERROR)
    model = LocalChatCompletion(
        base_url=args.base_url.rstrip("/") + "/chat/completions",
        model="fake",
        num_concurrent=args.concurrency,
        max_retries=1,
        timeout=30,
        tokenizer_backend=None,
        tokenized_requests=False,
    )
    requests = []
    for i in range(args.prompts):
        messages = [{"role": "user", "content": f"lm-eval {args.tag} level {args.concurrency} question {i}"}]
        requests.append(
            Instance(
                request_type="generate_until",
                doc={},
                arguments=(JsonChatStr(json.dumps(messages)), {"until": ["\n\n"], "max_gen_toks": 16}),
                idx=i,
            )
        )
    cpu = time.process_time()
    start = time.perf_counter()
    answers = model.generate_until(requests, disable_tqdm=True)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    print(
        json.dumps(
            {
                "version": importlib.metadata.version("lm_eval"),
                "prompts": args.prompts,
                "seconds": seconds,
                "cpu_s": cpu,
                "answers": sum(1 for a in answers if isinstance(a, str) and a),
            }
        )
    )


if __name__ == "__main__":
    main()

"""Reasoning traces counted with the project's tokenizer, for responses whose provider sent no count.

Why a Python model: ``reasoning_tokens`` is the provider's count (``usage.completion_tokens_details``),
and a model that hands its thinking over as a ``<think>`` block (DeepSeek-R1 distillations, Qwen3 served
raw) sends none.  The marts that set accuracy against reasoning length then count the trace with the
tokenizer the pipeline already uses for prompt lengths (``relreason_dagster/common/tokenizer.py``, a real
vocabulary: a whitespace split is off by 2-3x on the numbers and symbols of these benchmarks), which SQL
cannot do.  The count is an approximation of the model's own (another vocabulary), which is why
``int_reasoning_tokens`` says which count each row has.

Every draw's trace is counted (stg_response_draws: the reasoning marts read all draws of ``--samples
K``).  Keyed by the trace's md5, so identical traces are counted once, and incremental: a build counts
only traces it has not counted before (a paper-sized run's traces are tens of millions of tokens).
"""

import pyarrow as pa


def model(dbt, session):
    dbt.config(materialized="incremental", unique_key="trace_md5")
    traces = (
        dbt.ref("stg_response_draws")
        .filter("reasoning_tokens IS NULL AND trim(coalesce(reasoning, '')) <> ''")
        .project("md5(reasoning) AS trace_md5, reasoning")
        .distinct()
    )
    if dbt.is_incremental:
        traces = traces.filter(f"trace_md5 NOT IN (SELECT trace_md5 FROM {dbt.this})")
    rows = traces.fetchall()
    counts: list[int] = []
    tokenizer = ""
    if rows:
        from relreason_dagster.common.tokenizer import DEFAULT_TOKENIZER, count_tokens

        tokenizer = DEFAULT_TOKENIZER
        counts = [count_tokens(text, tokenizer) for _, text in rows]
    return pa.table(
        {
            "trace_md5": pa.array([md5 for md5, _ in rows], pa.string()),
            "trace_tokens": pa.array(counts, pa.int32()),
            "tokenizer": pa.array([tokenizer] * len(rows), pa.string()),
        }
    )

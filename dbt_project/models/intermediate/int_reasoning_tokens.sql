-- One row per response draw with a reasoning trace (every draw of `--samples K`, draw 0 included: the
-- reasoning marts read them all, issue 55 item 5): how many reasoning tokens it spent.  The provider's
-- count (reasoning_tokens) where it sent one, else the trace counted with the project's tokenizer
-- (int_trace_token_counts); reasoning_tokens_source says which.  cut: the budget stopped the reply
-- (macros/cut.sql).  A response without a trace (a model that does not reason, or one that hides its
-- thinking and sends only a count) is not here: the marts on it set accuracy against thinking that can
-- be read.  A mart whose number is per prompt joins on sample_index = 0.
select r.prompt_id, r.model, r.sample_index,
       coalesce(r.reasoning_tokens, c.trace_tokens) as reasoning_tokens,
       case when r.reasoning_tokens is not null then 'provider' else 'tokenizer' end as reasoning_tokens_source,
       length(r.reasoning) as reasoning_chars,
       r.cut
from {{ ref('stg_response_draws') }} r
left join {{ ref('int_trace_token_counts') }} c on c.trace_md5 = md5(r.reasoning)
where r.succeeded and trim(coalesce(r.reasoning, '')) <> ''

-- Every draw of every (prompt, model) call, draw 0 included: what the reasoning marts read so that K draws
-- of `relreason run --samples K` all count (issue 55, item 5).  Only the columns they need; cut is the
-- shared budget rule (macros/cut.sql).
select prompt_id, model, sample_index, content, finish_reason, error, reasoning, reasoning_tokens,
       error is null as succeeded,
       {{ is_cut() }} as cut
from {{ source('raw', 'response_draws') }}

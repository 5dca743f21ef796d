-- Every relational answer with the study's completeness rule, written once for relational_f1 and the
-- RQ marts.  The study marks a result "N/A if the model cannot generate the complete output array"
-- (§5.2; GPT-4 and the Llama 2 models are left out of Table 2 because their context windows were too
-- small for truth-value prompts).  An answer is incomplete when
--   * max_tokens: the provider cut it at the token limit (finish_reason 'length'), readable or not;
--   * context_overflow: the prompt did not fit the model's context window (a provider error of kind
--     context_length_exceeded: no answer at all, scored F1 0 here rather than left out);
--   * no_complete_output: the parser found no complete answer (parse_status 'na': no 0/1 list of the
--     target's shape in a tv answer, no answer statement in an nl one).
-- Other provider errors (timeouts, HTTP 500) are no answer and stay out, as in answer_scores.  The DLM
-- answers truth-value matrices directly: always complete.  cut is the families' shared rule (macros/cut.sql:
-- finish_reason length, or a trace with no answer); max_tokens above is its first half, kept as the
-- study's N/A rule reads it.
with answered as (
    select s.prompt_id, s.model, s.task, s.split, s.setting, s.sample_id, s.parse_status,
           s.tp, s.fp, s.fn, s.f1, s.detail, s.cut
    from {{ ref('int_answer_scores') }} s
    where s.benchmark = 'relational'
),
overflow as (
    select a.prompt_id, a.model, a.task, a.split, a.setting, a.sample_id, a.parse_status,
           0 as tp, 0 as fp, coalesce(a.gold_pos, 0) as fn, 0.0 as f1, a.detail, a.cut
    from {{ ref('int_answers') }} a
    where a.benchmark = 'relational' and a.parse_status = 'error'
      and (a.detail ->> 'error') like 'context_length_exceeded%'
),
rows as (
    select * from answered
    union all
    select * from overflow
)
select r.prompt_id, r.model, r.task, r.split, r.setting, r.sample_id, r.parse_status,
       r.tp, r.fp, r.fn, r.f1, r.detail, resp.finish_reason, r.cut,
       case
           when r.parse_status = 'error' then 'context_overflow'
           when resp.finish_reason = 'length' then 'max_tokens'
           when r.parse_status = 'na' then 'no_complete_output'
       end as incomplete_reason,
       (r.parse_status in ('error', 'na') or coalesce(resp.finish_reason = 'length', false)) as incomplete
from rows r
left join {{ ref('stg_responses') }} resp on resp.prompt_id = r.prompt_id and resp.model = r.model

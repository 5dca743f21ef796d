{{ config(materialized='view') }}
-- One row per answer to a test prompt, per model (and per baseline answer on a current sample): the prompt's
-- messages, the full response, the gold answer, the parsed answer with its status and the score.
-- The one place answers (int_answers: answer + sample) are joined with their prompt and response:
-- `relreason samples`, `relreason report` and `relreason export` read it.  A view, so a build copies nothing and a new response shows at once.
-- Scores come from answer_scores (one F1 formula); a provider error has no score (f1 and correct NULL).
-- outcome: correct | wrong (readable, not exactly right) | na (unreadable or refused) | error (no answer).
select a.model, a.benchmark, a.task, a.setting, a.split, a.sample_id, a.prompt_id,
       p.messages,
       r.content as response,
       -- A reasoning model's thinking (null for others), kept apart from the answer the parser read.
       r.reasoning,
       r.reasoning_tokens,
       r.error as response_error,
       r.finish_reason,
       -- The model the provider said answered (an alias's snapshot), null for errors and older rows.
       r.served_model,
       -- Stopped by the token or thinking budget (int_answers, macros/cut.sql): `relreason samples --cut`.
       a.cut,
       pr.input_tokens,
       r.completion_tokens,
       a.gold,
       a.parsed,
       a.parse_status,
       sc.correct,
       coalesce(sc.tp, a.tp) as tp,
       coalesce(sc.fp, a.fp) as fp,
       coalesce(sc.fn, a.fn) as fn,
       sc.f1,
       case
           when a.parse_status = 'error' then 'error'
           when a.parse_status <> 'ok' then 'na'
           when sc.correct then 'correct'
           else 'wrong'
       end as outcome,
       a.detail
from {{ ref('int_answers') }} a
-- int_answers holds test prompts' answers only (not the judge's or the self-correction follow-ups'),
-- and a baseline's answers, which have no prompt.
left join {{ ref('stg_prompts') }} pr on pr.prompt_id = a.prompt_id
left join {{ source('raw', 'prompts') }} p on p.prompt_id = a.prompt_id
left join {{ ref('stg_responses') }} r on r.prompt_id = a.prompt_id and r.model = a.model
left join {{ ref('answer_scores') }} sc on sc.prompt_id = a.prompt_id and sc.model = a.model

{#
  is_cut(finish_reason, content, reasoning, error): true when a reply was stopped by the token or
  thinking budget, the one definition every family's accuracy mart counts in n_cut (issue 55, item 3).

  A reply is cut when either
    * the provider says it stopped at its limit: finish_reason 'length'.  Both transports store the
      canonical name (llm/replies.py maps other servers' names, max_tokens, MAX_TOKENS, ..., to it), so
      one value is enough here; or
    * it holds a reasoning trace and no answer: the model spent its budget thinking.  An unclosed
      <think> block is stored so (llm/reasoning.py: all thinking, an empty answer), and so is a server
      that sent the thinking in a field of its own with an empty content.
  A failed call (error set) is no reply and never cut.

  Why one macro, read from the stored rows: the scoring stays as each study counts it (a cut answer is
  unreadable or wrong as before); n_cut only says which of those answers the budget stopped, so a small
  budget's losses are not mixed silently with every other N/A.  Python reads the flag, never the rule:
  int_answers.cut, passed on to answer_scores, the families' int_* answers and marts.sample_results
  (`relreason samples --cut`).  storage/parsed_answers.py's incomplete_answer is the parse-time half of
  the same facts (an empty answer beside a trace, or cut at max_tokens before any answer, is N/A).
#}
{% macro is_cut(finish_reason='finish_reason', content='content', reasoning='reasoning', error='error') -%}
    ({{ error }} is null and (
        coalesce({{ finish_reason }} = 'length', false)
        or (trim(coalesce({{ reasoning }}, '')) <> '' and trim(coalesce({{ content }}, '')) = '')
    ))
{%- endmacro %}

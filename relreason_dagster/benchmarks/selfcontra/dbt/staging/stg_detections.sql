-- A judge's Self-Contra verdicts; status 'unparsed' when the judge's reply named no verdict, 'empty' when
-- the text judged (a response's reasoning trace) was empty and nothing was asked.  raw.detections keeps
-- the text read in its target kind ('trace': one of our responses read on its trace); here the kind is
-- what was judged (annotation or response) and source the text read (answer or trace).
select detection_id, method, judge,
       case when target_kind = 'trace' then 'response' else target_kind end as target_kind,
       case when target_kind = 'trace' then 'trace' else 'answer' end as source,
       target_id, dataset, model, setting, status, self_contra, type, correct, probes, created_at
from {{ source('raw', 'detections') }}

-- A judge's Self-Contra verdicts; status 'unparsed' when the judge's reply named no verdict.
select detection_id, method, judge, target_kind, target_id, dataset, model, setting, status,
       self_contra, type, correct, probes, created_at
from {{ source('raw', 'detections') }}

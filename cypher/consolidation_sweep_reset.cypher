// The decay sweep's schedule starts over for one scope key (its traces predate the schedule,
// or the decay or retention settings changed): every active, awake trace is made due now, at
// most $limit per call (the caller repeats until fewer come back).
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND coalesce(t.dormant, false) = false
  AND coalesce(t.sweepDueAt, 0) <> 1
WITH t LIMIT $limit
SET t.sweepDueAt = 1
RETURN count(t) AS reset

// The decay sweep's schedule starts over for one scope key (its traces predate the schedule,
// or the decay or retention settings changed): every active, awake trace is due now.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND coalesce(t.dormant, false) = false
SET t.sweepDueAt = 1
RETURN count(t) AS reset

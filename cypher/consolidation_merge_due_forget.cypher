// The merge step's bookkeeping starts over for one scope key (other settings, or a full check
// left incomplete): what was due is forgotten before the key's identical content is checked in
// full (consolidation_duplicate_hashes), so a write from now on stays due for the next run.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.mergeDueAt >= 1
SET t.mergeDueAt = null
RETURN count(t) AS forgotten

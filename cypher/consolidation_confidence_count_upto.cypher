// Source-confidence decay: how many active traces of one scope key have a confidence clock at
// most $upto (the index answers; nothing is loaded). The caller widens $upto until it counts
// enough, then reads them (consolidation_confidence_candidates_upto).
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.confidenceClock <= $upto AND t.isActive = true
RETURN count(t) AS n

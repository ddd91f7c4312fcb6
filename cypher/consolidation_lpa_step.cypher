// Cluster fallback, one round of label propagation: each trace takes the label with the most
// edge weight among its neighbours, its own label voting with its strongest edge's weight
// (so a pair never swaps labels forever); ties go to the smallest label. Returns how many changed.
MATCH (t:Trace)-[r:SHARED_ENTITY|SAME_TOPIC|CAUSED_BY]-(n:Trace)
WHERE t.scopeKey = $scopeKey AND n.scopeKey = $scopeKey AND t.isActive = true AND n.isActive = true
  AND t.clusterLabel IS NOT NULL AND n.clusterLabel IS NOT NULL AND r.weight >= $minWeight
WITH t, collect({label: n.clusterLabel, w: r.weight}) AS votes, max(r.weight) AS own
WITH t, votes + [{label: t.clusterLabel, w: own}] AS votes
UNWIND votes AS v
WITH t, v.label AS label, sum(v.w) AS score
ORDER BY score DESC, label
WITH t, collect(label)[0] AS best
WHERE best <> t.clusterLabel
SET t.clusterLabel = best
RETURN count(t) AS changed

// Emotion regulation: the most aroused active traces that are not flashbulb-grade.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND t.arousal > $arousalThreshold
  AND t.encodingStrength < $immuneStrength
RETURN properties(t) AS trace
ORDER BY t.arousal DESC, t.id
LIMIT $limit

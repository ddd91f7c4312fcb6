// Contradictions consolidation settled inside some scope keys, newest first (at most $limit):
// the winner SUPERSEDES the loser with $reason (resolve_contradictions.cypher). Both sides'
// event time and confidence come along, to say why the winner won.
MATCH (w:Trace)-[r:SUPERSEDES]->(l:Trace)
WHERE w.scopeKey IN $scopeKeys AND l.scopeKey IN $scopeKeys AND r.reason = $reason
RETURN w.id AS winner, w.content AS winnerContent, w.createdAt AS winnerCreatedAt,
       w.confidence AS winnerConfidence, l.id AS loser, l.content AS loserContent,
       l.createdAt AS loserCreatedAt, l.confidence AS loserConfidence, r.createdAt AS at
ORDER BY at DESC, winner, loser
LIMIT $limit

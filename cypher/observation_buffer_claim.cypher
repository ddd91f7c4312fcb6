// An observer run claims the buffered turns (oldest first); turns claimed by a run that never
// finished (claimed before $staleBefore) can be claimed again, so no turn is ever lost.
MATCH (t:ConversationTurn)
WHERE t.bufferKey = $bufferKey AND t.scopeKey = $scopeKey
  AND (t.claimedBy IS NULL OR t.claimedAt < $staleBefore)
WITH t ORDER BY t.seq LIMIT $limit
SET t.claimedBy = $runId, t.claimedAt = $now
RETURN t.id AS id, t.role AS role, t.content AS content, t.tokens AS tokens, t.createdAt AS createdAt,
       t.seq AS seq
ORDER BY seq

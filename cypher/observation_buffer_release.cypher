// A failed observer run gives its turns back to the buffer.
MATCH (t:ConversationTurn)
WHERE t.bufferKey = $bufferKey AND t.scopeKey = $scopeKey AND t.claimedBy = $runId
SET t.claimedBy = null, t.claimedAt = null
RETURN count(t) AS released

// Buffer one conversation turn for the observer and report what the buffer then holds unclaimed
// (tokens and turns). `seq` orders the turns of one buffer (agent + conversation).
OPTIONAL MATCH (p:ConversationTurn)
WHERE p.bufferKey = $bufferKey AND p.scopeKey = $scopeKey
WITH coalesce(max(p.seq), 0) + 1 AS seq,
     coalesce(sum(CASE WHEN p.claimedBy IS NULL THEN p.tokens ELSE 0 END), 0) AS pending,
     count(CASE WHEN p IS NOT NULL AND p.claimedBy IS NULL THEN 1 END) AS waiting
CREATE (t:ConversationTurn {id: $id, bufferKey: $bufferKey, scopeKey: $scopeKey, agentId: $agentId,
        role: $role, content: $content, tokens: $tokens, createdAt: $createdAt, recordedAt: $now, seq: seq})
RETURN seq, pending + $tokens AS tokens, waiting + 1 AS turns

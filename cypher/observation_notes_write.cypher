// The observer's notes are stored and the turns they were read from leave the buffer, in one
// statement, and only while this run still holds every turn it claimed (otherwise nothing happens
// and no row comes back). Rows of $notes are complete property maps of ObservationNote nodes.
MATCH (t:ConversationTurn)
WHERE t.id IN $turnIds AND t.scopeKey = $scopeKey AND t.bufferKey = $bufferKey AND t.claimedBy = $runId
WITH collect(t) AS turns
WHERE size(turns) = size($turnIds)
FOREACH (row IN $notes | CREATE (o:ObservationNote) SET o = row)
FOREACH (turn IN turns | DETACH DELETE turn)
RETURN size(turns) AS consumed

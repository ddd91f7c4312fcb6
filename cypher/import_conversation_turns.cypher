// Import: conversation turns buffered for the observer, merged by id; each takes exactly the
// backup's properties (its buffer, scope key and seq included, so the buffer keeps its order).
UNWIND $rows AS row
MERGE (t:ConversationTurn {id: row.id})
SET t = row.props
RETURN count(t) AS written

// Mark traces as present (or not) in the vector index; the repair sweep looks for indexed = false.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
SET t.indexed = $indexed
RETURN count(t) AS updated

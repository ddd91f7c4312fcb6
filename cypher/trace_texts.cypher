// The text of traces by id, only those inside the caller's visible scope keys: what the read
// path's word rules read of its best candidates (whole traces are loaded only for what it returns).
UNWIND $ids AS id
MATCH (t:Trace {id: id})
// (scope tested after the id lookup: FalkorDB folds a WHERE into the id index scan, ~4 µs more per id)
WITH *, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys
RETURN t.id AS id, t.content AS content

// What encoding needs of the existing traces nearest to new ones: their text and its hash
// (contradiction and duplicate checks) and decay state (interference), not the whole trace. Active or not, so the
// caller can tell a retired neighbour from a missing one; only inside the visible scope keys.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
// (scope tested after the id lookup: FalkorDB folds a WHERE into the id index scan, ~4 µs more per id)
WITH *, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys
RETURN t.id AS id, t.content AS content, t.contentHash AS contentHash, t.isActive AS isActive, t.encodingStrength AS encodingStrength,
       t.stability AS stability, t.lastAccessedAt AS lastAccessedAt

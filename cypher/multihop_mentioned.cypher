// Multi-hop retrieval: which of these visible active traces mention one of the query's entities,
// with the keys each mentions. For the read path's results the walk did not reach, the evidence
// path is query -NAMES-> entity -MENTIONS-> trace; a result with neither that nor a walk's path
// is not returned.
UNWIND $ids AS id
MATCH (t:Trace {id: id})-[:MENTIONS]->(e:Entity)
WHERE t.scopeKey IN $scopeKeys AND t.isActive = true AND e.key IN $keys
RETURN t.id AS id, collect(e.key) AS keys

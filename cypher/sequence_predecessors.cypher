// The latest active trace of each conversation (sequence) in the same scope, at or before a
// time and within the TEMPORAL_SEQUENCE window: the turn whose index vector a turn's own is
// chained to (its text stands in when its vector is missing). Same scope only, so a shared
// memory's vector never carries a private turn's words.
// Rows: {id, key, scopeKey, at}; one answer per row, or none when the conversation was quiet.
UNWIND $rows AS row
MATCH (t:Trace {sequenceKey: row.key})
WITH row, t, t.scopeKey AS scopeKey
WHERE scopeKey = row.scopeKey AND scopeKey IN $scopeKeys AND t.isActive = true AND t.id <> row.id
  AND t.createdAt <= row.at AND t.createdAt >= row.at - $windowMs
WITH row, t ORDER BY t.createdAt DESC, t.id DESC
WITH row, collect(t) AS turns
RETURN row.id AS id, turns[0].id AS previousId, turns[0].content AS content

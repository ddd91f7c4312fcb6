// The latest active trace of each conversation (sequence) in the same scope, at or before a
// time and within the TEMPORAL_SEQUENCE window: the turn whose index vector a turn's own is
// chained to (its text stands in when its vector is missing). Same scope only, so a shared
// memory's vector never carries a private turn's words.
// Rows: {id, key, scopeKey, at}; one answer per row, none when the conversation was quiet.
// The time range sits on the MATCH, so the index on the conversation and time reads only
// the window, and the subquery keeps the latest one instead of collecting them all.
UNWIND $rows AS row
CALL {
  WITH row
  MATCH (t:Trace {sequenceKey: row.key})
  WHERE t.createdAt <= row.at AND t.createdAt >= row.at - $windowMs
    AND t.scopeKey = row.scopeKey AND t.scopeKey IN $scopeKeys AND t.isActive = true AND t.id <> row.id
  RETURN t.id AS previousId, t.content AS content
  ORDER BY t.createdAt DESC, t.id DESC
  LIMIT 1
}
RETURN row.id AS id, previousId, content

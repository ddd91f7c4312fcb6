// The latest visible, active trace of each conversation (sequence) at or before a time and
// within the TEMPORAL_SEQUENCE window: the context a new turn is embedded with for the index.
// Rows: {key, at}; one answer per row, or none when the conversation was quiet.
UNWIND $rows AS row
MATCH (t:Trace {sequenceKey: row.key})
WITH row, t, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys AND t.isActive = true
  AND t.createdAt <= row.at AND t.createdAt >= row.at - $windowMs
WITH row, t ORDER BY t.createdAt DESC, t.id DESC
WITH row, collect(t.content) AS contents
RETURN row.key AS key, row.at AS at, contents[0] AS content

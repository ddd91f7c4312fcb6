// Replace a trace's content by its gist — only after its verbatim original was archived, and only
// if the content is still the one that was archived (matching hash). The vector is redone next.
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND t.contentHash = row.expectedHash
SET t += row.props
RETURN t.id AS id

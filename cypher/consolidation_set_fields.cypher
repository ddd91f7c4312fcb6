// Write back what a consolidation-time mechanism changed: rows {id, props} of plain values.
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
WHERE t.scopeKey = $scopeKey
SET t += row.props
RETURN t.id AS id

// Backfill properties an older version did not write ($rows: {id, props}; plain values only).
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
SET t += row.props
RETURN t.id AS id

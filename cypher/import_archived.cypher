// Import: archived verbatim originals with every property they had, merged by trace id.
UNWIND $rows AS row
MERGE (a:ArchivedTrace {traceId: row.traceId})
SET a += row.props
RETURN count(a) AS written

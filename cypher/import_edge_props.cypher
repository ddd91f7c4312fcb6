// Import: restore the exported properties (createdAt, updatedAt, count, ...) of associative
// edges that merge_edges has just created; the type is compared as a value, never spliced.
UNWIND $rows AS row
MATCH (a:Trace {id: row.src})-[r]->(b:Trace {id: row.dst})
WHERE type(r) = row.type
SET r += row.props
RETURN count(r) AS written

// Import: SCHEMA_INSTANCE edges from traces to schemas, with their exported properties.
UNWIND $rows AS row
MATCH (t:Trace {id: row.src})
MATCH (s:Schema {id: row.dst})
MERGE (t)-[r:SCHEMA_INSTANCE]->(s)
SET r += row.props
RETURN count(r) AS written

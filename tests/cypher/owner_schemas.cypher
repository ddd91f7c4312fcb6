// Owner view, tests only: every schema with its members, whatever its scope.
MATCH (t:Trace)-[:SCHEMA_INSTANCE]->(s:Schema)
WITH s, collect(t.id) AS members
RETURN s.scopeKey AS scopeKey, s.summary AS summary, s.size AS size, members

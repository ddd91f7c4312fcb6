// Owner view, tests only: every relationship between two traces, with its type and weight.
MATCH (a:Trace)-[r]->(b:Trace)
RETURN a.id AS src, b.id AS dst, type(r) AS type, r.weight AS weight

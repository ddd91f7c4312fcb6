// Which Graph Data Science community procedures this Neo4j has (none: the Cypher fallback runs).
SHOW PROCEDURES YIELD name
WHERE name IN $names
RETURN collect(name) AS names

// Entities mentioned by traces inside the scopes (or every entity when null).
MATCH (t:Trace)-[:MENTIONS]->(e:Entity)
WHERE $scopeKeys IS NULL OR t.scopeKey IN $scopeKeys
RETURN count(DISTINCT e) AS n

// Create or update traces from full property rows, one round trip per batch.
// The type label (Episodic, Semantic, ...) mirrors t.type so Neo4j Browser colours each kind.
UNWIND $rows AS row
MERGE (t:Trace {id: row.id})
SET t += row
FOREACH (_ IN CASE WHEN row.type = 'episodic' THEN [1] ELSE [] END | SET t:Episodic)
FOREACH (_ IN CASE WHEN row.type <> 'episodic' THEN [1] ELSE [] END | REMOVE t:Episodic)
FOREACH (_ IN CASE WHEN row.type = 'semantic' THEN [1] ELSE [] END | SET t:Semantic)
FOREACH (_ IN CASE WHEN row.type <> 'semantic' THEN [1] ELSE [] END | REMOVE t:Semantic)
FOREACH (_ IN CASE WHEN row.type = 'procedural' THEN [1] ELSE [] END | SET t:Procedural)
FOREACH (_ IN CASE WHEN row.type <> 'procedural' THEN [1] ELSE [] END | REMOVE t:Procedural)
FOREACH (_ IN CASE WHEN row.type = 'prospective' THEN [1] ELSE [] END | SET t:Prospective)
FOREACH (_ IN CASE WHEN row.type <> 'prospective' THEN [1] ELSE [] END | REMOVE t:Prospective)
FOREACH (_ IN CASE WHEN row.type = 'relational' THEN [1] ELSE [] END | SET t:Relational)
FOREACH (_ IN CASE WHEN row.type <> 'relational' THEN [1] ELSE [] END | REMOVE t:Relational)
RETURN count(t) AS written

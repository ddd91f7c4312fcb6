// Move existing traces whose type changed (e.g. episodic compacted to semantic) to their new
// type label. Only changed traces are touched: setting a label on an existing node is slow.
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
WHERE t.type <> row.type
SET t.type = row.type
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
RETURN count(t) AS retyped

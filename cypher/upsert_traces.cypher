// Create or update traces of one memory type from full property rows, one round trip per batch.
// The type label (Episodic, Semantic, ...) comes from the MemoryType enum and mirrors t.type,
// so Neo4j Browser colours each kind. Creating the node with both labels keeps ingest fast.
UNWIND $rows AS row
MERGE (t:Trace:__TYPE_LABEL__ {id: row.id})
SET t += row
RETURN count(t) AS written

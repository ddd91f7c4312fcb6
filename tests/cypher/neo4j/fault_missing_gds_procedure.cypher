// Fault, tests only: a GDS procedure, sent to a Neo4j without the GDS plugin, which answers
// that no procedure of that name is registered (Neo.ClientError.Procedure.ProcedureNotFound).
CALL gds.graph.list() YIELD graphName
RETURN count(graphName) AS graphs

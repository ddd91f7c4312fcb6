// Remove every node, a page at a time (tests, and imports that replace a store), once
// clear_page_relationships has removed the relationships: the caller repeats it until it
// deletes nothing, since one DETACH DELETE of a large store outgrows a server's transaction
// memory (Neo4j's at 50k traces on a 1 GB heap).
MATCH (n)
WITH n
LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted

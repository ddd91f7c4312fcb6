// Remove every relationship, a page at a time (`clear`, before clear_page): a page of nodes
// whose relationships go with them can outgrow a server's transaction memory when a node is a
// hub (an entity many memories mention, a big store's traces with their edges: 10,000 nodes of
// a 100k-trace store did on Neo4j with a 1 GB heap).
MATCH ()-[r]->()
WITH r
LIMIT $limit
DELETE r
RETURN count(*) AS deleted

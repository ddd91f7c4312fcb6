// Fault, tests only: a call Neo4j parses and then refuses while it runs (the fulltext index
// $index does not exist): the server answers with a Neo.ClientError code and its message, which
// the library must raise as GraphQueryError, without sending it again.
CALL db.index.fulltext.queryNodes($index, $query) YIELD node
RETURN count(node) AS n

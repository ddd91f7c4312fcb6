// Several lexical lookups in one statement (the write path's contradiction candidates of a
// batch): each row's RediSearch query over trace content, filtered to its visible active
// traces, best first, at most $limit per row. Rows: {i, query, scopeKeys}.
UNWIND $rows AS row
CALL {
  WITH row
  CALL db.idx.fulltext.queryNodes('Trace', row.query) YIELD node, score
  WHERE node.scopeKey IN row.scopeKeys AND node.isActive = true
  RETURN node.id AS id, score
  ORDER BY score DESC, id
  LIMIT $limit
}
RETURN row.i AS i, id, score

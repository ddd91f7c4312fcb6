// Lexical candidates: Lucene query over trace content, filtered to visible active traces.
CALL db.index.fulltext.queryNodes('trace_content', $query) YIELD node, score
WHERE node.scopeKey IN $scopeKeys AND node.isActive = true
RETURN node.id AS id, score
ORDER BY score DESC, id
LIMIT $limit

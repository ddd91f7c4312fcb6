// Lexical candidates: RediSearch query over trace content, filtered to visible active traces.
CALL db.idx.fulltext.queryNodes('Trace', $query) YIELD node, score
WHERE node.scopeKey IN $scopeKeys AND node.isActive = true
RETURN node.id AS id, score
ORDER BY score DESC, id
LIMIT $limit

// Export (a whole store, or the scopes in $scopeKeys when it is not null): the outgoing relationships of a page of traces (ids above $after, in
// id order) to other traces and to schemas, with all their properties. MENTIONS are exported
// by export_mentions.
MATCH (t:Trace)
WHERE t.id > $after AND ($scopeKeys IS NULL OR t.scopeKey IN $scopeKeys)
WITH t ORDER BY t.id LIMIT $limit
OPTIONAL MATCH (t)-[r]->(b)
WHERE (b:Trace OR b:Schema) AND ($scopeKeys IS NULL OR b.scopeKey IN $scopeKeys)
WITH t.id AS id, collect(CASE WHEN r IS NULL THEN NULL ELSE {type: type(r), dst: b.id, props: properties(r)} END) AS edges
RETURN id, edges
ORDER BY id

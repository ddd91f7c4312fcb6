// A scope key's schemas (the write path's centroids on every encode, multi-hop's community
// summaries) are sought by scope key, not read from every tenant's schemas.
CREATE INDEX schema_scope IF NOT EXISTS FOR (s:Schema) ON (s.scopeKey)

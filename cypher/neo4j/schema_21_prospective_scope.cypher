CREATE INDEX prospective_scope IF NOT EXISTS FOR (p:Prospective) ON (p.scopeKey)

CREATE INDEX FOR (c:ConsolidationState) ON (c.scopeKey)

CREATE INDEX trace_scope IF NOT EXISTS FOR (t:Trace) ON (t.scopeKey)

CREATE INDEX trace_recorded IF NOT EXISTS FOR (t:Trace) ON (t.scopeKey, t.recordedAt)

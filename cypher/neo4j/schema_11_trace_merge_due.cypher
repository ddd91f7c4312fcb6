CREATE INDEX trace_merge_due IF NOT EXISTS FOR (t:Trace) ON (t.scopeKey, t.mergeDueAt)

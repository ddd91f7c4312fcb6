CREATE INDEX trace_indexed IF NOT EXISTS FOR (t:Trace) ON (t.indexed)

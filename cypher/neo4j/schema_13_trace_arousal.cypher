CREATE INDEX trace_arousal IF NOT EXISTS FOR (t:Trace) ON (t.scopeKey, t.arousal)

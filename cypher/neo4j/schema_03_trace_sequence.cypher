CREATE INDEX trace_sequence IF NOT EXISTS FOR (t:Trace) ON (t.sequenceKey)

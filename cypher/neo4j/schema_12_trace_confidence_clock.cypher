CREATE INDEX trace_confidence_clock IF NOT EXISTS FOR (t:Trace) ON (t.scopeKey, t.confidenceClock)

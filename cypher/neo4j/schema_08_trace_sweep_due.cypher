CREATE INDEX trace_sweep_due IF NOT EXISTS FOR (t:Trace) ON (t.scopeKey, t.sweepDueAt)

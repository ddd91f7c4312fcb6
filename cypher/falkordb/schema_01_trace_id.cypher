CREATE INDEX FOR (t:Trace) ON (t.id)

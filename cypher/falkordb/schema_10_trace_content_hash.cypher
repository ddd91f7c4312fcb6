CREATE INDEX FOR (t:Trace) ON (t.contentHash)

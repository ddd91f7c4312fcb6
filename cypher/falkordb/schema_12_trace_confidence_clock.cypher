CREATE INDEX FOR (t:Trace) ON (t.confidenceClock)

CREATE INDEX FOR (t:Trace) ON (t.arousal)

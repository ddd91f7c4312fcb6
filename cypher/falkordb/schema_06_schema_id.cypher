CREATE INDEX FOR (s:Schema) ON (s.id)

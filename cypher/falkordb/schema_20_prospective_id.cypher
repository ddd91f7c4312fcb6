CREATE INDEX FOR (p:Prospective) ON (p.id)

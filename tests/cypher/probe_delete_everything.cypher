// Test probe: what an intruder would run to destroy the memory, every node deleted.
MATCH (n) DETACH DELETE n

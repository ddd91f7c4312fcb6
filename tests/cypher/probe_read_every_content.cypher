// Test probe: what an intruder would read first, every node's content.
MATCH (n) RETURN n.content

// Remove everything (tests, and imports that replace a store).
MATCH (n) DETACH DELETE n

// Empty the database a page at a time: one DETACH DELETE of a big store outgrows a server's
// transaction memory (the library's clear_all did at 50k traces on a 1 GB heap).
MATCH (n)
WITH n
LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted

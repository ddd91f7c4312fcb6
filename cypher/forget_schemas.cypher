// Hard delete: schemas that had a forgotten trace as a member (their summary may quote it);
// the next consolidation builds schemas again from the members that remain.
MATCH (s:Schema)
WHERE s.id IN $schemaIds AND s.scopeKey IN $scopeKeys
DETACH DELETE s
RETURN count(s) AS deleted

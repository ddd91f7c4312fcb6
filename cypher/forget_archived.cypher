// Hard delete: the archived verbatim originals of forgotten traces.
MATCH (a:ArchivedTrace)
WHERE a.traceId IN $ids AND a.scopeKey IN $scopeKeys
DETACH DELETE a
RETURN count(a) AS deleted

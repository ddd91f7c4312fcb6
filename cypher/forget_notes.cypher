// Hard delete: the observation notes forgotten traces were reflected from.
MATCH (o:ObservationNote)
WHERE o.scopeKey IN $scopeKeys AND any(x IN coalesce(o.traceIds, []) WHERE x IN $ids)
DETACH DELETE o
RETURN count(o) AS deleted

// Hard delete: the traces themselves, with every relationship (associative edges, mentions,
// schema memberships).
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WITH t, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys
DETACH DELETE t
RETURN count(t) AS deleted

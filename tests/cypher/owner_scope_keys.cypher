// Owner view, tests only: the scope key of each given trace id, without loading its content.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
RETURN t.id AS id, t.scopeKey AS scopeKey

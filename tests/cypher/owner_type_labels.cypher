// Owner view, tests only: the labels of the given traces besides Trace (their type label, which
// Neo4j Browser colours by). Deliberately unscoped; the library never runs it.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
RETURN t.id AS id, [label IN labels(t) WHERE label <> 'Trace'] AS labels

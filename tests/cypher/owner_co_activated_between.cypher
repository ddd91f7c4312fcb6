// Owner view, tests only: the CO_ACTIVATED relationships between two traces, either direction.
MATCH (:Trace {id: $a})-[r:CO_ACTIVATED]-(:Trace {id: $b})
RETURN r.weight AS weight, r.count AS count

// Owner view, tests only: how many Entity nodes share each key (concurrent MERGE must keep one).
MATCH (e:Entity)
RETURN e.key AS key, count(e) AS n

// SHARED_ENTITY, step 1 of 2: for each entity the given traces mention, those traces and
// the entity's most recent visible active traces — as many as one trace links to plus the
// given traces that mention it, so each trace's picks are among them. One walk per entity
// and batch: walking from every new trace re-read a popular entity's every mention once
// for each new trace that names it.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WITH t
MATCH (t)-[:MENTIONS]->(e:Entity)
WITH e, collect(t.id) AS traces
MATCH (e)<-[:MENTIONS]-(o:Trace)
WHERE o.isActive = true AND o.scopeKey IN $scopeKeys
WITH e, traces, o ORDER BY o.createdAt DESC, o.id DESC
WITH e, traces, collect(o.id) AS recent
RETURN traces, recent[0..$maxLinks + size(traces)] AS recent

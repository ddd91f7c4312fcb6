// SHARED_ENTITY, step 1 of 2: for each entity the given traces mention, those traces and
// the entity's most recent visible active traces — as many as one trace links to plus the
// given traces that mention it, so each trace's picks are among them. One walk per entity
// and batch: walking from every new trace re-read a popular entity's every mention once
// for each new trace that names it. The subquery keeps the newest $newest (the most links
// plus the batch's size, never fewer than needed), so a popular entity's mentions are
// ranked, not all collected and sorted.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WITH t
MATCH (t)-[:MENTIONS]->(e:Entity)
WITH e, collect(t.id) AS traces
CALL {
  WITH e
  MATCH (e)<-[:MENTIONS]-(o:Trace)
  WHERE o.isActive = true AND o.scopeKey IN $scopeKeys
  RETURN o.id AS other
  ORDER BY o.createdAt DESC, o.id DESC
  LIMIT $newest
}
WITH e, traces, collect(other) AS recent
RETURN traces, recent[0..$maxLinks + size(traces)] AS recent

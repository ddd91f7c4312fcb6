// One hop of spreading activation. Each frontier row is a path that reached `id` from `prev`
// with `activation`; it moves one edge further (never straight back to where it came from),
// carrying activation x edge weight x decay. Paths that fall below the threshold stop here.
// `$wide` rows follow every associative edge; `$narrow` rows are paths too weak for even the
// heaviest SHARED_ENTITY / TEMPORAL_SEQUENCE edge (EdgeDefaults.structural_weight_ceiling) to
// keep above the threshold, so they skip those two types, most of the graph's edges.
// strongestLink (an upper bound of a trace's other edge weights, null when unknown) lets the
// caller drop, before the next hop, the narrow paths that no edge could carry further.
// Both ends of every step must be active traces inside the visible scopes (tested after the
// weight, which discards most edges more cheaply: ~20% faster on a 10k graph). The caller sums
// the paths per trace over the hops (capped at 1): one round trip per hop, so a dense graph
// costs the paths that survive the threshold, not every path up to the maximum depth.
// Each row also carries the reached trace's ranking fields and lead (as trace_vitals reads
// them), so a retrieval never reads them again for the traces activation brings in.
UNWIND $wide AS f
MATCH (n:Trace {id: f.id})-[r:SHARED_ENTITY|TEMPORAL_SEQUENCE|SAME_TOPIC|CONTRADICTS|SUPERSEDES|CAUSED_BY|CO_ACTIVATED]-(m:Trace)
WHERE f.activation * r.weight * $decay >= $threshold
  AND n.scopeKey IN $scopeKeys AND n.isActive = true
  AND m.scopeKey IN $scopeKeys AND m.isActive = true
  AND m.id <> f.prev
WITH f, n, r, m, split(m.content, ': ')[0] AS opening
RETURN m.id AS id, n.id AS prev, f.activation * r.weight * $decay AS activation,
       m.indexed AS indexed, m.encodingStrength AS encodingStrength, m.stability AS stability,
       m.lastAccessedAt AS lastAccessedAt, m.valence AS valence, m.confidence AS confidence,
       m.createdAt AS createdAt, m.entities AS entities, m.tags AS tags, m.strongestLink AS strongestLink,
       coalesce(m.dormant, false) AS dormant, m.recordedAt AS recordedAt, m.validFrom AS validFrom,
       m.validUntil AS validUntil, CASE WHEN size(opening) <= $leadChars THEN opening END AS lead,
       size(opening) = size(m.content) AS leadIsWhole
UNION ALL
UNWIND $narrow AS f
MATCH (n:Trace {id: f.id})-[r:SAME_TOPIC|CONTRADICTS|SUPERSEDES|CAUSED_BY|CO_ACTIVATED]-(m:Trace)
WHERE f.activation * r.weight * $decay >= $threshold
  AND n.scopeKey IN $scopeKeys AND n.isActive = true
  AND m.scopeKey IN $scopeKeys AND m.isActive = true
  AND m.id <> f.prev
WITH f, n, r, m, split(m.content, ': ')[0] AS opening
RETURN m.id AS id, n.id AS prev, f.activation * r.weight * $decay AS activation,
       m.indexed AS indexed, m.encodingStrength AS encodingStrength, m.stability AS stability,
       m.lastAccessedAt AS lastAccessedAt, m.valence AS valence, m.confidence AS confidence,
       m.createdAt AS createdAt, m.entities AS entities, m.tags AS tags, m.strongestLink AS strongestLink,
       coalesce(m.dormant, false) AS dormant, m.recordedAt AS recordedAt, m.validFrom AS validFrom,
       m.validUntil AS validUntil, CASE WHEN size(opening) <= $leadChars THEN opening END AS lead,
       size(opening) = size(m.content) AS leadIsWhole

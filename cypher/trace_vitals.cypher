// What ranking needs of each retrieval candidate, without loading whole traces: the
// decay state, mood and trust signals, what a feeling-of-knowing hint shows, and the text up
// to its first ": " when that is at most $leadChars characters (who spoke a chat turn;
// leadIsWhole: the text has no ": "). split, not substring: a cut could split a character.
// Only active, indexed traces inside the caller's visible scope keys.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
// (scope tested after the id lookup: FalkorDB folds a WHERE into the id index scan, ~4 µs more per id)
WITH *, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys AND t.isActive = true AND t.indexed = true
WITH t, split(t.content, ': ')[0] AS opening
RETURN t.id AS id, t.encodingStrength AS encodingStrength, t.stability AS stability,
       t.lastAccessedAt AS lastAccessedAt, t.valence AS valence, t.confidence AS confidence,
       t.createdAt AS createdAt, t.entities AS entities, t.tags AS tags,
       coalesce(t.dormant, false) AS dormant, coalesce(t.category, 'other') AS category,
       coalesce(t.pinned, false) AS pinned, t.recordedAt AS recordedAt, t.validFrom AS validFrom,
       t.validUntil AS validUntil, CASE WHEN size(opening) <= $leadChars THEN opening END AS lead,
       size(opening) = size(t.content) AS leadIsWhole

// One page of the caller's memories that pass a MemoryFilter (cogmem_graph/filters.py), in
// event-time order ($newestFirst) with the trace id as tie-break, after a keyset cursor
// ($afterTime, $afterId: the last row of the previous page), so pages stay stable while
// memories are written. The WHERE below is the shared filter; memory_filter_ids.cypher
// holds the same text. The page is cut (ORDER BY, LIMIT) before the properties are read, so
// only the page's rows are materialised, not every match.
MATCH (t:Trace)
WHERE t.scopeKey IN $scopeKeys
  AND ($afterTime IS NULL
       OR ($newestFirst AND (t.createdAt < $afterTime OR (t.createdAt = $afterTime AND t.id > $afterId)))
       OR (NOT $newestFirst AND (t.createdAt > $afterTime OR (t.createdAt = $afterTime AND t.id > $afterId))))
WITH t, CASE
    WHEN coalesce(t.deactivatedReason, '') STARTS WITH $fSupersededPrefix THEN 'superseded'
    WHEN t.isActive = false THEN 'inactive'
    WHEN coalesce(t.dormant, false) THEN 'dormant'
    ELSE 'active' END AS state
WHERE ($fStates IS NULL OR state IN $fStates)
  AND ($fTypes IS NULL OR t.type IN $fTypes)
  AND ($fTagsAny IS NULL OR any(x IN $fTagsAny WHERE x IN coalesce(t.tags, [])))
  AND ($fTagsAll IS NULL OR all(x IN $fTagsAll WHERE x IN coalesce(t.tags, [])))
  AND ($fSourceTypes IS NULL OR t.sourceType IN $fSourceTypes)
  AND ($fCreatedFrom IS NULL OR t.createdAt >= $fCreatedFrom)
  AND ($fCreatedTo IS NULL OR t.createdAt < $fCreatedTo)
  AND ($fValidTo IS NULL OR coalesce(t.validFrom, t.createdAt) < $fValidTo)
  AND ($fValidFrom IS NULL OR t.validUntil IS NULL OR t.validUntil > $fValidFrom)
  AND all(c IN $fMetaIn WHERE any(p IN c WHERE p IN coalesce(t.metaPairs, [])))
  AND all(r IN $fMetaNum WHERE any(i IN range(0, size(coalesce(t.metaNumKeys, [])) - 1)
      WHERE t.metaNumKeys[i] = r.key
        AND (r.gte IS NULL OR t.metaNumValues[i] >= r.gte) AND (r.gt IS NULL OR t.metaNumValues[i] > r.gt)
        AND (r.lte IS NULL OR t.metaNumValues[i] <= r.lte) AND (r.lt IS NULL OR t.metaNumValues[i] < r.lt)))
  AND all(r IN $fMetaText WHERE any(i IN range(0, size(coalesce(t.metaTextKeys, [])) - 1)
      WHERE t.metaTextKeys[i] = r.key
        AND (r.gte IS NULL OR t.metaTextValues[i] >= r.gte) AND (r.gt IS NULL OR t.metaTextValues[i] > r.gt)
        AND (r.lte IS NULL OR t.metaTextValues[i] <= r.lte) AND (r.lt IS NULL OR t.metaTextValues[i] < r.lt)))
  AND ($fEntityKeys IS NULL OR any(k IN coalesce(t.entityKeys, []) WHERE k IN $fEntityKeys))
WITH t, state
ORDER BY CASE WHEN $newestFirst THEN -t.createdAt ELSE t.createdAt END, t.id
LIMIT $limit
RETURN properties(t) AS trace, state

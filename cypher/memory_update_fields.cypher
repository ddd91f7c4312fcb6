// Edit a memory in place (tags, metadata with its derived filter lists, pinned): what is
// not a new statement of the memory is not a new version. Null leaves a field as it is.
// sweepDueAt = 1: the change may bring the trace's forgetting closer, so the decay sweep reads it
// again (consolidation_sweep_schedule); mergeDueAt = 1: unpinned, it may now merge with its exact
// duplicates (consolidation_duplicate_hashes_due).
MATCH (t:Trace {id: $id})
WITH t, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys
SET t.tags = coalesce($tags, t.tags),
    t.metadata = coalesce($metadata, t.metadata),
    t.metaPairs = coalesce($metaPairs, t.metaPairs),
    t.metaNumKeys = coalesce($metaNumKeys, t.metaNumKeys),
    t.metaNumValues = coalesce($metaNumValues, t.metaNumValues),
    t.metaTextKeys = coalesce($metaTextKeys, t.metaTextKeys),
    t.metaTextValues = coalesce($metaTextValues, t.metaTextValues),
    t.pinned = coalesce($pinned, t.pinned),
    t.dormant = CASE WHEN $pinned = true THEN false ELSE t.dormant END,
    t.updatedAt = $now, t.updatedBy = $by, t.sweepDueAt = 1, t.mergeDueAt = 1
RETURN properties(t) AS trace

// Remember something about one scope key between consolidation runs ($props: plain values).
MERGE (s:ConsolidationState {scopeKey: $scopeKey})
SET s += $props, s.updatedAt = $now
RETURN s.scopeKey AS scopeKey

// A trace as rehydration needs it when no archive exists: its content and whether it was gisted.
MATCH (t:Trace {id: $traceId})
WHERE $scopeKeys IS NULL OR t.scopeKey IN $scopeKeys
RETURN t.content AS content, t.gistedAt AS gistedAt

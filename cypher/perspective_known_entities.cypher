// Which of an event's entities a witness already relates to: entities its visible, active
// memories mention.
UNWIND $keys AS key
MATCH (e:Entity {key: key})<-[:MENTIONS]-(t:Trace)
WHERE t.scopeKey IN $scopeKeys AND t.isActive = true
RETURN DISTINCT e.key AS key

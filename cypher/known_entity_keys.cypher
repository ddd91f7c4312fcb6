// The write path: which of these entity keys the caller's visible active memories already
// mention, so a name that merely starts a sentence ("Biscuit has an allergy") is kept as the
// name it is. Entities are shared between tenants: only the caller's own mentions count.
// One mention is enough: the subquery stops at the first, where matching every mention and
// keeping distinct keys read a popular entity's every mention (its cost grew with the store).
UNWIND $keys AS key
MATCH (e:Entity {key: key})
CALL {
  WITH e
  MATCH (e)<-[:MENTIONS]-(t:Trace)
  WHERE t.scopeKey IN $scopeKeys AND t.isActive = true
  RETURN t.id AS mentionedBy
  LIMIT 1
}
RETURN DISTINCT e.key AS key

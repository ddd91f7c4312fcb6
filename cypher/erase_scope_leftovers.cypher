// Erase: what of some scopes is not a trace — reminders, observation notes, buffered turns,
// archived originals, schemas and consolidation's state — deleted in one statement.
CALL {
  MATCH (p:Prospective) WHERE p.scopeKey IN $scopeKeys DETACH DELETE p RETURN count(*) AS n
  UNION ALL
  MATCH (o:ObservationNote) WHERE o.scopeKey IN $scopeKeys DETACH DELETE o RETURN count(*) AS n
  UNION ALL
  MATCH (c:ConversationTurn) WHERE c.scopeKey IN $scopeKeys DETACH DELETE c RETURN count(*) AS n
  UNION ALL
  MATCH (a:ArchivedTrace) WHERE a.scopeKey IN $scopeKeys DETACH DELETE a RETURN count(*) AS n
  UNION ALL
  MATCH (s:Schema) WHERE s.scopeKey IN $scopeKeys DETACH DELETE s RETURN count(*) AS n
  UNION ALL
  MATCH (c:ConsolidationState) WHERE c.scopeKey IN $scopeKeys DETACH DELETE c RETURN count(*) AS n
}
RETURN collect(n) AS deleted

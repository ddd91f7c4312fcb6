// Erase: the scope keys in use that belong to one user — the user scope itself and every
// thread key under it ($threadPrefix) — over every kind of node that carries a scope key.
CALL {
  MATCH (t:Trace) WHERE t.scopeKey = $userKey OR t.scopeKey STARTS WITH $threadPrefix RETURN t.scopeKey AS key
  UNION
  MATCH (p:Prospective) WHERE p.scopeKey = $userKey OR p.scopeKey STARTS WITH $threadPrefix RETURN p.scopeKey AS key
  UNION
  MATCH (o:ObservationNote) WHERE o.scopeKey = $userKey OR o.scopeKey STARTS WITH $threadPrefix RETURN o.scopeKey AS key
  UNION
  MATCH (c:ConversationTurn) WHERE c.scopeKey = $userKey OR c.scopeKey STARTS WITH $threadPrefix RETURN c.scopeKey AS key
}
RETURN DISTINCT key

// Erase without an organization: the scope keys in use that may belong to a user of the same
// id inside an organization — user keys ending in "/<user>" ($userSuffix) and thread keys
// holding "/<user>/" ($threadPart). The caller keeps those whose organization part is exactly
// one id, so it can name the organizations instead of erasing nothing.
CALL {
  MATCH (t:Trace) WHERE (t.scopeKey STARTS WITH 'user:' AND t.scopeKey ENDS WITH $userSuffix)
    OR (t.scopeKey STARTS WITH 'thread:' AND t.scopeKey CONTAINS $threadPart) RETURN t.scopeKey AS key
  UNION
  MATCH (p:Prospective) WHERE (p.scopeKey STARTS WITH 'user:' AND p.scopeKey ENDS WITH $userSuffix)
    OR (p.scopeKey STARTS WITH 'thread:' AND p.scopeKey CONTAINS $threadPart) RETURN p.scopeKey AS key
  UNION
  MATCH (o:ObservationNote) WHERE (o.scopeKey STARTS WITH 'user:' AND o.scopeKey ENDS WITH $userSuffix)
    OR (o.scopeKey STARTS WITH 'thread:' AND o.scopeKey CONTAINS $threadPart) RETURN o.scopeKey AS key
  UNION
  MATCH (c:ConversationTurn) WHERE (c.scopeKey STARTS WITH 'user:' AND c.scopeKey ENDS WITH $userSuffix)
    OR (c.scopeKey STARTS WITH 'thread:' AND c.scopeKey CONTAINS $threadPart) RETURN c.scopeKey AS key
}
RETURN DISTINCT key

// Erase: a page of the traces one user wrote into shared scopes (agent, persona,
// organization): their ids, to delete them or to take the author off.
MATCH (t:Trace)
WHERE t.author = $author AND NOT t.scopeKey IN $userScopeKeys
RETURN t.id AS id, t.scopeKey AS scopeKey
LIMIT $limit

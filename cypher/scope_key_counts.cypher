// The store owner's census: how many active memories each scope key holds, never their
// content. A local command shows it when the identity it was given sees no memory at all.
MATCH (t:Trace)
WHERE t.isActive = true
RETURN t.scopeKey AS scopeKey, count(t) AS n
ORDER BY n DESC, scopeKey

// Decay status: current strength S0 * e^(-(now - lastAccessedAt) / stability), weakest first.
// :param now => timestamp()   :param scopeKeys => ['user:acme/u1']
MATCH (t:Trace)
WHERE t.scopeKey IN $scopeKeys AND t.isActive = true
WITH t, t.encodingStrength * exp(-1.0 * ($now - t.lastAccessedAt) / t.stability) AS strength
RETURN t.id AS id, t.type AS type, t.content AS content, strength, t.retrievalCount AS retrievals, t.intensity AS emotion
ORDER BY strength ASC, id
LIMIT 50

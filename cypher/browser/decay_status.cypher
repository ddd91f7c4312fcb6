// Decay status, weakest first: current strength on the default FSRS-6 curve
// S0 * (1 + Δt / (9 * stability))^-2 (fsrsStrength) and on the reference's Ebbinghaus curve
// S0 * e^(-Δt / stability) (strength), Δt = now - lastAccessedAt; whether consolidation made
// the trace dormant, whether it is pinned, and its category (what decay may forget).
// :param now => timestamp()   :param scopeKeys => ['user:acme/u1']
MATCH (t:Trace)
WHERE t.scopeKey IN $scopeKeys AND t.isActive = true
WITH t, toFloat($now - t.lastAccessedAt) AS dt
WITH t, t.encodingStrength * exp(-1.0 * dt / t.stability) AS strength,
     t.encodingStrength * (1.0 + dt / (9.0 * t.stability)) ^ (-2.0) AS fsrsStrength
RETURN t.id AS id, t.type AS type, t.content AS content, fsrsStrength, strength,
       coalesce(t.dormant, false) AS dormant, coalesce(t.pinned, false) AS pinned,
       coalesce(t.category, 'other') AS category, t.retrievalCount AS retrievals, t.intensity AS emotion
ORDER BY fsrsStrength ASC, id
LIMIT 50

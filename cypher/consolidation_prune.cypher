// Decay sweep and prune, computed in the database: strength S0·e^(−Δt/stability) (or the FSRS-6
// power law S0·(1 + Δt/(factor·stability))^(−1/decay)), Δt counted from the last access.
// Traces weaker than the threshold are soft-deleted unless emotional (intensity above the
// protection threshold). At most $limit per call, weakest first.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND coalesce(t.intensity, 0.0) <= $protectIntensity
WITH t, toFloat(CASE WHEN $now > coalesce(t.lastAccessedAt, t.recordedAt)
                     THEN $now - coalesce(t.lastAccessedAt, t.recordedAt) ELSE 0 END) AS dt
WITH t, CASE WHEN $model = 'fsrs6'
             THEN t.encodingStrength * (1.0 + dt / ($fsrsFactor * t.stability)) ^ (-1.0 / $fsrsDecay)
             ELSE t.encodingStrength * exp(-dt / t.stability) END AS strength
WHERE strength < $threshold
WITH t, strength
ORDER BY strength, t.id
LIMIT $limit
SET t.isActive = false, t.deactivatedReason = $reason, t.updatedAt = $now, t.consolidatedAt = $now
RETURN t.id AS id

// Decay sweep, computed in the database: strength S0·e^(−Δt/stability) (or the FSRS-6 power law
// S0·(1 + Δt/(factor·stability))^(−1/decay)), Δt counted from the last access. A trace weaker
// than the threshold is forgotten unless it is emotional (intensity above the protection
// threshold), pinned, of a category decay never forgets ($permanent), or used more recently than
// its category's minimum retention. Forgetting ($forgetting) makes it dormant (still active,
// out of the default candidate set) or soft-deletes it. At most $limit per call, weakest first.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND coalesce(t.dormant, false) = false
  AND coalesce(t.intensity, 0.0) <= $protectIntensity AND coalesce(t.pinned, false) = false
  AND NOT coalesce(t.category, 'other') IN $permanent
WITH t, toFloat(CASE WHEN $now > coalesce(t.lastAccessedAt, t.recordedAt)
                     THEN $now - coalesce(t.lastAccessedAt, t.recordedAt) ELSE 0 END) AS dt
WHERE dt >= CASE coalesce(t.category, 'other')
               WHEN 'commitment' THEN $minCommitment WHEN 'fact' THEN $minFact ELSE $minOther END
WITH t, CASE WHEN $model = 'fsrs6'
             THEN t.encodingStrength * (1.0 + dt / ($fsrsFactor * t.stability)) ^ (-1.0 / $fsrsDecay)
             ELSE t.encodingStrength * exp(-dt / t.stability) END AS strength
WHERE strength < $threshold
WITH t, strength
ORDER BY strength, t.id
LIMIT $limit
SET t.isActive = ($forgetting = 'dormant'), t.dormant = ($forgetting = 'dormant'),
    t.deactivatedReason = $reason, t.dormantAt = $now, t.updatedAt = $now, t.consolidatedAt = $now,
    t.sweepDueAt = null
RETURN t.id AS id

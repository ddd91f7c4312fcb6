// Decay sweep over what is due: as consolidation_prune (same strength, same protections, same
// forgetting, weakest first, at most $limit per call), but only among the traces whose
// sweepDueAt has come. sweepDueAt is never later than the moment a trace could first be
// forgotten (consolidation_sweep_schedule); a write that could bring that moment closer sets
// it to 1 (long past), so a trace left out here could not have been forgotten now.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.sweepDueAt <= $now AND t.isActive = true AND coalesce(t.dormant, false) = false
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

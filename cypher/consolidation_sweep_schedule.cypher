// After the decay sweep: when each due trace that stayed must be looked at again. Its strength
// falls below $threshold once Δt (from the last access) passes stability·ln(S0/threshold)
// (FSRS-6: factor·stability·((S0/threshold)^decay − 1)), and its category's minimum retention
// must have passed too; sweepDueAt is that moment, a millisecond early for rounding, and never
// before $now + 1 (the sweep has just kept it). Inactive, dormant and protected traces
// (emotional, pinned, permanent category), and any trace when no strength is below a zero
// threshold, get none: only a write that changes them makes them due again. At most $limit.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.sweepDueAt <= $now
WITH t LIMIT $limit
WITH t, coalesce(t.lastAccessedAt, t.recordedAt) AS base,
     toFloat(CASE coalesce(t.category, 'other')
               WHEN 'commitment' THEN $minCommitment WHEN 'fact' THEN $minFact ELSE $minOther END) AS minAge,
     CASE WHEN $threshold <= 0.0 THEN null
          WHEN t.encodingStrength <= $threshold THEN 0.0
          WHEN $model = 'fsrs6'
          THEN $fsrsFactor * t.stability * ((t.encodingStrength / $threshold) ^ $fsrsDecay - 1.0)
          ELSE t.stability * log(t.encodingStrength / $threshold) END AS crossing
WITH t, base, minAge, crossing * (1.0 - 1e-9) - 1.0 AS early
WITH t, base, CASE WHEN early IS NULL THEN null WHEN early > minAge THEN early ELSE minAge END AS wait
WITH t, CASE WHEN wait IS NULL THEN null WHEN base IS NULL THEN $now + 1
             WHEN wait > 0.0 THEN toInteger(floor(base + wait)) ELSE $now + 1 END AS due
SET t.sweepDueAt = CASE
      WHEN t.isActive = false OR coalesce(t.dormant, false) OR coalesce(t.intensity, 0.0) > $protectIntensity
           OR coalesce(t.pinned, false) OR coalesce(t.category, 'other') IN $permanent OR due IS NULL THEN null
      WHEN due > $now THEN due ELSE $now + 1 END
RETURN count(t) AS scheduled

// Replace cue vectors made by another embedder than the store's current one.
UNWIND $rows AS row
MATCH (p:Prospective {id: row.id})
WHERE p.scopeKey IN $scopeKeys
SET p.cueEmbedding = row.cueEmbedding, p.embedModel = row.embedModel
RETURN count(p) AS updated

// Store one intention of prospective memory (a reminder) with its trigger state; a context
// trigger also carries its cue vector (cueEmbedding, base64 float32) and the embedder that made it (embedModel).
CREATE (p:Prospective)
SET p += $props
RETURN p.id AS id

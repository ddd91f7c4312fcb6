// Import: entities with every property they had (createdAt included), merged by key.
UNWIND $rows AS row
MERGE (e:Entity {key: row.key})
SET e += row.props
RETURN count(e) AS written

// Import: schemas with every property they had, merged by id.
UNWIND $rows AS row
MERGE (s:Schema {id: row.id})
SET s += row.props
RETURN count(s) AS written

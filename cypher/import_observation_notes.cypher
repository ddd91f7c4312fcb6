// Import: observation notes, merged by id; each takes exactly the backup's properties.
UNWIND $rows AS row
MERGE (o:ObservationNote {id: row.id})
SET o = row.props
RETURN count(o) AS written

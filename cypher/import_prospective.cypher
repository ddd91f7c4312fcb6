// Import: intentions of prospective memory, merged by id. The node takes exactly the backup's
// properties (not a merge of old and new), so a restored reminder is in the state it was saved in.
UNWIND $rows AS row
MERGE (p:Prospective {id: row.id})
SET p = row.props
RETURN count(p) AS written

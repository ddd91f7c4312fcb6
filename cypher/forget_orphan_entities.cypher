// Hard delete: entities among $keys that no trace mentions any more.
UNWIND $keys AS key
MATCH (e:Entity {key: key})
OPTIONAL MATCH (e)<-[m:MENTIONS]-()
WITH e, count(m) AS mentions
WHERE mentions = 0
DELETE e
RETURN count(e) AS deleted

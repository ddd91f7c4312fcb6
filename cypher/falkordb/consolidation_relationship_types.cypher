// Relationship types present in the graph (FalkorDB's label propagation refuses unknown ones).
CALL db.relationshipTypes() YIELD relationshipType
RETURN relationshipType AS type

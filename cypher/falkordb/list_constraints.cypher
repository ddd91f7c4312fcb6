// Constraints already present, so schema setup stays idempotent.
CALL db.constraints() YIELD label, properties
RETURN label, properties

// The Neo4j dialect gate must warn about this: the label is not a member of the model's enums.
MATCH (t:NotAnEnumLabel) RETURN t

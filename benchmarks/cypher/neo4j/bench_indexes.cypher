// The Neo4j server's indexes (benchmarks/neo4j_statements.py names the index a plan's seek uses).
SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, state

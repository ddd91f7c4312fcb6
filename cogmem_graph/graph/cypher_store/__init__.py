"""The Cypher adapter shared by both engines: one module per aggregate of the port (traces,
edges, activation, governance, notes, intentions, archive, consolidation, communities,
multi-hop, portability), each running its named statements in one round trip or a few
batched ones, over `execution.py` (retries, a restarted server, pipelined reads and
writes); `graph_store.py` composes them into `CypherGraphStore`.

What an engine does differently (how a statement is sent, its schema, its full-text
phrasing) belongs to its adapter (`graph/falkordb/`, `graph/neo4j.py`), not here.
"""

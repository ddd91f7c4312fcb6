"""The graph database: the `GraphStore` port (`port.py`, one `Protocol` per aggregate) and
its adapters. Every statement is a named `.cypher` file (`cypher.py` loads them); the
shared Cypher adapter is `cypher_store/`, the engines `falkordb/` and `neo4j.py`, and
`fulltext.py` phrases each engine's full-text query.

Above this package nobody names a statement: callers use the port's typed methods
(`tests/unit/test_graph_port_calls.py`). It imports only itself and modules of the
package's root (the model, the config, the errors, the clock, ...); never `cognition/`,
`language/` or a layer that uses it (import-linter contracts in pyproject.toml).
"""

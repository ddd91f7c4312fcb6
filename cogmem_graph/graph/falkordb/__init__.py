"""FalkorDB: the graph adapter and the embedded server it may run on.

- `store.py`: `FalkorGraphStore`, the `GraphStore` port on FalkorDB (the embedded default, or
  an external URL): how a statement runs on this engine, its schema, its full-text phrasing;
  everything else is the shared Cypher adapter (`graph/cypher_store/`);
- `write_lane.py`: the writes sent without waiting for their reply, read back before the next
  statement of the process;
- `wire.py`: FalkorDB's wire format, parameters out and replies in;
- `launcher.py`: the embedded `redis-server` with the FalkorDB module, one per home.

Like every adapter it imports only `graph/` and modules of the package's root; never
`cognition/`, `language/` or a layer that uses it (import-linter contracts in pyproject.toml).
"""

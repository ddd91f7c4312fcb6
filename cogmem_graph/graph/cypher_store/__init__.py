"""The Cypher adapter's operations, one module per aggregate (composed in `graph_store.py`)."""

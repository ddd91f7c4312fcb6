"""The read path: `retrieve` (`read_path.py`, with the query's plan in `query_plan.py`),
reciprocal rank and score fusion (`fusion.py`) and GraphRAG multi-hop retrieval
(`multihop/`).

It reads the graph and vectors through their ports, weighs what it finds with
`cognition/` and reads the question with `language/`; it never imports `write/` (the
two paths sit side by side) nor a layer above it. `fusion.py` is pure but stays here: it
ranks the vector port's hits by the read path's settings, and nothing else fuses.
"""

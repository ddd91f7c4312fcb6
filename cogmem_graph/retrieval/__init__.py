"""The read path: `retrieve` (`read_path.py`, with the query's plan in `query_plan.py`), its
stages, each returning its own result (`candidates.py`: search, fuse, expand; `ranking.py`:
rank; `selection.py`: select, current facts first), reciprocal rank and score fusion
(`fusion.py`), the multi-hop walk (`multihop/`, which the read path blends into `retrieve`)
and `multi_hop()` built on both (`graph_rag.py`). The parts of this package import one way:
`graph_rag` → `read_path` → `selection` → `ranking` → `candidates` → `multihop/`, and all of
them → `ask` (the question as every stage takes it).

It reads the graph and vectors through their ports, weighs what it finds with
`cognition/` and reads the question with `language/`; it never imports `write/` (the
two paths sit side by side) nor a layer above it. `fusion.py` is pure but stays here: it
ranks the vector port's hits by the read path's settings, and nothing else fuses.
"""

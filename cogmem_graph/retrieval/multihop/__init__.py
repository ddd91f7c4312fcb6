"""The multi-hop walk of GraphRAG retrieval (the blend the read path adds to `retrieve`;
`retrieval/graph_rag.py` builds `agent.multi_hop` on the read path and this walk).

- `walk.py` walks the graph from the query's entities, its text matches and the community
  summaries, one named statement per half hop, and turns the walk into evidence paths;
- `bookkeeping.py` is the walk's arithmetic without I/O (where it starts, the activation each
  trace collects, the chain that explains it): pure, tested alone, and kept here rather than
  in `cognition/` because nothing but the walk uses it;
- `results.py` holds what `multi_hop` returns.

Like the rest of `retrieval/`, it reads the graph and vectors through their ports and never
imports `write/`.
"""

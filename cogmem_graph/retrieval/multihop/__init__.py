"""GraphRAG multi-hop retrieval (`agent.multi_hop`, and the blend the read path adds to `retrieve`).

- `walk.py` walks the graph from the query's entities, its text matches and the community
  summaries, one named statement per half hop, and turns the walk into evidence paths;
- `bookkeeping.py` is the walk's arithmetic without I/O (where it starts, the activation each
  trace collects, the chain that explains it): pure, tested alone, and kept here rather than
  in `cognition/` because nothing but the walk uses it;
- `search.py` fuses the read path's ranking with the walk's (it imports the read path, which
  imports the walk: the walk never imports the read path);
- `results.py` holds what `multi_hop` returns.

Like the rest of `retrieval/`, it reads the graph and vectors through their ports and never
imports `write/`.
"""

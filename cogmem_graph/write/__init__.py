"""The write path: `encode` turns text into traces in the graph and in the vector index
(request checks, drafts, interference, near-duplicates and contradictions, structural
edges, indexing).

It writes through the graph and vector ports and the embedder, weighs with `cognition/`
and reads the text with `language/`; it never imports `retrieval/` (the two paths sit
side by side) nor a layer above it.
"""

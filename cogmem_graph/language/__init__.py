"""English-language heuristics: what a text says, read from its words with patterns and
word lists, without a model.

What belongs here: readers of English text and the word lists and patterns they share
(names and entities, contradictions and value slots, content features, a query's intent
and the pre-retrieval gate, a memory's sentences and its speaker, causal cues, HyDE's
answer templates). A reader returns plain values (names, scores, spans, enums); what
those count for (strength, ranking, decay) is decided in `cognition/`.

It is pure, as `cognition/` is: no I/O and no clock read; it imports the model, the
config and `text.py`, never the graph, vectors or providers, and nothing of `cognition/`,
which builds on it (the import-linter contracts in pyproject.toml).
"""

"""The formulas of the cognitive model: small pure functions, each named after what it
computes (decay and spaced repetition, encoding strength, the six-signal score and its
prior, the eight mechanisms, working memory, retention by category, validity, diversity,
prospective triggers, the prompt's token budget, perspective gates, the observer's and
reflector's rules, arithmetic in embedding space).

It is pure: no I/O, and time is passed in (working memory reads the clock it is given),
so every formula is tested alone against hand-computed values. It may import the model,
the config, the clock, `text.py` and `language/` (the readings of English it weighs);
never the graph, vectors or providers, nor a layer above it (import-linter contracts in
pyproject.toml).
"""

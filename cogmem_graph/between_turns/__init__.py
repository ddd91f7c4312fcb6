"""The memory's processes beside one encode and one retrieve: consolidation
(`consolidation/`, one module per step), the observer and the reflector (turns, then
notes, then long-term memories; `notes.py` is their buffer), prospective memory
(reminders checked at each turn), perspective encoding (one event, a memory for each
witness) and the archive of gisted originals.

Each module orchestrates: it reads and writes through the graph and vector ports, writes
memories through `write/`, and leaves every formula to `cognition/` and every reading of
English to `language/`. It sits below the facade, which imports it, and never imports
`api/` (the layers contract in pyproject.toml).
"""

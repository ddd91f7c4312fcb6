"""`cogmem ... serve ...` whose store is closed under it when a trigger file appears.

    python tests/e2e/_serve_then_close_store.py TRIGGER_FILE --home H ... serve --port P

The store the command opens is closed from another thread once TRIGGER_FILE exists, as a
store lost under a running server would be; the server must then exit non-zero.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import cogmem_graph.cli.server as serve_command
from cogmem_graph.cli import main


def close_when(trigger: Path, store) -> None:
    while not trigger.exists():
        time.sleep(0.05)
    store.close()


def main_with_trigger() -> None:
    trigger = Path(sys.argv.pop(1))
    opened = serve_command.open_store

    def open_store(settings):
        store = opened(settings)
        threading.Thread(target=close_when, args=(trigger, store), daemon=True).start()
        return store

    serve_command.open_store = open_store
    main()


if __name__ == "__main__":
    main_with_trigger()

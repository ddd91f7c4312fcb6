"""Text an operation writes to a file object (an export), streamed to the client as it is written.

The writer runs on a thread of its own and hands chunks over a small queue, so a large
export never sits whole in memory (nor in a temporary file). `stream_text` returns once
the first chunk is ready, or raises what the writer raised before writing anything: a
refusal (a bad argument, a closed store) still becomes an error status, not a truncated
body. An error later ends the stream early; the JSON Lines footer is then missing, which
is how a client tells a truncated export from a whole one. A client that goes away stops
the writer at its next chunk.
"""

from __future__ import annotations

import io
import logging
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any, TextIO

log = logging.getLogger("cogmem.server")

CHUNK_CHARS = 64 * 1024
QUEUE_CHUNKS = 8
_DONE = object()


class _Stopped(Exception):  # noqa: N818 - a signal to the writer thread, not an error
    """The reader went away: the writer stops. Internal: raised and caught in this module, never
    seen by a caller, so it is not under `CogmemError`."""


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error


class _QueueWriter(io.TextIOBase):
    """A text file whose writes go, in chunks of about `chunk_chars`, to a bounded queue."""

    def __init__(self, chunks: queue.Queue[Any], stopped: threading.Event, chunk_chars: int) -> None:
        super().__init__()
        self._chunks = chunks
        self._stopped = stopped
        self._chunk_chars = chunk_chars
        self._parts: list[str] = []
        self._size = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._parts.append(text)
        self._size += len(text)
        if self._size >= self._chunk_chars:
            self.flush()
        return len(text)

    def flush(self) -> None:
        if self._parts:
            chunk, self._parts, self._size = "".join(self._parts), [], 0
            self.put(chunk)

    def put(self, item: Any) -> None:
        while True:
            if self._stopped.is_set():
                raise _Stopped
            try:
                self._chunks.put(item, timeout=0.2)
                return
            except queue.Full:
                continue


def stream_text(write: Callable[[TextIO], Any], *, name: str = "stream", chunk_chars: int = CHUNK_CHARS,
                queue_chunks: int = QUEUE_CHUNKS) -> Iterator[str]:
    """What `write(out)` writes to `out`, chunk by chunk, as it writes it (see the module)."""
    chunks: queue.Queue[Any] = queue.Queue(maxsize=queue_chunks)
    stopped = threading.Event()
    out = _QueueWriter(chunks, stopped, chunk_chars)

    def run() -> None:
        try:
            write(out)  # type: ignore[arg-type]  # an io.TextIOBase, which typing.TextIO does not name
            out.flush()
            out.put(_DONE)
        except _Stopped:
            return
        except BaseException as exc:  # handed to the reader, which raises it
            try:
                out.put(_Failed(exc))
            except _Stopped:
                return

    thread = threading.Thread(target=run, name=f"cogmem-{name}", daemon=True)
    thread.start()
    first = chunks.get()
    if isinstance(first, _Failed):
        thread.join()
        raise first.error
    return _Chunks(first, chunks, stopped, thread, name)


class _Chunks(Iterator[str]):
    """The chunks after the first; closing it (or dropping it unread) stops the writer."""

    def __init__(self, first: Any, chunks: queue.Queue[Any], stopped: threading.Event, thread: threading.Thread,
                 name: str) -> None:
        self._next: Any = first
        self._chunks = chunks
        self._stopped = stopped
        self._thread = thread
        self._name = name

    def __next__(self) -> str:
        if self._stopped.is_set():
            raise StopIteration
        item = self._next if self._next is not None else self._chunks.get()
        self._next = None
        if item is _DONE:
            self.close()
            raise StopIteration
        if isinstance(item, _Failed):
            log.error("%s failed after its first chunk: %s: %s", self._name, type(item.error).__name__, item.error)
            self.close()
            raise StopIteration  # the body ends without its footer: the client sees it is incomplete
        return item

    def close(self) -> None:
        if not self._stopped.is_set():
            self._stopped.set()
            self._thread.join(timeout=5)

    def __del__(self) -> None:
        self._stopped.set()

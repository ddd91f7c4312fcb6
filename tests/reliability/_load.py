"""A write load for the fault tests: a thread that encodes (single and batched in turn) and
keeps what was acknowledged and what failed, with when. A failed item is not sent again:
these tests are about what was acknowledged, not about retries."""

from __future__ import annotations

import threading
import time

from ._workers import content_for


class Writer:
    """Encodes from a thread until stopped, or until `attempts` calls or `load_s` seconds when
    given. `acked`: trace id -> item index of every memory encode / encode_many returned;
    `failures`: (when the call began, when it failed, the exception) of every failed call."""

    def __init__(self, agent, *, first_index: int = 0, attempts: int | None = None, load_s: float | None = None,
                 backoff_s: float = 0.05, name: str = "writer") -> None:
        self.agent = agent
        self.first_index = first_index
        self.attempts, self.load_s, self.backoff_s = attempts, load_s, backoff_s
        self.acked: dict[str, int] = {}
        self.ack_times: list[float] = []
        self.failures: list[tuple[float, float, BaseException]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)

    def _run(self) -> None:
        deadline = None if self.load_s is None else time.monotonic() + self.load_s
        index, attempt = self.first_index, 0
        while not self.stop.is_set() and (self.attempts is None or attempt < self.attempts) \
                and (deadline is None or time.monotonic() <= deadline):
            began = time.monotonic()
            try:
                if attempt % 2:
                    items = [{"content": content_for(i), "metadata": {"index": i}} for i in range(index, index + 3)]
                    traces = self.agent.encode_many(items)
                else:
                    items = [{}]
                    traces = [self.agent.encode(content_for(index), metadata={"index": index})]
            except Exception as exc:  # noqa: BLE001 - the tests check every failure and how it was named
                self.failures.append((began, time.monotonic(), exc))
                time.sleep(self.backoff_s)
            else:
                for offset, trace in enumerate(traces):
                    self.acked[trace.id] = index + offset
                self.ack_times.append(time.monotonic())
            index += len(items)
            attempt += 1

    def acks_after(self, moment: float) -> int:
        return sum(1 for t in list(self.ack_times) if t > moment)

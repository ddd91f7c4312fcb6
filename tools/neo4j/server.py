#!/usr/bin/env python3
"""A Neo4j 5 server with Graph Data Science on loopback, without Docker, for trying and testing.

Neo4j publishes no server tarball on Maven Central, but the server is there as jars: `pom.xml`
beside this file pins them, Maven copies them to `target/`, and this script starts
`org.neo4j.server.CommunityEntryPoint` on them with a configuration of its own in a directory D:

    server.py up --dir D          resolve, start, set a generated password, write D/env
    server.py up --without-gds --dir D   the same, a Neo4j without the GDS plugin (for fallbacks)
    server.py down --dir D        stop it (idempotent)
    server.py run --dir D -- CMD  a fresh server for CMD's lifetime, CMD sees its variables
    server.py status --dir D
    server.py start / kill --dir D   start the same server again (ports, password) / SIGKILL it

D/env (mode 0600, D is 0700) holds `export` lines: COGMEM_TEST_NEO4J_URI (bolt://), its HTTP
URL (COGMEM_TEST_NEO4J_HTTP, Neo4j Browser under /browser/), NEO4J_USER, NEO4J_PASSWORD and
COGMEM_TEST_NEO4J_DIR. The password never appears in argv, the configuration or the output.

A server made with `--without-gds` (`up(d, gds=False)`) is a Neo4j on which GDS was never
installed: its plugins dir is the empty D/plugins and the GDS jars are not on its classpath, so
no `gds.*` procedure or function exists there (what the library's Cypher fallbacks are tested
against). The directory remembers it: `start` brings it back without GDS too.

Tests import this file by path for `start`, `kill`, `stop` and `read_env` (it is no part of the
cogmem_graph package). Only the standard library is needed, plus the `neo4j` driver to talk to
the server once it runs.
"""

import argparse
import contextlib
import fcntl
import hashlib
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
POM = HERE / "pom.xml"
TARGET = HERE / "target"
LIB = TARGET / "lib"
PLUGINS = TARGET / "plugins"
DEFAULT_DIR = HERE.parent.parent / ".neo4j" / "server"

# The machine runs the test suite beside the server: 1 GB of heap is plenty for the suite's
# graphs and GDS projections of them, and the page cache only grows to what the data needs.
HEAP = "1g"
PAGECACHE = "512m"
READY_TIMEOUT = 120.0
STOP_TIMEOUT = 60.0
USER = "neo4j"
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"

# What Neo4j's own launcher passes to the JVM (the parts that matter off a container):
# netty and the page cache reflect into java.nio, and an OOM should end the process, not hang it.
JVM_OPTIONS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
)

_children: dict[int, subprocess.Popen] = {}  # JVMs this process started, to reap after a kill


class ServerError(RuntimeError):
    """Neo4j could not be resolved, started or stopped; the message says why."""


class ToolsMissing(ServerError):
    """No Java 17+ or no Maven: this machine cannot run the server."""


@dataclass(frozen=True)
class Server:
    dir: Path
    bolt_port: int
    http_port: int
    pid: int | None = None
    gds: bool = True
    """False for a server made without the GDS plugin (`up(d, gds=False)`)."""

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"


def say(message: str) -> None:
    """Progress goes to stderr, so `server.py run -- CMD` leaves CMD's stdout alone."""
    print(f"neo4j: {message}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ tools and resolution


def versions() -> dict[str, str]:
    """The pinned versions, read from pom.xml so the messages never disagree with it."""
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    props = ET.parse(POM).getroot().find("m:properties", ns)
    assert props is not None
    return {el.tag.split("}")[1]: (el.text or "") for el in props}


def java_command() -> str | None:
    """JAVA_HOME's java when set (what Maven uses too), else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and os.access(Path(home) / "bin" / "java", os.X_OK):
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


def _pom_digest() -> str:
    return hashlib.sha256(POM.read_bytes()).hexdigest()


def _resolved() -> bool:
    stamp = TARGET / ".resolved"
    return (stamp.exists() and stamp.read_text().strip() == _pom_digest()
            and any(LIB.glob("*.jar")) and any(PLUGINS.glob("*.jar")))


def missing_tools() -> str | None:
    """Why this machine cannot run the server (no Java 17+, or no Maven while the jars are not
    there yet), or None."""
    java = java_command()
    if java is None:
        return "no `java` (Java 17 or 21) on PATH or in JAVA_HOME"
    out = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    major = int(match.group(1)) if match else 0
    if major == 1 and match and match.group(2):  # "1.8.0_..." style
        major = int(match.group(2))
    if major < 17:
        return f"{java} is Java {major or '?'}; Neo4j 5 needs Java 17 or 21"
    if shutil.which("mvn") is None and not _resolved():
        return "no `mvn` (Maven 3) on PATH to fetch the Neo4j jars"
    return None


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Two `up`s in one checkout (make neo4j-up beside make test) resolve one after the other."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def resolve() -> None:
    """Copy the pinned jars to target/lib and target/plugins with Maven, once per pom.xml.

    The first run on a machine downloads ~145 MB into ~/.m2 (about a minute); later runs find
    target/ current and skip Maven. A changed pom.xml empties target/ first so two versions
    never share the classpath."""
    with _locked(TARGET / ".lock"):
        if _resolved():
            return
        for old in (LIB, PLUGINS, TARGET / ".resolved"):
            if old.is_dir():
                shutil.rmtree(old)
            elif old.exists():
                old.unlink()
        v = versions()
        log = TARGET / "mvn.log"
        say(f"resolving Neo4j {v['neo4j.version']} + GDS {v['gds.version']} with Maven into {TARGET} "
            f"(a machine's first time downloads ~145 MB into ~/.m2; log: {log})")
        started = time.monotonic()
        with open(log, "w") as out:
            mvn = subprocess.Popen(["mvn", "-B", "-Dstyle.color=never", "-f", str(POM), "package"],
                                   stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            _follow_downloads(mvn, log)
        if mvn.returncode != 0:
            raise ServerError(f"Maven failed (exit {mvn.returncode}); the end of {log}:\n" + _tail(log, 25))
        (TARGET / ".resolved").write_text(_pom_digest() + "\n")
        say(f"resolved {len(list(LIB.glob('*.jar')))} jars and {len(list(PLUGINS.glob('*.jar')))} GDS "
            f"plugin jars in {time.monotonic() - started:.0f} s")


def _follow_downloads(mvn: subprocess.Popen, log: Path, every: float = 10.0) -> None:
    """Wait for Maven, saying every few seconds how many files it has downloaded so far."""
    last_said, shown = time.monotonic(), 0
    while mvn.poll() is None:
        time.sleep(0.5)
        if time.monotonic() - last_said >= every:
            count = log.read_text(errors="replace").count("Downloaded from")
            if count != shown:
                say(f"  ... {count} files downloaded")
                shown = count
            last_said = time.monotonic()


# ------------------------------------------------------------------ the server's directory


def free_port(taken: Sequence[int] = ()) -> int:
    """A loopback port free now, chosen below the kernel's ephemeral range.

    Neo4j binds its ports some seconds after the JVM starts, and a killed server is started
    again on the same ports while the test suite runs: ports from the ephemeral range (what
    binding port 0 hands out) could meanwhile be taken by any bind(0) or outgoing connection
    of the suite, ports below it only by a server that asks for that very number."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    candidates = range(20000, low) if low > 21000 else range(0)
    for _ in range(200):
        port = random.choice(candidates) if candidates else 0
        if port in taken:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            port = s.getsockname()[1]
            if port not in taken:
                return port
    raise ServerError("found no free loopback port")


def _conf_path(d: Path) -> Path:
    return d / "conf" / "neo4j.conf"


def _plugins_dir(d: Path, gds: bool) -> Path:
    """The GDS jars, or (without GDS) an empty D/plugins: the one line of the conf that tells
    `read_server` which of the two a directory's server is."""
    return PLUGINS if gds else d / "plugins"


def write_conf(d: Path, bolt_port: int, http_port: int, gds: bool = True) -> None:
    """neo4j.conf: loopback only, advertised on the same ports (else the discovery document at
    the HTTP root sends Browser and drivers to 7687), auth on, GDS allowed (or, with gds=False,
    absent: an empty plugins dir), data and logs in D."""
    plugins = _plugins_dir(d, gds)
    if not gds:
        plugins.mkdir(parents=True, exist_ok=True)
    conf = f"""\
# Written by tools/neo4j/server.py: a Neo4j for trying and testing cogmem-graph, loopback only.
# {"With GDS from target/plugins." if gds else "Without GDS (server.py up --without-gds): an empty plugins dir."}
server.default_listen_address=127.0.0.1
server.default_advertised_address=127.0.0.1
server.bolt.listen_address=127.0.0.1:{bolt_port}
server.bolt.advertised_address=127.0.0.1:{bolt_port}
server.http.listen_address=127.0.0.1:{http_port}
server.http.advertised_address=127.0.0.1:{http_port}
server.https.enabled=false
server.memory.pagecache.size={PAGECACHE}
dbms.security.auth_enabled=true
{"dbms.security.procedures.unrestricted=gds.*" if gds else "# no dbms.security.procedures.unrestricted: no GDS"}
dbms.usage_report.enabled=false
db.tx_log.rotation.retention_policy=2 files
# The Bolt server's shutdown otherwise waits 5 s for connections and 5 s of netty quiet
# period after the databases have checkpointed and stopped: `down` takes 0.4 s instead of 10 s.
internal.server.bolt.connection_shutdown_wait_time=1s
internal.dbms.bolt.netty_server_shutdown_quiet_period=0
server.directories.data={d / "data"}
server.directories.logs={d / "logs"}
server.directories.run={d / "run"}
server.directories.import={d / "import"}
server.directories.plugins={plugins}
"""
    _conf_path(d).parent.mkdir(parents=True, exist_ok=True)
    _conf_path(d).write_text(conf)


def read_server(d: Path) -> Server:
    """The server D's configuration describes (its ports), with its pid when it runs."""
    d = Path(d).resolve()
    try:
        text = _conf_path(d).read_text()
    except OSError as exc:
        raise ServerError(f"{d} holds no server: run `server.py up --dir {d}` first") from exc
    ports = dict(re.findall(r"^server\.(bolt|http)\.listen_address=127\.0\.0\.1:(\d+)$", text, re.M))
    gds = f"server.directories.plugins={_plugins_dir(d, False)}\n" not in text
    return Server(d, int(ports["bolt"]), int(ports["http"]), running_pid(d), gds)


def _env_path(d: Path) -> Path:
    return d / "env"


def write_env(server: Server, password: str) -> None:
    """D/env, created 0600 (never readable by others, not even for an instant) and replaced whole."""
    lines = [
        f"# Neo4j started by tools/neo4j/server.py in {server.dir}; `. {_env_path(server.dir)}`",
        f"export COGMEM_TEST_NEO4J_URI={server.uri}",
        f"export COGMEM_TEST_NEO4J_HTTP={server.http_url}",
        f"export COGMEM_TEST_NEO4J_DIR={server.dir}",
        f"export NEO4J_USER={USER}",
        f"export NEO4J_PASSWORD={password}",
    ]
    tmp = _env_path(server.dir).with_suffix(".tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    os.replace(tmp, _env_path(server.dir))


def read_env(d: Path) -> dict[str, str]:
    """The variables of D/env, as a dict to merge into a process environment."""
    path = _env_path(Path(d).resolve())
    if not path.exists():
        return {}
    return dict(re.findall(r"^export (\w+)=(.*)$", path.read_text(), re.M))


def _prepare(d: Path) -> None:
    """D is 0700: it holds the env file and the database files."""
    d.mkdir(parents=True, exist_ok=True)
    d.chmod(0o700)


def _wipe(d: Path) -> None:
    """Forget a previous server in D (only what this script writes there)."""
    for name in ("data", "logs", "run", "conf", "import", "plugins"):
        shutil.rmtree(d / name, ignore_errors=True)
    for name in ("env", "neo4j.pid"):
        with contextlib.suppress(FileNotFoundError):
            (d / name).unlink()


# ------------------------------------------------------------------ processes


def _pid_path(d: Path) -> Path:
    return d / "neo4j.pid"


def _process_args(pid: int) -> list[str] | None:
    """The argv of a live (not zombie) process, or None."""
    proc = Path(f"/proc/{pid}")
    if proc.parent.is_dir() and Path("/proc/self").exists():
        try:
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            args = (proc / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError):
            return None
        return None if state in ("Z", "X") else [a.decode(errors="replace") for a in args if a]
    out = subprocess.run(["ps", "-o", "stat=,command=", "-p", str(pid)], capture_output=True, text=True).stdout
    if not out.strip() or out.split()[0].startswith("Z"):
        return None
    return out.split()[1:]


def running_pid(d: Path) -> int | None:
    """The pid of D's server if it runs. The pid file alone is not trusted: the process must be
    a Neo4j whose home is D, so a reused pid is never signalled."""
    d = Path(d).resolve()
    try:
        pid = int(_pid_path(d).read_text().strip())
    except (OSError, ValueError):
        return None
    args = _process_args(pid)
    if args and ENTRY_POINT in args and f"--home-dir={d}" in args:
        return pid
    return None


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"({path} not written)"


def _logs_tail(d: Path) -> str:
    return (f"--- end of {d / 'logs' / 'neo4j.log'}:\n{_tail(d / 'logs' / 'neo4j.log')}\n"
            f"--- end of {d / 'logs' / 'console.log'}:\n{_tail(d / 'logs' / 'console.log', 10)}")


def _launch(server: Server) -> int:
    """Start the JVM detached (own session: a Ctrl-C in the terminal reaches it only through
    `run`'s clean stop), its output in D/logs/console.log, without the caller's credentials in
    its environment. The plugins are on the classpath too, as Neo4j's own launcher puts them:
    GDS's kernel extension is found there at startup, its procedures in the plugins dir (a
    server without GDS has neither)."""
    java = java_command()
    if java is None:
        raise ToolsMissing("no `java` on PATH or in JAVA_HOME")
    d = server.dir
    (d / "logs").mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "COGMEM_"))}
    classpath = f"{LIB}/*:{PLUGINS}/*" if server.gds else f"{LIB}/*"
    argv = [java, f"-Xms{HEAP}", f"-Xmx{HEAP}", *JVM_OPTIONS, "-cp", classpath, ENTRY_POINT,
            f"--home-dir={d}", f"--config-dir={d / 'conf'}"]
    with open(d / "logs" / "console.log", "ab") as out:
        proc = subprocess.Popen(argv, cwd=d, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    _children[proc.pid] = proc
    _pid_path(d).write_text(f"{proc.pid}\n")
    return proc.pid


def _gone(pid: int) -> bool:
    child = _children.get(pid)
    if child is not None and child.poll() is not None:
        _children.pop(pid, None)
        return True
    return _process_args(pid) is None


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.1)
    return _gone(pid)


def _until_ready(server: Server, pid: int | None, probe: Callable[[], str], timeout: float) -> str:
    """Call probe until it answers, while the JVM lives and the time lasts; on failure the error
    carries the end of the server's log, which says why."""
    from neo4j.exceptions import AuthError, DriverError, Neo4jError, ServiceUnavailable, TransientError

    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if pid is None or _gone(pid):
            raise ServerError(f"Neo4j in {server.dir} exited while starting\n{_logs_tail(server.dir)}")
        try:
            with socket.create_connection(("127.0.0.1", server.bolt_port), timeout=1):
                pass
            return probe()
        except AuthError as exc:
            raise ServerError(f"Neo4j in {server.dir} refused the credentials: {exc.message}") from exc
        except (OSError, ServiceUnavailable, TransientError, DriverError) as exc:
            last = exc
        except Neo4jError as exc:  # e.g. the default database not online yet
            if not (exc.code or "").startswith("Neo.ClientError.Database"):
                raise
            last = exc
        time.sleep(0.5)
    raise ServerError(f"Neo4j in {server.dir} did not answer on {server.uri} within {timeout:.0f} s "
                      f"(last: {type(last).__name__ if last else 'no attempt'})\n{_logs_tail(server.dir)}")


def _driver(server: Server, password: str):
    from neo4j import GraphDatabase

    return GraphDatabase.driver(server.uri, auth=(USER, password), connection_timeout=5,
                                connection_acquisition_timeout=10)


def _set_password(server: Server, password: str) -> str:
    """Replace the initial neo4j/neo4j (which must be changed before any query) with password.
    The new one travels as a query parameter: never in argv, a file or a log."""
    from neo4j.exceptions import AuthError

    try:
        with _driver(server, "neo4j") as driver, driver.session(database="system") as session:
            session.run("ALTER CURRENT USER SET PASSWORD FROM $old TO $new", old="neo4j", new=password).consume()
    except AuthError:
        _ready(server, password)  # an earlier attempt went through before its answer was lost
    return "password set"


def _ready(server: Server, password: str) -> str:
    """Ready means: the default database answers a query, and GDS is loaded (for a server made
    with it; one without it answers a plain query)."""
    with _driver(server, password) as driver:
        records, _, _ = driver.execute_query("RETURN gds.version() AS v" if server.gds else "RETURN 'no GDS' AS v")
    return str(records[0]["v"])


# ------------------------------------------------------------------ the commands


def start(d: Path, timeout: float = READY_TIMEOUT) -> Server:
    """Start D's server again as it was (ports, data, password) and wait until it answers;
    a no-op when it runs. For tests that SIGKILL the JVM and bring it back."""
    server = read_server(d)
    password = read_env(server.dir).get("NEO4J_PASSWORD")
    if password is None:
        raise ServerError(f"{server.dir}/env is missing: start a new server with `server.py up`")
    if server.pid is not None:
        return server
    pid = _launch(server)
    _until_ready(server, pid, lambda: _ready(server, password), timeout)
    return Server(server.dir, server.bolt_port, server.http_port, pid, server.gds)


def kill(d: Path, sig: int = signal.SIGKILL, timeout: float = 30.0) -> int | None:
    """Send sig (SIGKILL: a crash) to D's server and wait until it is gone; its pid, or None when
    it was not running. The directory keeps everything `start` needs."""
    pid = running_pid(Path(d))
    if pid is None:
        return None
    os.kill(pid, sig)
    if not _wait_gone(pid, timeout):
        raise ServerError(f"Neo4j pid {pid} still runs {timeout:.0f} s after signal {sig}")
    return pid


def stop(d: Path, timeout: float = STOP_TIMEOUT) -> bool:
    """SIGTERM (Neo4j checkpoints and stops), SIGKILL after timeout. True if one was running."""
    d = Path(d).resolve()
    pid = running_pid(d)
    if pid is not None:
        os.kill(pid, signal.SIGTERM)
        if not _wait_gone(pid, timeout):
            say(f"pid {pid} did not stop within {timeout:.0f} s; killing it")
            kill(d)
    with contextlib.suppress(FileNotFoundError):
        _pid_path(d).unlink()
    return pid is not None


def up(d: Path, fresh: bool = False, timeout: float = READY_TIMEOUT, gds: bool = True) -> Server:
    """Make D's server run and return it. A directory without an env file (or fresh=True, or
    a server with GDS where gds=False asks for one without, or the other way round) gets a new
    database, new ports and a new password; otherwise the same server starts again."""
    reason = missing_tools()
    if reason:
        raise ToolsMissing(reason)
    d = Path(d).resolve()
    _prepare(d)
    resolve()
    if not fresh and read_env(d).get("NEO4J_PASSWORD") and _conf_path(d).exists() and read_server(d).gds == gds:
        return start(d, timeout)
    stop(d)
    for attempt in range(3):
        _wipe(d)
        try:
            server, password = _first_start(d, timeout, gds)
            break
        except ServerError:
            port_taken = "Address already in use" in _tail(d / "logs" / "neo4j.log", 200)
            stop(d)
            if attempt == 2 or not port_taken:
                raise
            say("a port was taken meanwhile; trying two others")
    write_env(server, password)
    _until_ready(server, server.pid, lambda: _ready(server, password), timeout)
    return server


def _first_start(d: Path, timeout: float, gds: bool = True) -> tuple[Server, str]:
    """A new database on two free ports; its password is set as soon as Bolt answers."""
    bolt = free_port()
    write_conf(d, bolt, free_port([bolt]), gds)
    server = read_server(d)
    server = Server(d, server.bolt_port, server.http_port, _launch(server), server.gds)
    password = secrets.token_urlsafe(24)
    _until_ready(server, server.pid, lambda: _set_password(server, password), timeout)
    return server, password


def describe(server: Server) -> str:
    v = versions()
    plugin = f"with GDS {v['gds.version']}" if server.gds else "without GDS"
    return (f"Neo4j {v['neo4j.version']} {plugin} (pid {server.pid}): {server.uri}, "
            f"Browser {server.http_url}/browser/; credentials: `. {_env_path(server.dir)}`")


def run(d: Path, cmd: Sequence[str], timeout: float = READY_TIMEOUT) -> int:
    """Run cmd beside a fresh server in D and stop the server afterwards, whatever happens
    (failure, Ctrl-C, SIGTERM); return cmd's exit code. Without Java or Maven: outside CI a
    warning and cmd runs alone (its Neo4j tests skip, saying why); with CI set, a failure."""
    d = Path(d).resolve()
    reason = missing_tools()
    if reason:
        if os.environ.get("CI"):
            raise ToolsMissing(f"CI is set and this machine cannot run Neo4j: {reason}. "
                               "Install Java 17+ and Maven (`make java-tools` does it with apt-get).")
        say(f"warning: {reason}; running without Neo4j, so the Neo4j tests will be skipped")
        return _run_child(cmd, dict(os.environ))

    def leave(signum, _frame):  # SIGTERM or SIGHUP while the server starts: stop it, then exit
        raise SystemExit(128 + signum)

    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, leave)
    try:
        started = time.monotonic()
        try:
            server = up(d, fresh=True, timeout=timeout)
        except ServerError as exc:
            if os.environ.get("CI") or _resolved():
                raise
            say(f"warning: no Neo4j ({str(exc).splitlines()[0]}); running without it, "
                "so the Neo4j tests will be skipped")
            return _run_child(cmd, dict(os.environ))
        say(f"up in {time.monotonic() - started:.0f} s: {describe(server)}")
        return _run_child(cmd, {**os.environ, **read_env(d)})
    finally:
        if stop(d):
            say("stopped")


def _run_child(cmd: Sequence[str], env: dict[str, str]) -> int:
    """cmd in the foreground: Ctrl-C reaches it directly (we wait for it to finish), SIGTERM
    and SIGHUP are passed on to it; a death by signal N returns 128+N like a shell. The
    handlers are in place before cmd starts, so no signal falls between the two."""
    child: list[subprocess.Popen] = []
    pending: list[int] = []

    def forward(signum, _frame):
        if not child:
            pending.append(signum)
            return
        with contextlib.suppress(ProcessLookupError):
            child[0].send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGHUP)}
    previous[signal.SIGINT] = signal.signal(signal.SIGINT, lambda *_: None)  # exec resets it for cmd
    try:
        child.append(subprocess.Popen(list(cmd), env=env))
        for signum in pending:
            forward(signum, None)
        code = child[0].wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    return 128 - code if code < 0 else code


def status(d: Path) -> int:
    d = Path(d).resolve()
    try:
        server = read_server(d)
    except ServerError as exc:
        say(str(exc))
        return 3
    if server.pid is None:
        say(f"not running ({d}); `server.py start --dir {d}` starts it again")
        return 3
    say(f"running: {describe(server)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in [("up", "start (or start again) the server in DIR"), ("down", "stop it"),
                       ("status", "is it running"), ("start", "start the same server again after a kill"),
                       ("kill", "SIGKILL it (a crash)"), ("run", "a fresh server around CMD")]:
        p = sub.add_parser(name, help=text)
        p.add_argument("--dir", type=Path, default=DEFAULT_DIR, help=f"server directory (default {DEFAULT_DIR})")
        if name in ("up", "start", "run"):
            p.add_argument("--timeout", type=float, default=READY_TIMEOUT, help="seconds to wait for Bolt")
        if name == "up":
            p.add_argument("--without-gds", action="store_true",
                           help="a Neo4j without the GDS plugin (the library's Cypher fallbacks run on it)")
        if name == "run":
            p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD [ARGS...]")
    args = parser.parse_args(argv)
    try:
        if args.command == "up":
            started = time.monotonic()
            server = up(args.dir, timeout=args.timeout, gds=not args.without_gds)
            say(f"up in {time.monotonic() - started:.0f} s: {describe(server)}")
        elif args.command == "down":
            say("stopped" if stop(args.dir) else "was not running")
        elif args.command == "status":
            return status(args.dir)
        elif args.command == "start":
            say(f"up: {describe(start(args.dir, args.timeout))}")
        elif args.command == "kill":
            pid = kill(args.dir)
            say(f"killed pid {pid}" if pid else "was not running")
        elif args.command == "run":
            cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
            if not cmd:
                parser.error("run needs a command: server.py run --dir D -- CMD [ARGS...]")
            return run(args.dir, cmd, args.timeout)
    except ServerError as exc:
        say(f"error: {exc}")
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

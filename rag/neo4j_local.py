"""A local Neo4j without Docker: `python -m rag neo4j start | status | stop`.

Runs Neo4j Community 5.26 embedded in a small JVM program (``tools/neo4j-local``, built with Maven on
first use) with the Bolt connector on 127.0.0.1. Needs Java 17+ and Maven; the first build downloads
Neo4j (about 120 MB) from Maven Central into ~/.m2.

The data directory (default ``<RAG data dir>/neo4j-local``) is the Neo4j home (``data/``, ``logs/``)
and also holds ``neo4j-local.json`` (pid, port, URI) and ``neo4j-local.log`` (the JVM's output).
Credentials come from ``NEO4J_USER`` (default ``neo4j``) and ``NEO4J_PASSWORD`` (a development default
when unset); the password is set on every start, so the environment is the one source of truth.
Only the ``NEO4J_URI=...`` and ``export ...`` lines go to stdout; progress goes to stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from rag.config import data_dir as rag_data_dir

TOOL_DIR = Path(__file__).resolve().parent.parent / "tools" / "neo4j-local"
JAR = TOOL_DIR / "target" / "neo4j-local.jar"
LIB = TOOL_DIR / "target" / "lib"
MAIN_CLASS = "dev.ragdemo.neo4jlocal.Main"
DEFAULT_PORT = 7687
DEFAULT_USER = "neo4j"
DEFAULT_PASSWORD = "rag-local-neo4j"  # development only; Neo4j wants at least 8 characters
STATE_FILE = "neo4j-local.json"
LOG_FILE = "neo4j-local.log"
# Small heap and C1-only JIT: a dev database on a small, shared machine starts faster this way.
JAVA_OPTS = ["-Xms64m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dfile.encoding=UTF-8"]
START_TIMEOUT_S = float(os.environ.get("NEO4J_LOCAL_START_TIMEOUT", "240"))
STOP_TIMEOUT_S = 60.0
EXIT_NOT_RUNNING = 3  # `status` when nothing runs (as LSB init scripts do)


class LocalNeo4jError(Exception):
    """Something the user must fix; the message says what."""


@dataclass
class Credentials:
    user: str
    password: str
    password_is_default: bool

    @classmethod
    def from_env(cls) -> "Credentials":
        password = os.environ.get("NEO4J_PASSWORD") or ""
        user = os.environ.get("NEO4J_USER") or os.environ.get("NEO4J_USERNAME") or DEFAULT_USER
        if not password:
            return cls(user, DEFAULT_PASSWORD, True)
        if len(password) < 8:
            raise LocalNeo4jError("NEO4J_PASSWORD must have at least 8 characters (Neo4j refuses shorter ones).")
        return cls(user, password, False)


# ---- state ------------------------------------------------------------------------------------------------------

def default_data_dir() -> Path:
    return rag_data_dir() / "neo4j-local"


def read_state(data_dir: Path) -> dict | None:
    try:
        return json.loads((data_dir / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_state(data_dir: Path, state: dict) -> None:
    tmp = data_dir / (STATE_FILE + ".tmp")
    tmp.write_text(json.dumps(state, indent=2), encoding="utf-8")
    tmp.replace(data_dir / STATE_FILE)


def _clear_state(data_dir: Path) -> None:
    (data_dir / STATE_FILE).unlink(missing_ok=True)


def is_running(pid: int) -> bool:
    """True when ``pid`` is alive and (where /proc exists) really is our Neo4j program, not a reused pid."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists():
        try:
            data = cmdline.read_bytes()
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        if ") Z " in stat:  # a zombie is not running (our own child not yet reaped)
            return False
        return MAIN_CLASS.encode() in data
    return True


def running_state(data_dir: Path) -> dict | None:
    """The state of the server of ``data_dir`` if it runs; a stale state file is removed."""
    state = read_state(data_dir)
    if state is None:
        return None
    if is_running(int(state.get("pid", 0))):
        return state
    _clear_state(data_dir)
    return None


def port_is_free(port: int) -> bool:
    """Whether a server could listen on 127.0.0.1:port now (SO_REUSEADDR as Neo4j's own socket has it, so
    connections of an earlier server still in TIME_WAIT do not count)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def accepts_connections(port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False


def log_tail(data_dir: Path, lines: int = 25) -> str:
    try:
        text = (data_dir / LOG_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log yet)"
    return "\n".join(text.splitlines()[-lines:]) or "(the log is empty)"


# ---- build ------------------------------------------------------------------------------------------------------

def _sources() -> list[Path]:
    return [TOOL_DIR / "pom.xml", *sorted((TOOL_DIR / "src").rglob("*.java"))]


def is_built() -> bool:
    """The jar and its libraries exist and are newer than the pom and every source file."""
    if not JAR.exists() or not LIB.is_dir() or not any(LIB.glob("neo4j-*.jar")):
        return False
    built = JAR.stat().st_mtime
    return all(src.stat().st_mtime <= built for src in _sources())


def build(log=None) -> float:
    """Build tools/neo4j-local with Maven when needed (offline first, from ~/.m2). Returns seconds spent."""
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    if is_built():
        return 0.0
    if not (TOOL_DIR / "pom.xml").exists():
        raise LocalNeo4jError(f"{TOOL_DIR} is missing: run this from a checkout of the project.")
    mvn = shutil.which("mvn")
    if mvn is None:
        raise LocalNeo4jError("Maven (mvn) is needed to build the local Neo4j the first time: "
                              "install it (Debian/Ubuntu: sudo apt-get install maven openjdk-17-jdk-headless), "
                              "or use Docker instead: see docs/neo4j.md.")
    started = time.monotonic()
    log("Building the local Neo4j (tools/neo4j-local) with Maven; the first build downloads Neo4j "
        "(about 120 MB) from Maven Central and takes a few minutes…")
    attempts = [[mvn, "-B", "-q", "-o", "package"], [mvn, "-B", "-q", "package"]]
    output = ""
    for cmd in attempts:
        proc = subprocess.run(cmd, cwd=TOOL_DIR, capture_output=True, text=True)
        output = (proc.stdout + proc.stderr)[-4000:]
        if proc.returncode == 0 and JAR.exists():
            JAR.touch()  # newer than the sources even when Maven found nothing to recompile
            seconds = time.monotonic() - started
            log(f"Built in {seconds:.0f} s.")
            return seconds
    raise LocalNeo4jError(f"Building tools/neo4j-local failed (mvn package):\n{output}")


def java_command(port: int, data_dir: Path) -> list[str]:
    java = shutil.which("java")
    if java is None:
        raise LocalNeo4jError("Java 17 or newer is needed to run the local Neo4j: install it "
                              "(Debian/Ubuntu: sudo apt-get install openjdk-17-jre-headless), or use Docker "
                              "instead: see docs/neo4j.md.")
    extra = os.environ.get("NEO4J_LOCAL_JAVA_OPTS", "").split()
    classpath = os.pathsep.join([str(JAR), str(LIB / "*")])
    return [java, *JAVA_OPTS, *extra, "-cp", classpath, MAIN_CLASS, "--port", str(port), "--data-dir", str(data_dir)]


# ---- commands -----------------------------------------------------------------------------------------------------

def start(port: int | None = None, data_dir: Path | None = None, timeout: float = START_TIMEOUT_S) -> dict:
    """Start (building first if needed) and wait until Bolt accepts our login. Returns the state dict.
    ``port``: None = 7687, 0 = any free port. Already running for this data directory (on the asked port, or
    no port asked): returns its state with ``already_running`` without starting another."""
    data_dir = (data_dir or default_data_dir()).resolve()
    creds = Credentials.from_env()
    state = running_state(data_dir)
    if state is not None:
        if port not in (None, 0, state["port"]):
            raise LocalNeo4jError(f"The local Neo4j of {data_dir} already runs on port {state['port']} "
                                  f"(pid {state['pid']}); stop it first: python -m rag neo4j stop --data-dir {data_dir}")
        state["already_running"] = True
        return state
    if port is None:
        port = DEFAULT_PORT
    if port == 0:
        port = free_port()
    elif not port_is_free(port):
        raise LocalNeo4jError(f"Port {port} on 127.0.0.1 is already in use: choose another with --port N "
                              "(or --port 0 for any free port).")
    build()
    data_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, NEO4J_USER=creds.user, NEO4J_PASSWORD=creds.password)
    log_path = data_dir / LOG_FILE
    began = time.monotonic()
    with open(log_path, "wb") as log_file:
        proc = subprocess.Popen(java_command(port, data_dir), stdin=subprocess.DEVNULL, stdout=log_file,
                                stderr=subprocess.STDOUT, env=env, cwd=data_dir, start_new_session=True)
    uri = f"bolt://127.0.0.1:{port}"
    state = {"pid": proc.pid, "port": port, "uri": uri, "user": creds.user, "data_dir": str(data_dir),
             "log": str(log_path), "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    _write_state(data_dir, state)
    try:
        _wait_ready(proc, data_dir, uri, creds, timeout)
    except BaseException:
        _terminate(proc.pid, 10.0)
        proc.poll()
        _clear_state(data_dir)
        raise
    state["startup_s"] = round(time.monotonic() - began, 1)
    _write_state(data_dir, state)
    return state


def _wait_ready(proc: subprocess.Popen, data_dir: Path, uri: str, creds: Credentials, timeout: float) -> None:
    """Until the program printed READY and the official driver logs in; clear errors with the log tail."""
    deadline = time.monotonic() + timeout
    log_path = data_dir / LOG_FILE
    while True:
        code = proc.poll()
        if code is not None:
            raise LocalNeo4jError(f"The local Neo4j exited with code {code} while starting. "
                                  f"Last lines of {log_path}:\n{log_tail(data_dir)}")
        text = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else ""
        if "READY bolt://" in text:
            break
        if time.monotonic() > deadline:
            raise LocalNeo4jError(f"The local Neo4j did not become ready within {timeout:.0f} s "
                                  f"(set NEO4J_LOCAL_START_TIMEOUT to wait longer). Last lines of {log_path}:\n"
                                  f"{log_tail(data_dir)}")
        time.sleep(0.25)
    from neo4j import GraphDatabase
    from neo4j.exceptions import AuthError, ServiceUnavailable

    last: Exception | None = None
    while time.monotonic() < deadline + 10:
        try:
            with GraphDatabase.driver(uri, auth=(creds.user, creds.password), connection_timeout=5) as driver:
                driver.verify_connectivity()
            return
        except AuthError as exc:
            raise LocalNeo4jError(f"The local Neo4j at {uri} refused the login of {creds.user!r}: {exc}") from exc
        except (ServiceUnavailable, OSError) as exc:
            last = exc
            time.sleep(0.5)
    raise LocalNeo4jError(f"The local Neo4j printed READY but {uri} does not accept connections: {last}. "
                          f"Last lines of {log_path}:\n{log_tail(data_dir)}")


def _terminate(pid: int, timeout: float) -> bool:
    """SIGTERM (Neo4j shuts down cleanly in its shutdown hook), then SIGKILL after ``timeout``.
    True when it stopped cleanly."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return True
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not is_running(pid):
            _reap(pid)
            return True
        time.sleep(0.2)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return True
    _reap(pid)
    return False


def _reap(pid: int) -> None:
    try:  # our own child (started in this process): collect it so it does not linger as a zombie
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def stop(data_dir: Path | None = None, timeout: float = STOP_TIMEOUT_S) -> tuple[bool, str]:
    """(was running, message)."""
    data_dir = (data_dir or default_data_dir()).resolve()
    state = running_state(data_dir)
    if state is None:
        return False, f"The local Neo4j of {data_dir} is not running."
    clean = _terminate(int(state["pid"]), timeout)
    _clear_state(data_dir)
    how = "stopped cleanly" if clean else f"did not stop within {timeout:.0f} s and was killed"
    return True, f"The local Neo4j (pid {state['pid']}, {state['uri']}) {how}."


def status(data_dir: Path | None = None) -> dict | None:
    """The running server's state plus ``accepting`` (Bolt port open), or None."""
    data_dir = (data_dir or default_data_dir()).resolve()
    state = running_state(data_dir)
    if state is not None:
        state["accepting"] = accepts_connections(int(state["port"]))
    return state


# ---- CLI ------------------------------------------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rag neo4j",
        description="A local Neo4j 5.26 without Docker (embedded in a small Java program; needs Java 17+ and "
                    "Maven). Credentials: NEO4J_USER (default neo4j) and NEO4J_PASSWORD (a development default "
                    "when unset).")
    sub = parser.add_subparsers(dest="command", required=True)
    p_start = sub.add_parser("start", help="build (first time) and start it, wait until it accepts connections")
    p_start.add_argument("--port", type=int, default=None,
                         help=f"Bolt port on 127.0.0.1 (default {DEFAULT_PORT}; 0 = any free port)")
    p_start.add_argument("--timeout", type=float, default=START_TIMEOUT_S, help="seconds to wait for start-up")
    for name, text in (("status", "is it running, and where"), ("stop", "stop it cleanly")):
        sub.add_parser(name, help=text)
    for p in sub.choices.values():
        p.add_argument("--data-dir", type=Path, default=None,
                       help="Neo4j's data directory (default: <RAG data dir>/neo4j-local)")
    sub.add_parser("build", help="only build tools/neo4j-local (Maven)")
    return parser


def cli_main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    err = sys.stderr
    try:
        if args.command == "build":
            seconds = build()
            print("tools/neo4j-local is built" + (f" ({seconds:.0f} s)." if seconds else " (up to date)."), file=err)
            return 0
        if args.command == "start":
            if args.port is not None and not 0 <= args.port <= 65535:
                raise LocalNeo4jError(f"--port must be between 0 and 65535, got {args.port}")
            creds = Credentials.from_env()
            state = start(args.port, args.data_dir, args.timeout)
            if state.get("already_running"):
                print(f"The local Neo4j is already running (pid {state['pid']}, data in {state['data_dir']}).",
                      file=err)
            else:
                print(f"Neo4j is running (pid {state['pid']}, ready in {state['startup_s']} s, data in "
                      f"{state['data_dir']}, log {state['log']}).", file=err)
            password = creds.password if creds.password_is_default else "$NEO4J_PASSWORD"
            if creds.password_is_default:
                print(f"NEO4J_PASSWORD was not set: using the development password {DEFAULT_PASSWORD!r}.", file=err)
            print("Point the app at it with the export line below; stop it with: python -m rag neo4j stop"
                  + (f" --data-dir {state['data_dir']}" if args.data_dir else ""), file=err)
            print(f"NEO4J_URI={state['uri']}")
            print(f"export NEO4J_URI={state['uri']} NEO4J_USER={state['user']} NEO4J_PASSWORD={password}")
            return 0
        if args.command == "status":
            state = status(args.data_dir)
            if state is None:
                where = (args.data_dir or default_data_dir()).resolve()
                print(f"The local Neo4j of {where} is not running (start it: python -m rag neo4j start).")
                return EXIT_NOT_RUNNING
            accepting = "accepting connections" if state["accepting"] else "NOT accepting connections yet"
            print(f"running: pid {state['pid']}, {accepting}, data in {state['data_dir']}, log {state['log']}")
            print(f"NEO4J_URI={state['uri']}")
            return 0
        if args.command == "stop":
            _, message = stop(args.data_dir)
            print(message, file=err)
            return 0
    except LocalNeo4jError as exc:
        print(f"error: {exc}", file=err)
        return 1
    return 2


if __name__ == "__main__":
    raise SystemExit(cli_main())

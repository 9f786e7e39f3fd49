"""The hook server: one process per repository that answers its hooks, so a hook call starts no Python.

A hook started fresh pays the interpreter's start and rt's imports (about 35 ms of CPU) before its own work,
which after an Edit is about 5 ms besides the project's check. Claude Code starts a hook on every tool call.
The hooks' client (`rt/claude/hook.sh`, bash) sends the payload over a TCP connection on 127.0.0.1 to this
server, which runs the same `hooks.respond` as `rt hook <event>` (through `hooks.served`) and sends the reply
back. When no server answers, the client runs `rt hook <event>` as before, and that process starts the server
for the next hook (`ensure`): a hook is never lost for the server, only slower.

    .rt/hookserver        "<port> <token> <pid>", mode 0600: where the client connects; written last
    greeting              "RT-HOOK-SERVER <pid>\\n", sent first: the client sends nothing to a port not ours, and
                          runs the request itself when the greeting takes longer than BUSY (the server is busy)
    request               "RT-HOOK 1 <token> <event>\\n<interpreter>\\n<PYTHONPATH>\\n<CLAUDE_PROJECT_DIR>\\n<PATH>\\n<payload>\\0"
    reply                 "<exit code>\\n<stdout>\\0<stderr>\\0", or "retry\\n": run the hook yourself

The same server answers look-ups typed on the command line or run by the model through Bash (`SERVED`: `rt find`,
`rt refs`, `rt pack` ...): `rt/__main__.py` sends them with `ask` when a server is up (it never starts one for
them), and the server runs `rt.cli.main` in the caller's folder with the index it keeps between them
(`index.Kept`, checked for freshness as `rt mcp` checks it); else they run in their own process as before.

The server answers `retry` (and the client falls back) when the request is not for it: another token, another
interpreter or rt folder than the one it runs, a session (or a command line's folder) whose task lives in another
repository, a command it does not answer; and when rt's own files changed since it started (it then exits, and
the fallback starts a new one). It answers one request at a time, in the repository's folder, and exits when
`.rt/hookserver` no longer names it (the file or `.rt/` removed) or after IDLE seconds without a request.
"""
from __future__ import annotations

import os
import sys

STATE = "hookserver"
"""In `.rt/`: the server's port, token and process id."""

STARTING = "hookserver.start"
"""In `.rt/`: made by the process that starts a server, so that hooks arriving meanwhile start no other."""

IDLE = 30 * 60
"""Seconds without a hook after which the server exits: a session's pause costs one fresh hook, no more."""

POLL = 2.0
"""Seconds between the server's looks at its state file while no hook comes."""

BUSY = 0.3
"""Seconds a client waits for the server's greeting. The server greets when it takes the connection, which is
when it has answered the requests before it: a server busy with a long hook (a slow check, a cold `/runtask`)
leaves the next hook or look-up to run in its own process after this wait, not after that hook. (`hook.sh` waits
as long, or 1 s on a bash older than 4, whose `read -t` takes whole seconds.)"""

LIMIT = 256 << 20
"""The largest request read (a Write's payload holds the whole file written)."""

WARM = ("rt.claude.intent", "rt.claude.gitguard", "rt.task.verify", "rt.checks", "rt.state", "rt.store",
        "rt.snapshot", "rt.cli")
"""Imported before the first hook, so that it too is answered without imports."""


def ensure(root: str) -> None:
    """Start a server for `root` unless one answers there or one is starting (or RT_HOOK_SERVER=0 says never).
    Called by a hook that its client could not send to a server; never fails the hook."""
    store = os.path.join(root, ".rt")
    if os.environ.get("RT_HOOK_SERVER") == "0" or not os.path.isdir(store) or _answers(os.path.join(store, STATE)):
        return
    import time
    marker = os.path.join(store, STARTING)
    try:
        if time.time() - os.stat(marker).st_mtime < 10:
            return
        os.unlink(marker)
    except OSError:
        pass
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except OSError:
        return   # another hook is starting one
    env = {k: v for k, v in os.environ.items() if k != "RT_HOOK_ROOT"}
    args = [sys.executable, "-P"] + (["-S"] if sys.flags.no_site else []) + ["-m", "rt", "hook", "serve"]
    import subprocess
    try:
        subprocess.Popen(args, cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        pass


def stop(root: str) -> bool:
    """Stop the server of `root` (it exits within POLL seconds of its state file going); whether one was named."""
    try:
        os.unlink(os.path.join(root, ".rt", STATE))
        return True
    except OSError:
        return False


def status(root: str) -> str:
    """One line for `rt doctor`: whether the repository's hook server is up."""
    state = os.path.join(root, ".rt", STATE)
    if os.environ.get("RT_HOOK_SERVER") == "0":
        return "off (RT_HOOK_SERVER=0): every hook starts its own process"
    if _answers(state):
        with open(state, encoding="ascii") as f:
            return f"up (process {f.read().split()[2]}): hooks and look-ups are answered by it"
    return "not running: the next hook starts it"


def _answers(state: str) -> bool:
    """Whether the server `state` names accepts a connection (a FIFO or folder there names none: opening a FIFO
    would wait for a writer)."""
    import socket
    try:
        if not os.path.isfile(state):
            return False
        with open(state, encoding="ascii") as f:
            port = int(f.read().split()[0])
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except (OSError, ValueError, IndexError):
        return False


COMMAND_LINE = "cli"
"""The request's event for a command line (`rt find ...`) rather than a hook."""

SERVED = frozenset({"find", "symbol", "refs", "slice", "outline", "pack", "manifest", "delta", "status"})
"""The commands a running server answers for the command line: look-ups and reports, which start nothing that
outlives them and read no stdin. A server is never started for them."""


def _rt_folder() -> str:
    """The folder holding the `rt` package that runs."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ask(argv: list[str]) -> int | None:
    """Run `rt <argv>` on the server of the repository holding the current folder, when one is up and
    answers for this interpreter and rt: its output printed here, its exit code returned. None (run it
    here) when there is no such server or it steps aside. Imports only what a fresh process has already
    (the server does the work)."""
    import _socket
    cwd = os.getcwd()
    folder = cwd
    while not os.path.isfile(os.path.join(folder, ".rt", STATE)):
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    try:
        with open(os.path.join(folder, ".rt", STATE), encoding="ascii") as f:
            port, token, pid = f.read().split()[:3]
        sock = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    except (OSError, ValueError):
        return None
    try:
        sock.settimeout(BUSY)
        sock.connect(("127.0.0.1", int(port)))
        if _read_line(sock) != f"RT-HOOK-SERVER {pid}".encode():
            return None
        head = "\n".join([f"RT-HOOK 1 {token} {COMMAND_LINE}", sys.executable, _rt_folder(),
                          os.environ.get("CLAUDE_PROJECT_DIR", ""), os.environ.get("PATH", "")])
        body = '{"argv": [' + ", ".join(map(_quote, argv)) + '], "cwd": ' + _quote(cwd) + "}"
        sock.sendall(f"{head}\n{body}\0".encode())
        sock.settimeout(None)   # a command takes what it takes, as it would here
        data = bytearray()
        while chunk := sock.recv(1 << 16):
            data += chunk
    except (OSError, ValueError):   # UnicodeEncodeError: an argument of undecodable bytes
        return None
    except KeyboardInterrupt:   # Ctrl-C while the server works: as `rt.cli.main` reports it
        if "--json" in argv:
            sys.stdout.write('{"error": "interrupted", "exit": 2}\n')
        sys.stderr.write("rt: error: interrupted\n")
        return 2
    finally:
        sock.close()
    code, _, rest = bytes(data).partition(b"\n")
    out, _, rest = rest.partition(b"\0")
    err = rest[:-1] if rest.endswith(b"\0") else None
    if not code.isdigit() or err is None:
        return None
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    sys.stderr.buffer.write(err)
    return int(code)


def _quote(text: str) -> str:
    """`text` as a JSON string, without `json` (whose import, with `re`, costs a look-up 8 ms)."""
    return '"' + "".join(c if c >= " " and c not in '"\\' else "\\" + c if c in '"\\' else f"\\u{ord(c):04x}"
                         for c in text) + '"'


def _read_line(sock) -> bytes:
    line = bytearray()
    while not line.endswith(b"\n") and len(line) < 100:
        chunk = sock.recv(1)
        if not chunk:
            break
        line += chunk
    return bytes(line).rstrip(b"\n")


class Server:
    """The loop over one repository's hooks; `run` returns when the server should exit."""

    def __init__(self, root, handle):
        import secrets
        import socket
        self.root, self.handle = root, handle
        self.state = root / ".rt" / STATE
        self.token = secrets.token_hex(16)
        self.ident = (os.environ.get("RT_PY", ""), os.environ.get("PYTHONPATH", ""))
        self.cli_ident = (sys.executable, _rt_folder())
        self.kept = None
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.sock.settimeout(POLL)
        self.port = self.sock.getsockname()[1]
        self.hello = f"RT-HOOK-SERVER {os.getpid()}\n".encode()
        self.code: dict[str, int] = {}

    def publish(self) -> None:
        """Write the state file (mode 0600: the token is the key to running hooks as this user) and drop the
        starting marker."""
        tmp = self.state.with_name(f"{STATE}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(f"{self.port} {self.token} {os.getpid()}\n")
        os.replace(tmp, self.state)
        try:
            os.unlink(self.state.with_name(STARTING))
        except OSError:
            pass

    def ours(self) -> bool:
        try:
            return self.state.read_text(encoding="ascii").split()[1:2] == [self.token]
        except (OSError, UnicodeDecodeError):
            return False

    def code_changed(self) -> bool:
        """Whether a file of rt's own code changed since it was loaded (an upgrade, a checkout)."""
        for name, module in list(sys.modules.items()):
            path = getattr(module, "__file__", None)
            if not path or not (name == "rt" or name.startswith("rt.")):
                continue
            try:
                mtime = os.stat(path).st_mtime_ns
            except OSError:
                return True
            if self.code.setdefault(path, mtime) != mtime:
                return True
        return False

    def run(self) -> None:
        import time
        last = time.monotonic()
        while True:
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:   # socket.timeout
                if not self.ours() or time.monotonic() - last > IDLE:
                    return
                continue
            with conn:
                go_on = self.answer(conn)
            last = time.monotonic()
            if not go_on:
                return

    def answer(self, conn) -> bool:
        """Answer one connection; False when the server should exit after it."""
        conn.settimeout(2)   # the client sends its request at once; a connection that does not holds no hook up
        try:
            conn.sendall(self.hello)
            head, raw = _request(conn)
            reply, go_on = self.reply(head, raw)
            conn.sendall(reply)
            return go_on
        except (OSError, ValueError):
            return True

    def reply(self, head: list[str], raw: bytes) -> tuple[bytes, bool]:
        import hmac
        magic = head[0].split(" ")
        if len(magic) != 4 or magic[:2] != ["RT-HOOK", "1"] or not hmac.compare_digest(magic[2], self.token):
            return b"retry\n", True
        if not self.ours() or self.code_changed():
            return b"retry\n", False
        command_line = magic[3] == COMMAND_LINE
        if (head[1], head[2]) != (self.cli_ident if command_line else self.ident):
            return b"retry\n", True
        if head[3]:
            os.environ["CLAUDE_PROJECT_DIR"] = head[3]
        else:
            os.environ.pop("CLAUDE_PROJECT_DIR", None)
        os.environ["PATH"] = head[4]   # the checks' programs are found on the caller's PATH, as by a fresh process
        if self.kept is None:   # the index between requests, checked as `rt mcp` checks it
            from rt.index.index import Kept
            self.kept = Kept(watch=True)
        answer = self.handle(magic[3], raw.decode("utf-8", "replace"), self.root, self.kept)
        if answer is None:
            return b"retry\n", True
        if command_line:   # a command's output as it printed it
            out, err = answer.stdout, answer.stderr
        else:
            out = answer.stdout + "\n" if answer.stdout else ""
            err = answer.stderr + "\n" if answer.stderr else ""
        return (f"{answer.code}\n{out}\0{err}\0").encode("utf-8", "replace"), True


def _request(conn) -> tuple[list[str], bytes]:
    """The request's five header lines and its payload (everything up to the NUL that ends it)."""
    data = bytearray()
    while True:
        chunk = conn.recv(1 << 16)
        if not chunk:
            raise ValueError("the request ended early")
        data += chunk
        if b"\0" in chunk:
            break
        if len(data) > LIMIT:
            raise ValueError("the request is too large")
    body = bytes(data[:data.index(b"\0")])
    parts = body.split(b"\n", 5)
    if len(parts) != 6:
        raise ValueError("the request has no header")
    return [p.decode("utf-8", "replace") for p in parts[:5]], parts[5]


def serve(handle) -> int:
    """`rt hook serve`: run the server for the repository in the current folder (as `ensure` starts it).
    `handle(event, payload text, root, kept index)` is the reply, or None for a request this server does not
    answer."""
    import gc
    import importlib
    from pathlib import Path
    root = Path.cwd().resolve()
    if not (root / ".rt").is_dir():
        print("rt hook serve: no .rt/ here; the hook server runs in a repository where rt is in use", file=sys.stderr)
        return 2
    server = Server(root, handle)
    for name in WARM:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    server.code_changed()   # the files as loaded
    from rt import snapshot
    snapshot.WATCH = True   # an unchanged tree's listing from the watcher, not git (`snapshot._named`)
    gc.freeze()
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))   # a stop unwinds, and takes the state file with it
    server.publish()
    try:
        server.run()
    finally:
        if server.ours():
            try:
                server.state.unlink()
            except OSError:
                pass
        server.sock.close()
    return 0

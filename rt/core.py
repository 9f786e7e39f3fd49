"""Shared ground for every command: exit codes, errors, the repository, its files and safe paths.

Nothing here knows about tasks or checks; modules above it do.
"""
from __future__ import annotations

import contextlib
import enum
import os
import re
import stat
from itertools import accumulate

TYPE_CHECKING = False
if TYPE_CHECKING:   # for annotations only: pathlib is imported where a `Path` is first made (`Repo.root`)
    from pathlib import Path

MAX_TEXT_BYTES = 1_000_000
"""Files larger than this are listed as `large` and never read as text."""

HEAVY_DIRS = frozenset({
    ".git", ".rt", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", "dist", "build", "target", ".next", ".nuxt",
    ".cache", ".gradle", ".idea", "coverage", ".eggs",
})
"""Skipped by the fallback walker (outside git) whatever .gitignore says."""


class ExitCode(enum.IntEnum):
    """The only exit codes rt uses; the README documents them."""
    OK = 0
    FINDING = 1       # a finding: FAIL verdict, changes outside scope, a name found nowhere
    USAGE = 2         # bad arguments, bad path, illegal state move, damaged state
    INCOMPLETE = 3    # a required check could not run
    INTERNAL = 4      # a bug in rt; reported in one line


class RtError(Exception):
    """An error the user can act on; the top-level handler prints its message in one line."""
    code = ExitCode.USAGE


class UsageError(RtError):
    pass


class PathError(RtError):
    pass


class StateError(RtError):
    pass


class StoreError(RtError):
    pass


class IndexDamaged(StoreError):
    """A file of the index (a cache) is missing or damaged: build the index again (`rt.index.index.recover`)."""


class IndexReplaced(IndexDamaged):
    """Another rt's build replaced the index while this one read it (its files are the new build's now): asked
    again, nothing is built (`rt.index.index.retried`)."""


class NotFoundError(RtError):
    code = ExitCode.FINDING


class Result:
    """What a command hands back: terse text for people, `data` for `--json`."""

    def __init__(self, text: str = "", data: dict | None = None, code: int = ExitCode.OK):
        self.text, self.data, self.code = text, {} if data is None else data, code


# ---------------------------------------------------------------- running programs

PROGRAM_ENV = {"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
"""Over the caller's environment for every program rt starts: git takes no optional lock (the user's own
git never meets rt's), and messages come in one language for the parsers."""


def spawn(argv: list[str], cwd: Path | str, *, stdin=None, env: dict | None = None):
    """Start a program with an argument list, never through a shell, its output piped; a `subprocess.Popen`.

    The program gets its own process group, so a timeout ends everything it started (npm -> node ...),
    not only the program itself. Callers that have work to do meanwhile (the index's freshness check)
    start it here and collect it later; the rest use `run()`.
    """
    import subprocess  # here, not at the top: the edit gate never runs a program
    full_env = os.environ | PROGRAM_ENV | (env or {})
    return subprocess.Popen(argv, cwd=str(cwd), stdin=subprocess.DEVNULL if stdin is None else stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env, start_new_session=True)


def run(argv: list[str], cwd: Path | str, *, timeout: float | None = None, input: bytes | None = None,
        env: dict | None = None):
    """Run a program to its end (see `spawn()`); a `subprocess.CompletedProcess`."""
    import signal   # here, as subprocess: the edit gate neither starts nor ends a program
    import subprocess
    with spawn(argv, cwd, stdin=subprocess.PIPE if input is not None else None, env=env) as proc:
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            try:   # what the group printed; a child that left it (`setsid ... &`) may hold the pipes open
                out, err = proc.communicate(timeout=1)
            except subprocess.TimeoutExpired as e:   # it carries what was read meanwhile
                out, err = e.output or b"", e.stderr or b""
            raise subprocess.TimeoutExpired(argv, timeout, out, err) from None
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


class GitProcess:
    """A git command under way in `root`, its output piped: what the look-ups' freshness check and the
    snapshot scan start on every call. Started with `os.posix_spawnp`, not `subprocess`, whose import
    (selectors, threading, locale) costs a look-up 5 ms, more than the rest of its start-up; the same
    environment as `spawn()`, stderr to /dev/null, and rt's own process group (nothing it starts needs
    ending as a group, and a Ctrl-C ends it with rt). OSError when git cannot be started."""

    def __init__(self, root: Path, *args: str):
        if not hasattr(os, "posix_spawnp"):   # Windows: the callers' fallbacks (a full scan) apply
            raise OSError("posix_spawnp is not available here")
        read, write = os.pipe()
        try:
            self.pid = os.posix_spawnp("git", ["git", "-C", str(root), *args],
                                       os.environ | PROGRAM_ENV,
                                       file_actions=[(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                                                     (os.POSIX_SPAWN_DUP2, write, 1),
                                                     (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
        except BaseException:
            os.close(read)
            raise
        finally:
            os.close(write)
        self.fd: int | None = read

    def output(self) -> bytes | None:
        """What git printed, once it ended; None when it failed (or was ended)."""
        if self.fd is None:
            return None
        try:   # readall grows one buffer: reads of a fixed size each allocate it whole (1.6 MB from git: 350 reads)
            with open(self.fd, "rb", buffering=0, closefd=False) as pipe:
                out = pipe.readall()
        finally:
            os.close(self.fd)
            self.fd = None
            status = os.waitpid(self.pid, 0)[1]
        return out if os.waitstatus_to_exitcode(status) == 0 else None

    def discard(self) -> None:
        """End it, if it still runs, and reap it."""
        if self.fd is not None:
            import signal
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self.output()


def git(root: Path, *args: str, input: bytes | None = None) -> bytes | None:
    """Output of a git command in `root`, or None when git is missing or fails."""
    try:
        proc = run(["git", *args], root, input=input)
    except (FileNotFoundError, PermissionError):
        return None
    return proc.stdout if proc.returncode == 0 else None


# ---------------------------------------------------------------- the repository

class Repo:
    """The repository rt works in: its root folder, and whether git manages it.

    A plain class, not a dataclass: hooks import this module on every tool call, and `dataclasses`
    costs more start-up time than the rest of it. `top` is the root as a string; `root`, the same as a
    `Path`, imports pathlib at its first use (pathlib with the urllib.parse it imports is a fifth of a warm
    look-up's start-up, which reads the index through `top` alone).
    """

    def __init__(self, root: Path | str, is_git: bool):
        self.top, self.is_git = os.fspath(root), is_git
        self._root: Path | None = None

    @property
    def root(self) -> Path:
        if self._root is None:
            from pathlib import Path
            self._root = Path(self.top)
        return self._root

    def __eq__(self, other) -> bool:
        return isinstance(other, Repo) and (self.top, self.is_git) == (other.top, other.is_git)

    def __hash__(self) -> int:
        return hash((self.top, self.is_git))

    @property
    def store_dir(self) -> Path:
        return self.root / ".rt"


def find_repo(start: Path | str | None = None) -> Repo:
    """The git top level when inside git (the nearest folder up holding `.git`), else the current folder.

    Looking for `.git` instead of asking `git rev-parse` saves a process on every command and hook.
    """
    start = os.path.realpath(start or os.getcwd())
    folder = start
    while True:
        if os.path.lexists(os.path.join(folder, ".git")):
            return Repo(folder, True)
        up = os.path.dirname(folder)
        if up == folder:
            return Repo(start, False)
        folder = up


# ---------------------------------------------------------------- paths

def to_rel(repo: Repo, user_path: str, cwd: Path | None = None) -> str:
    """A user-given path as a repository-relative POSIX path; refuses anything that leaves the repo.

    Relative paths are taken from the current folder. No symlink is followed out of the repository:
    every existing component is checked against the root after resolving it. A file under a linked folder is
    named by the folder the link leads to, as git names it (`link/a.py` is `real/a.py`); a linked file keeps its name.
    """
    if not user_path or "\x00" in user_path:
        raise PathError(f"invalid path {user_path!r}: give a file path inside the repository")
    try:
        user_path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:   # a lone surrogate a JSON plan may carry: no file system name holds it
        raise PathError(f"invalid path {user_path!a}: no file name holds it") from None
    from pathlib import Path
    base = Path(cwd or os.getcwd())
    raw = Path(user_path)
    absolute = raw if raw.is_absolute() else base / raw
    norm = Path(os.path.normpath(absolute))
    root = repo.root
    try:
        rel = norm.relative_to(root)
    except ValueError:
        # the cwd, or the folders an absolute path names, may be reached through a symlink: retry with the
        # folders resolved (the file itself, if a symlink, is checked below)
        try:
            rel = (Path(os.path.realpath(norm.parent)) / norm.name).relative_to(root)
        except ValueError:
            raise PathError(f"{user_path}: outside the repository {root.name}/; rt only works on paths inside it") from None
    _not_a_store(user_path, rel.parts)
    # walk existing components: a symlink that resolves outside the root, or into a store, is refused
    cur = root
    through = False   # a folder on the way is a link
    for i, part in enumerate(rel.parts):
        cur = cur / part
        try:
            linked = cur.is_symlink()
        except OSError as e:   # a name longer than the file system allows (ENAMETOOLONG), ...
            raise PathError(f"{shown(user_path[:200])}: {e.strerror or e}; give a file path inside the repository") from None
        if linked:
            try:
                target = cur.resolve()
            except RuntimeError:   # Python 3.11's answer to a loop (3.13 gives the path where it stopped)
                raise PathError(f"{user_path}: goes through a symlink loop; refused") from None
            if target != root and root not in target.parents:
                raise PathError(f"{user_path}: goes through a symlink that leaves the repository; refused")
            _not_a_store(user_path, target.relative_to(root).parts)
            through = through or i < len(rel.parts) - 1
    if through:
        rel = (Path(os.path.realpath(root / rel.parent)) / rel.name).relative_to(root)
    return rel.as_posix() if rel.parts else "."


_QUOTED = {i: f"\\{i:03o}" for i in range(32)} | {127: "\\177", ord("\\"): "\\\\", ord('"'): '\\"',
                                                      ord("\n"): "\\n", ord("\t"): "\\t"}
_QUOTED |= {0xDC00 + b: f"\\{b:03o}" for b in range(128, 256)}   # a byte no UTF-8 name holds, as os.fsdecode keeps it


def _quoted(rel: str) -> bool:
    return any(c < " " or c == "\x7f" or "\udc80" <= c <= "\udcff" for c in rel)


def shown(rel: str) -> str:
    """A path as it may stand in a line of text: one holding a control character (a newline would break
    the one-line-per-entry outputs) or a byte that is no UTF-8 (`caf\\udce9.py` as Python reads a Latin-1 name) is
    quoted as git quotes it, `"notes\\nweird.py"`, `"caf\\351.py"`; others unchanged."""
    if rel.startswith('"') or _quoted(rel):
        return '"' + rel.translate(_QUOTED) + '"'
    return rel


def counted(n: int, noun: str) -> str:
    """`n` and the noun that counts, in the plural but for one: "1 file", "3 files", "2 more locale files"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def first_few(items: list[str], n: int) -> str:
    """The first `n` of `items`, comma-separated, and how many more: a list of hundreds named in full would bury
    the line it stands in (and pass the client's inline limit in a hook's answer)."""
    return ", ".join(items[:n]) + (f" and {len(items) - n} more" if len(items) > n else "")


def command_arg(rel: str) -> str:
    """A path as the argument of an rt command rt suggests (`rt scope add ...`), to paste into a shell as it is:
    quoted where a shell would split or expand it, `./` before a leading `-` so it is no option; one holding a
    control character or a byte that is no UTF-8 in bash's `$'...'`, whose escapes are git's (`$'caf\\351.py'`)."""
    arg = "./" + rel if rel.startswith("-") else rel
    if _quoted(rel):
        return "$'" + arg.translate(_QUOTED | {ord("'"): "\\'"}) + "'"
    import shlex   # here: only a suggestion naming a path needs it
    return shlex.quote(arg)


def _not_a_store(user_path: str, parts: tuple[str, ...]) -> None:
    """Refuse a path into any `.rt/` (a nested project's store is another rt's) or into any `.git/` (where a setting
    or a hook runs programs)."""
    for part in parts:
        if part == ".rt":
            raise PathError(f"{user_path}: .rt/ is rt's own store; use rt commands instead")
        if part.lower() == ".git":
            raise PathError(f"{user_path}: .git/ is git's own store (a setting or a hook there runs programs); rt "
                            f"never plans or edits files in it")


def closest_paths(wanted: str, candidates: list[str], n: int = 3) -> list[str]:
    """Existing paths that look like `wanted`, best first, for 'did you mean' errors."""
    import difflib
    by_name: dict[str, list[str]] = {}
    for c in candidates:
        by_name.setdefault(c.rsplit("/", 1)[-1], []).append(c)
    name = wanted.rsplit("/", 1)[-1]
    picks: list[str] = []
    for hit in difflib.get_close_matches(name, list(by_name), n=n, cutoff=0.6):
        picks.extend(sorted(by_name[hit], key=lambda p: -difflib.SequenceMatcher(None, wanted, p).ratio()))
    for hit in difflib.get_close_matches(wanted, candidates, n=n, cutoff=0.5):
        if hit not in picks:
            picks.append(hit)
    return picks[:n]


_TEST = re.compile(r"(^|/)(tests?|Tests?|__tests__|spec|specs|testing|e2e|cypress)/|(^|/)[\w.-]+\.[A-Za-z]*Tests?/"
                   r"|(^|/)src/([a-z]\w*Test|test[A-Z]\w*)/|(^|/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$")


def is_test(path: str) -> bool:
    """Whether a path is a test or a spec: `tests/` (Swift's `Tests/`), a .NET test project (`Foo.Tests/`,
    `Foo.UnitTests/`), a Gradle test source set (`src/jvmTest/`, `src/androidTest/`, `src/testFixtures/`),
    `__tests__/`, `test_x.py`, `x_test.go`, `x.test.ts`, and what end-to-end tests keep beside
    them (`e2e/`, Cypress's `cypress/`: their fixtures, helpers and the pages they load). (Every path `_TEST` finds
    holds "test", "Test", "spec", "e2e/" or "cypress/": most paths are ruled out without the expression; its answer
    for the others is kept, `_TESTS`.)"""
    if "test" not in path and "Test" not in path and "spec" not in path and "e2e/" not in path \
            and "cypress/" not in path:
        return False
    got = _TESTS.get(path)
    if got is None:
        got = bool(_TEST.search(path))
        if len(_TESTS) < 200_000:
            _TESTS[path] = got
    return got


_TESTS: dict[str, bool] = {}
"""`is_test` of each path asked so far that may be one: one `/runtask` asks it of the same test files several thousand
times (babel: 7,600), a hook server or `rt mcp` of the same repository's paths in every call."""


OTHER_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Line breaks `str.splitlines` knows besides "\n": a lone "\r", which rt's line numbers count (as Python's parser
does) and most tools' do not, then those no parser, git nor the model's Read counts (a form feed in GNU-style C or
old Python, U+2028 in a JavaScript string), which `lines` does not either (one `in` each: a regular expression's
class is 20 times slower over a large non-ASCII text)."""


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def lines(text: str, keepends: bool = False) -> list[str]:
    """`text`'s lines as Python's parser and the model's Read count them: broken at `\n`, `\r\n` and `\r` only."""
    if not any(c in text for c in OTHER_BREAKS[1:]):
        return text.splitlines(keepends)   # the same lines, at C speed
    found = _LINE.findall(text)
    return found if keepends else [ln.rstrip("\r\n") for ln in found]


def line_ends(text: str) -> list[int]:
    """The offset just past each line of `text`, lines counted as `lines` counts them (and `rt slice` numbers
    them): `bisect_right(ends, offset)` is the 0-based line holding `offset`."""
    return list(accumulate(map(len, lines(text, True))))


# ---------------------------------------------------------------- listing files

_C_ESCAPE = re.compile(rb"\\([0-7]{3}|.)", re.DOTALL)
_C_ESCAPED = {b"a": b"\a", b"b": b"\b", b"t": b"\t", b"n": b"\n", b"v": b"\v", b"f": b"\f", b"r": b"\r"}


def git_unquoted(name: str) -> str:
    """A path as git writes it in a diff's headers or a listing without `-z`: as it is, or in double quotes with C's
    escapes where it holds a control character, a quote or a backslash (and, unless `core.quotePath` is off, a
    byte over 127, in octal: `"caf\\303\\251.md"`)."""
    if len(name) < 2 or name[0] != '"' or name[-1] != '"':
        return name
    raw = name[1:-1].encode("utf-8", "surrogateescape")
    return os.fsdecode(_C_ESCAPE.sub(_c_escaped, raw))


def _c_escaped(m: re.Match) -> bytes:
    return bytes([int(m[1], 8) & 0xFF]) if len(m[1]) == 3 else _C_ESCAPED.get(m[1], m[1])


def git_paths(out: bytes) -> list[str]:
    """The repository paths in git's NUL-separated (`-z`) output, in git's order."""
    return [os.fsdecode(p) for p in out.split(b"\x00") if p]


def git_index(repo: Repo) -> list[tuple[str, str, str, str]] | None:
    """(path, mode, blob id, stage) of every entry in git's index; None outside git or when git fails."""
    out = git(repo.root, "ls-files", "-s", "-z") if repo.is_git else None
    if out is None:
        return None
    entries = []
    for entry in out.split(b"\x00"):
        meta, _, name = entry.partition(b"\t")
        parts = meta.split()
        if len(parts) == 3:
            entries.append((os.fsdecode(name), parts[0].decode(), parts[1].decode(), parts[2].decode()))
    return entries


def list_files(repo: Repo) -> list[str]:
    """Tracked plus untracked-not-ignored files, sorted, as repository-relative POSIX paths."""
    if repo.is_git:
        out = git(repo.root, "ls-files", "-co", "--exclude-standard", "-z")
        if out is not None:
            return sorted(n for n in set(git_paths(out)) if not n.startswith(".rt/"))
    return sorted(_walk(repo.root))


class _IgnoreRules:
    """The subset of .gitignore that matters in practice: globs, `**`, anchors, dir-only, `!`, and a backslash
    making the next character plain (`\\#`, `\\!`, `\\[`, a trailing `\\ `)."""

    def __init__(self, base: str, lines: list[str]):
        self.rules: list[tuple[re.Pattern, bool, bool]] = []
        for line in lines:
            line = line.rstrip("\n")
            kept = line.rstrip()
            if kept.endswith("\\") and len(line) > len(kept):   # `trail\ ` keeps the space its backslash escapes
                kept += " "
            line = kept
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            if negate:
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.strip("/") if dir_only else line
            anchored = "/" in line.lstrip("/") or line.startswith("/")
            line = line.lstrip("/")
            pat = _glob_to_regex(line)
            prefix = re.escape(base + "/") if base else ""
            rx = f"^{prefix}{pat}$" if anchored else f"^{prefix}(?:.*/)?{pat}$"
            self.rules.append((re.compile(rx, re.S), negate, dir_only))

    def verdict(self, rel: str, is_dir: bool) -> bool | None:
        result = None
        for rx, negate, dir_only in self.rules:
            if dir_only and not is_dir:
                continue
            if rx.match(rel):
                result = not negate
        return result


def _glob_to_regex(glob: str) -> str:
    import fnmatch
    out, i = [], 0
    while i < len(glob):
        if glob[i] == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
        elif glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == len(glob):
            out.append("/.*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[":
            j = glob.find("]", i)
            if j == -1:
                out.append(re.escape(glob[i]))
                i += 1
            else:
                out.append(fnmatch.translate(glob[i:j + 1])[4:-3])
                i = j + 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


def _walk(root: Path) -> list[str]:
    found: list[str] = []
    stack: list[tuple[str, list[_IgnoreRules]]] = [("", [])]
    while stack:
        rel_dir, rules = stack.pop()
        abs_dir = root / rel_dir if rel_dir else root
        gi = abs_dir / ".gitignore"
        if gi.is_file():
            try:
                rules = rules + [_IgnoreRules(rel_dir, gi.read_text(encoding="utf-8", errors="replace").splitlines())]
            except OSError:
                pass
        try:
            entries = list(os.scandir(abs_dir))
        except OSError:
            continue
        for e in entries:
            rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
            is_dir = e.is_dir(follow_symlinks=False)
            if is_dir and e.name in HEAVY_DIRS:
                continue
            ignored = None
            for r in rules:
                v = r.verdict(rel, is_dir)
                if v is not None:
                    ignored = v
            if ignored:
                continue
            if is_dir:
                stack.append((rel, rules))
            else:
                found.append(rel)
    return found


def listed(folder: Path | str) -> list[str]:
    """The names in one folder, sorted; [] when it cannot be read. Matched by hand where needed rather than
    with `Path.glob`, whose patterns cost the post-edit hook a compiled regular expression each."""
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


# ---------------------------------------------------------------- reading files

def classify(data: bytes, size: int) -> str:
    """`text`, `binary` or `large`: only text files are ever read as text."""
    if size > MAX_TEXT_BYTES:
        return "large"
    if b"\x00" in data[:8192]:
        return "binary"
    return "text"


EXECUTABLE = "+x"
"""Ends the kind a scan records of a regular file its owner may run (git's mode 100755: `text+x` ...): a `chmod +x`
changes the file as git sees it, though not one of its bytes. What the file holds is its `content_kind`."""


def content_kind(kind: str) -> str:
    """`text`, `binary`, `large` or `link`: what a scan's kind of a file says of its content, its execute bit aside."""
    return kind.removesuffix(EXECUTABLE)


def decode(data: bytes) -> str:
    """Text of a file whatever its encoding: UTF-8, else Latin-1 so every byte survives as a character."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_text(repo: Repo, rel: str) -> str | None:
    """A repository file's text, or None when it is missing, binary, large, or a link leaving the repo."""
    data = read_text_bytes(repo, rel)
    return None if data is None else decode(data)


def read_text_bytes(repo: Repo, rel: str) -> bytes | None:
    """The bytes `read_text` decodes, or None where it gives None: for a scan of many files that needs
    only their ASCII words and lines, which both of `decode`'s encodings give alike."""
    path = os.path.join(repo.top, rel)
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_TEXT_BYTES:
            return None
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data if classify(data, len(data)) == "text" else None


def git_dir(repo: Repo) -> str:
    """The folder holding the repository's git index (in a linked worktree `.git` is a file naming it)."""
    gitdir = os.path.join(repo.top, ".git")
    if os.path.isfile(gitdir):
        with open(gitdir, encoding="utf-8", errors="replace") as f:
            line = f.read().strip()
        gitdir = os.path.realpath(os.path.join(repo.top, line.removeprefix("gitdir:").strip()))
    return gitdir


def folders_up(files) -> set[str]:
    """Every folder from these files' up to the root ("."): a new folder changes its parent's time only."""
    dirs = {"."}
    for p in files:
        d = os.path.dirname(p) or "."
        while d not in dirs:
            dirs.add(d)
            d = os.path.dirname(d) or "."
    return dirs


def untracked_folders(repo, tops: list[str]) -> set[str]:
    """Every folder in and under the untracked, not ignored folders git names (`ls-files --directory`),
    empty ones too: a file made in an empty folder later changes that folder's time only. Heavy folders
    (node_modules, .venv ...) and symlinks are not entered."""
    out: set[str] = set()
    for top in tops:
        if top == ".rt" or top.startswith(".rt/"):   # rt's own store: git sees its ignored files as an empty folder
            continue
        out.add(top)
        for folder, subdirs, _ in os.walk(os.path.join(repo.root, top)):
            subdirs[:] = [d for d in subdirs if d not in HEAVY_DIRS]
            rel = os.path.relpath(folder, repo.root).replace(os.sep, "/")
            out.update(f"{rel}/{d}" for d in subdirs)
    return out

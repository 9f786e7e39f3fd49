"""A repository worth protecting, to show what a refused command would really have done: a bare remote
the local branch is one commit ahead of, an unmerged and a merged branch, a tag, a stash, uncommitted and
untracked work, an unreferenced object, rt's `.rt/` store and a nested repository. Each command runs with
bash in a throwaway copy; `HarmRepo.run` returns the kinds of harm it did (see tests/guard_cases.py)."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

from guard_cases import FILES

ALIAS = "[alias]\n\ts = push\n"
CONFIG_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
              "GIT_COMMITTER_EMAIL": "t@t"}


class HarmRepo:
    def __init__(self, base: Path):
        self.base = base
        self.template = base / "template"
        self.count = 0
        self.env = {"PATH": os.environ["PATH"], "HOME": str(self.template / "home"), "LANG": "C", "TERM": "dumb",
                    **CONFIG_ENV}
        self._build()

    def _git(self, cwd: Path, *args: str, input: str | None = None) -> str:
        return subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True, text=True, check=True,
                              env={**self.env, "GIT_CONFIG_NOSYSTEM": "1"}).stdout

    def _build(self) -> None:
        t = self.template
        (t / "home").mkdir(parents=True)
        self._git(t, "init", "-q", "--template=", "--bare", "-b", "main", "origin.git")
        work = t / "repo"
        work.mkdir()
        g = lambda *a, **k: self._git(work, *a, **k)  # noqa: E731
        g("init", "-q", "--template=", "-b", "main")
        (work / "a.py").write_text("x = 1\n")
        (work / "b.py").write_text("y = 2\n")
        g("add", "-A")
        g("commit", "-q", "-m", "init")
        g("remote", "add", "origin", str(t / "origin.git"))
        g("push", "-q", "-u", "origin", "main")
        g("branch", "merged")
        g("checkout", "-q", "-b", "feature")
        (work / "f.py").write_text("feature = 1\n")
        g("add", "f.py")
        g("commit", "-q", "-m", "feature")
        g("checkout", "-q", "main")
        g("tag", "v1")
        (work / "c.py").write_text("ahead = 1\n")
        g("add", "c.py")
        g("commit", "-q", "-m", "ahead of the remote")
        (work / "b.py").write_text("y = 3\n")
        g("stash", "-q")
        self.dangling = g("hash-object", "-w", "--stdin", input="dangling\n").strip()
        (work / "a.py").write_text("x = 1\nlocal = 'uncommitted work'\n")
        (work / "new.py").write_text("untracked = 'work'\n")
        (work / "args.txt").write_text("push\n")
        write_files(work)
        (work / "evil.cfg").write_text(ALIAS)
        (work / ".gitconfig").write_text(ALIAS)
        (work / "cfg" / "git").mkdir(parents=True)
        (work / "cfg" / "git" / "config").write_text(ALIAS)
        rt = work / ".rt"
        (rt / "tasks" / "1-t").mkdir(parents=True)
        (rt / ".gitignore").write_text("*\n")
        (rt / "state.json").write_text('{"schema": 1, "active": "1-t"}\n')
        (rt / "tasks" / "1-t" / "task.json").write_text('{"schema": 1, "id": "1-t"}\n')
        vendored = work / "vendored"
        vendored.mkdir()
        v = lambda *a: self._git(vendored, *a)  # noqa: E731
        v("init", "-q", "--template=", "-b", "main")
        (vendored / "v.txt").write_text("vendored\n")
        v("add", "v.txt")
        v("commit", "-q", "-m", "vendored")
        v("config", "alias.s", "!cd .. && git push origin main")
        (t / "home" / ".gitconfig").write_text("")
        (t / "home" / "evil.cfg").write_text(ALIAS)
        (work / ".git" / "hooks").mkdir()
        for repo in (work, vendored, t / "origin.git"):
            self._git(repo, "gc", "-q")  # fewer files to copy for each command

    # ------------------------------------------------------------ one command
    def run(self, command: str, nested: bool = False, timeout: float = 30) -> set[str]:
        """Run `command` with bash in a fresh copy (in `vendored/` when nested); the kinds of harm it did."""
        self.count += 1
        root = self.base / f"run{self.count}"
        subprocess.run(["cp", "-a", str(self.template), str(root)], check=True)
        work = root / "repo"
        self._git(work, "remote", "set-url", "origin", str(root / "origin.git"))
        subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=work, env=self.env, capture_output=True,
                       check=False)  # a copy's files have new timestamps: let git see they are unchanged
        if "worktree" in command:
            self._git(work, "worktree", "add", "-q", "-b", "wtb", "../wt")
            (root / "wt" / "wip.txt").write_text("uncommitted in the worktree\n")
        before = self.state(root)
        env = {**self.env, "HOME": str(root / "home"), "TMUX_TMPDIR": str(root)}
        subprocess.run(["bash", "-c", command], cwd=work / "vendored" if nested else work, env=env,
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False)
        harm = self.diff(before, self.state(root))
        if "tmux" in command:  # the command runs in tmux's own server, a moment later
            deadline = time.monotonic() + 10
            while not harm and time.monotonic() < deadline:
                time.sleep(0.2)
                harm = self.diff(before, self.state(root))
            subprocess.run(["tmux", "-L", "rtguard", "kill-server"], env=env, capture_output=True, check=False)
        shutil.rmtree(root, ignore_errors=True)
        return harm

    def state(self, root: Path) -> dict:
        work = root / "repo"
        return {
            "published": self._quiet(root / "origin.git", "for-each-ref"),
            "history": self._quiet(work, "for-each-ref") + self._quiet(work, "symbolic-ref", "-q", "HEAD")
            + self._quiet(work, "rev-parse", "HEAD"),
            "index": self._quiet(work, "ls-files", "-s"),
            "files": _tree(work, skip=(".git", ".rt")) | _tree(root / "wt", skip=(".git",)),
            "store": _tree(work / ".rt") | _store(work / ".git") | _store(work / "vendored" / ".git"),
            "ran": _holds(root, "PWNED"),
            "object": self._quiet(work, "cat-file", "-t", self.dangling),
        }

    def _quiet(self, cwd: Path, *args: str) -> str:
        if not cwd.exists():
            return "<gone>"
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False,
                              env={**self.env, "GIT_CONFIG_NOSYSTEM": "1"})
        return proc.stdout if proc.returncode == 0 else f"<exit {proc.returncode}>"

    @staticmethod
    def diff(before: dict, after: dict) -> set[str]:
        harm = {k for k in ("published", "history", "index", "store", "object") if before[k] != after[k]}
        if after["ran"] and not before["ran"]:
            harm.add("ran")
        if any(after["files"].get(path) != digest for path, digest in before["files"].items()):
            harm.add("lost")
        return harm


def _holds(folder: Path, name: str) -> bool:
    """Whether a file `name` is anywhere under `folder`. `os.walk` passes over a folder that goes while it
    looks (a push that tmux runs a moment later may still be writing `origin.git`'s incoming objects)."""
    return any(name in filenames for _, _, filenames in os.walk(folder))


def _tree(folder: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """path -> content digest of every file under `folder`, not descending into `skip` folders."""
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in skip]
        for name in filenames:
            path = Path(dirpath) / name
            try:
                data = path.read_bytes() if not path.is_symlink() else os.readlink(path).encode()
            except OSError:
                data = b"<unreadable>"
            out[str(path.relative_to(folder.parent))] = hashlib.sha256(data).hexdigest()
    return out


def _store(git_dir: Path) -> dict[str, str]:
    """What of `.git/` makes git do something: HEAD, config, hooks, worktrees, the index's presence."""
    if not git_dir.is_dir():
        return {str(git_dir): "<gone>"}
    index = git_dir / "index"
    out = {str(index): f"{index.is_symlink()} {index.exists()}"}
    for rel in ("HEAD", "config"):
        path = git_dir / rel
        out[str(path)] = path.read_text(errors="replace") if path.is_file() else "<gone>"
    out |= _tree(git_dir / "hooks") | _tree(git_dir / "worktrees")
    out[str(git_dir / "worktrees")] = str(sorted(p.name for p in (git_dir / "worktrees").iterdir())
                                          if (git_dir / "worktrees").is_dir() else [])
    return out


def write_files(root: Path) -> None:
    """The files of guard_cases.FILES, shell scripts executable."""
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if rel.endswith(".sh"):
            path.chmod(0o755)

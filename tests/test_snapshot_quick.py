"""The unchanged tree recognised without building its map (`rt.snapshot.Scan.unchanged`): git's listing byte
for byte the last scan's, the files that scan looked at itself with the stat data it saw, and its fingerprint
the snapshot's. Each test first shows the shortcut armed (an `rt delta` process that answers without hashing
anything: `hashlib` never loads), then makes a change the shortcut must not miss, with real git."""
import contextlib
import os
import time

import pytest

from rt import state
from rt.cli import Ctx
from rt.snapshot import LAST_SCAN, fingerprint, scan

OLD = 1_600_000_000   # a time long past: stat data this old is trusted (outside the racy-timestamp window)


def settle(project) -> None:
    """Date every file back (so no stat data is racily clean), let git refresh its index's stat data, and
    date its index file back too (a second after the files: git's own racy rule keeps to its entries)."""
    for p in project.root.rglob("*"):
        if not {".git", ".rt"} & set(p.relative_to(project.root).parts) and not p.is_symlink():
            os.utime(p, (OLD, OLD))
    if (project.root / ".git").is_dir():
        project.git("status")
        os.utime(project.root / ".git" / "index", (OLD + 1, OLD + 1))
    time.sleep(1.1)   # the change time utime set is now: a second on, it is out of the racy window too


def armed(project) -> None:
    """`rt delta` answers "no change" from the last scan's record: the process reads and hashes nothing."""
    proc, imported = project.imports("delta")
    assert proc.returncode == 0 and proc.stdout.startswith("0 file(s) changed"), proc.stdout + proc.stderr
    assert "hashlib" not in imported


def rows(project) -> dict:
    return {c["path"]: c["status"] for c in project.rt_json("delta")["changes"]}


@pytest.fixture
def tree(project):
    project.write("a.py", "one\ntwo\nthree\n")
    project.write("b.py", "b\n")
    project.write(".gitignore", "*.log\n")
    project.write("build.log", "ignored\n")
    project.init_git()
    project.write("b.py", "b\ndirty before the task\n")        # modified before the task: git names it
    project.write("notes.txt", "untracked before the task\n")  # untracked: git names it
    settle(project)
    project.rt("start", "t", "--no-baseline")
    armed(project)
    return project


def test_an_untracked_file_appearing_and_one_going(tree):
    tree.write("new.txt", "n\n")
    assert rows(tree) == {"new.txt": "added"}
    (tree.root / "new.txt").unlink()
    assert rows(tree) == {}
    armed(tree)   # the record kept is of the tree as it is again
    (tree.root / "notes.txt").unlink()
    assert rows(tree) == {"notes.txt": "deleted"}


def test_a_deleted_tracked_file(tree):
    (tree.root / "a.py").unlink()
    assert rows(tree) == {"a.py": "deleted"}
    assert rows(tree) == {"a.py": "deleted"}   # and again, from the record the first delta kept


def test_a_mode_change_of_a_tracked_and_an_untracked_file(tree):
    """`chmod +x` changes no byte: git names the tracked file (its mode is not its index's), the untracked one
    only its stat data vouches for."""
    os.chmod(tree.root / "a.py", 0o755)
    os.chmod(tree.root / "notes.txt", 0o755)
    assert rows(tree) == {"a.py": "modified", "notes.txt": "modified"}
    os.chmod(tree.root / "a.py", 0o644)
    os.chmod(tree.root / "notes.txt", 0o644)
    assert rows(tree) == {}


def test_an_edit_staged_at_once_changes_only_gits_index(tree):
    """Edited and `git add`ed between two scans: git names no modified file before or after (the same
    `-m -o` output), only the blob id in its index differs."""
    named = tree.git("ls-files", "-m", "-o", "--exclude-standard")
    tree.write("a.py", "one\ntwo\nTHREE\n")
    tree.git("add", "a.py")
    assert tree.git("ls-files", "-m", "-o", "--exclude-standard") == named
    assert rows(tree) == {"a.py": "modified"}


def test_a_same_size_edit_of_a_tracked_file_right_after_git_refreshed_its_index(tree):
    """Within the second git wrote its index, git compares the content of the entries it cannot tell
    apart by time (its own racy-timestamp rule): the listing names the file, and rt reads it."""
    tree.git("status")
    tree.write("a.py", "one\ntwo\nthreE\n")
    assert rows(tree) == {"a.py": "modified"}


def test_a_same_size_edit_of_a_file_git_names_within_the_racy_window(tree):
    """notes.txt (untracked: rt looks at it itself) changes twice within one timestamp tick: the scan
    between the two saw it racily clean, so its record vouches for nothing and the second edit is read."""
    path = tree.root / "notes.txt"
    soon = time.time_ns() + 60 * 10**9   # a timestamp no scan of this test can see as settled
    tree.write("notes.txt", "UNTRACKED before the task\n")
    os.utime(path, ns=(soon, soon))
    assert rows(tree) == {"notes.txt": "modified"}
    inode = path.stat().st_ino
    tree.write("notes.txt", "untracked before the task\n")   # back, same size, same inode, same tick
    os.utime(path, ns=(soon, soon))
    assert path.stat().st_ino == inode
    assert rows(tree) == {}
    tree.write("notes.txt", "untracked BEFORE the task\n")
    os.utime(path, ns=(soon, soon))
    assert rows(tree) == {"notes.txt": "modified"}


@pytest.mark.parametrize(("flag", "text"), [("--assume-unchanged", "one\ntwo\nthree\nfour\n"), ("--skip-worktree", "one\n")])
def test_an_edit_git_is_told_to_ignore(tree, flag, text):
    """An assume-unchanged or skip-worktree entry: git's listing stays as it was, rt looks at the file itself."""
    tree.git("update-index", flag, "a.py")
    settle(tree)
    tree.rt("start", "again", "--force", "--no-baseline")
    armed(tree)
    listing = tree.git("ls-files", "-s", "-v", "-m", "-o", "--exclude-standard")
    tree.write("a.py", text)
    assert tree.git("ls-files", "-s", "-v", "-m", "-o", "--exclude-standard") == listing   # git sees nothing
    assert rows(tree) == {"a.py": "modified"}


def test_an_edit_a_clean_filter_hides_from_git(project):
    """Under a clean filter that upper-cases, `abc` and `ABC` are the same blob to git: its listing stays
    byte for byte the same, yet the file's bytes changed."""
    project.write(".gitattributes", "*.txt filter=up\n")
    project.write("low.txt", "abc\n")
    project.init_git(commit=False)
    project.git("config", "filter.up.clean", "tr a-z A-Z")
    project.git("add", "-A")
    project.git("commit", "-q", "-m", "init")
    settle(project)
    project.rt("start", "t", "--no-baseline")
    armed(project)
    listing = project.git("ls-files", "-s", "-v", "-m", "-o", "--exclude-standard")
    project.write("low.txt", "ABC\n")   # git compares the cleaned content: the same
    assert project.git("ls-files", "-s", "-v", "-m", "-o", "--exclude-standard") == listing
    assert rows(project) == {"low.txt": "modified"}


def test_a_changed_ignore_rule_outside_the_tree(tree):
    """.git/info/exclude is no file of the tree: dropping a rule from it is seen through the files git
    lists as untracked."""
    tree.write(".gitignore", "")
    tree.git("add", ".gitignore")
    tree.git("commit", "-q", "-m", "no rules")
    tree.write(".git/info/exclude", "*.log\n")
    settle(tree)
    tree.rt("start", "again", "--force", "--no-baseline")
    armed(tree)
    tree.write(".git/info/exclude", "")
    assert rows(tree) == {"build.log": "added"}


def test_a_changed_gitignore(tree):
    tree.write(".gitignore", "*.lo\n")
    assert rows(tree) == {".gitignore": "modified", "build.log": "added"}


def test_a_snapshot_from_another_task(tree):
    """The last scan's record answers for the tree; whether that is a task's snapshot is the fingerprint's
    to say: a task started after an edit, then the edit undone."""
    tree.write("a.py", "one\n")
    assert rows(tree) == {"a.py": "modified"}
    tree.rt("start", "second", "--force", "--no-baseline")   # snapshots the edit
    assert rows(tree) == {}
    tree.write("a.py", "one\ntwo\nthree\n")
    os.utime(tree.root / "a.py", (OLD, OLD))
    assert rows(tree) == {"a.py": "modified"}
    assert rows(tree) == {"a.py": "modified"}
    tree.rt("block", "not now")
    tree.rt("start", "third", "--no-baseline")
    assert rows(tree) == {}


def test_a_re_snapshot_of_an_unchanged_tree_is_the_tree(tree):
    """`rt start --force` on an unchanged tree links the set-aside task's snapshot (same fingerprint):
    it is the map a full scan builds, with its count."""
    first = tree.rt_json("status")["task"]["id"]
    out = tree.rt_json("start", "again", "--force", "--no-baseline")
    linked = [os.stat(tree.root / ".rt" / "tasks" / t / "snapshot.json").st_ino for t in (first, out["task"]["id"])]
    assert linked[0] == linked[1]
    with contextlib.chdir(tree.root):
        ctx = Ctx(False)
        task = state.active_task(ctx.store)
        snapshot = state.load_snapshot(ctx.store, task)
        (tree.root / ".rt" / LAST_SCAN).unlink()   # no record: a full scan
        files = scan(ctx.repo, ctx.store).files
    assert out["files"] == len(files) == 4 and out["files_read"] == 0
    assert snapshot == files and state.snapshot_fingerprint(ctx.store, task) == fingerprint(files)


def test_a_symlink_put_where_a_file_with_its_bytes_was(project):
    """A file and a symlink whose target is the file's text have the same blob id: the fingerprint tells
    them apart, so the link is a change."""
    project.write("a.txt", "b.txt")
    project.write("b.txt", "x\n")
    project.init_git()
    settle(project)
    project.rt("start", "t", "--no-baseline")
    armed(project)
    (project.root / "a.txt").unlink()
    (project.root / "a.txt").symlink_to("b.txt")
    os.utime(project.root / "a.txt", (OLD, OLD), follow_symlinks=False)   # a stat the record may vouch for
    assert rows(project) == {"a.txt": "modified"}
    assert rows(project) == {"a.txt": "modified"}   # from the record


def test_outside_git_every_change_is_seen(project):
    project.write("a.py", "one\n")
    project.write("b.py", "b\n")
    settle(project)
    project.rt("start", "t", "--no-baseline")
    assert rows(project) == {}
    assert not (project.root / ".rt" / LAST_SCAN).exists()
    project.write("a.py", "one two\n")
    os.utime(project.root / "a.py", (OLD, OLD))
    project.write("c.py", "c\n")
    (project.root / "b.py").unlink()
    assert rows(project) == {"a.py": "modified", "b.py": "deleted", "c.py": "added"}


def test_a_damaged_record_is_only_a_slower_scan(tree):
    path = tree.root / ".rt" / LAST_SCAN
    path.write_bytes(b"{not json\n" + path.read_bytes().partition(b"\n")[2])
    assert rows(tree) == {}
    armed(tree)   # written anew
    tree.write("a.py", "x\n")
    assert rows(tree) == {"a.py": "modified"}


def test_in_a_linked_worktree_whose_index_is_elsewhere(project):
    """A linked worktree's `.git` is a file naming its index elsewhere: the record would vouch for an index
    rt cannot see, so none is kept and every delta builds the map."""
    project.write("a.py", "one\n")
    project.init_git()
    project.git("worktree", "add", "-q", str(project.root.parent / "wt"))
    other = type(project)(project.root.parent / "wt")
    settle(other)
    other.rt("start", "t", "--no-baseline")
    assert rows(other) == {}
    assert not (other.root / ".rt" / LAST_SCAN).exists()
    other.write("a.py", "one two\n")
    other.git("add", "a.py")
    assert rows(other) == {"a.py": "modified"}


def test_a_process_scanning_an_unchanged_tree_again_takes_the_map_it_built(tree, monkeypatch):
    """A long-lived process (the hook server) that built the tree's map gets a copy of it from a scan that finds
    the tree unchanged, without asking git for every tracked file's entry again (`snapshot._kept`); any change
    seen by git's listing or the record's stat data still builds the map anew, in the same process."""
    from rt import snapshot
    monkeypatch.setattr(snapshot, "_kept", None, raising=False)
    monkeypatch.chdir(tree.root)
    ctx = Ctx(False)
    first = scan(ctx.repo, ctx.store).files
    asked = []
    real = snapshot._git_output
    monkeypatch.setattr(snapshot, "_git_output", lambda repo, args: asked.append(args) or real(repo, args))
    again = scan(ctx.repo, ctx.store)
    assert again.unchanged and again.files == first and asked == [snapshot._NAMED]
    again.files["a.py"] = ("0" * 40, "text")   # the caller's own copy
    assert scan(ctx.repo, ctx.store).files == first

    def now() -> dict:
        asked.clear()
        files = scan(ctx.repo, ctx.store).files
        assert snapshot._STAGED in asked
        return files
    tree.write("a.py", "one\ntwo\n")
    os.utime(tree.root / "a.py", (OLD, OLD))
    edited = now()
    assert edited["a.py"] != first["a.py"] and edited.keys() == first.keys()
    tree.write("c.py", "c\n")
    os.utime(tree.root / "c.py", (OLD, OLD))
    assert now().keys() == first.keys() | {"c.py"}
    (tree.root / "c.py").unlink()
    (tree.root / "notes.txt").unlink()
    assert now().keys() == first.keys() - {"notes.txt"}


def test_a_snapshot_of_the_tree_written_last_is_not_encoded_again(tree, monkeypatch):
    """`state.save_snapshot` writes the bytes it wrote for the same tree (fingerprint and count) again, without
    encoding them; another tree's are encoded."""
    from rt import snapshot
    monkeypatch.setattr(state, "_written", None, raising=False)
    monkeypatch.chdir(tree.root)
    ctx = Ctx(False)
    task = state.active_task(ctx.store)
    files = scan(ctx.repo, ctx.store).files
    encoded = []
    real = state.json_bytes
    monkeypatch.setattr(state, "json_bytes", lambda data: encoded.append(1) or real(data))
    path = tree.root / ".rt" / "tasks" / task["id"] / state.SNAPSHOT
    state.save_snapshot(ctx.store, task, files, fingerprint(files))
    raw = path.read_bytes()
    path.unlink()
    state.save_snapshot(ctx.store, task, dict(files), fingerprint(files))
    assert path.read_bytes() == raw == real({"files": files, "layout": state.SNAPSHOT_LAYOUT}) and len(encoded) == 1
    assert state.load_snapshot(ctx.store, task) == files and state.snapshot_fingerprint(ctx.store, task) == fingerprint(files)
    other = {**files, "z.py": ("1" * 40, "text")}
    state.save_snapshot(ctx.store, task, other, snapshot.fingerprint(other))
    assert state.load_snapshot(ctx.store, task) == other and len(encoded) == 2

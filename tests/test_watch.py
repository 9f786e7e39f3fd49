"""The watchers a long-lived process keeps on the tree (`rt/watch.py`): while they saw no change, a look-up
takes the kept index without the freshness signature, and a scan git's last listing without asking git;
every change the signature or git would see, they see."""
from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from rt import snapshot, watch
from rt.cli import Ctx
from rt.index import freshness
from rt.index.index import Kept, load

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from genrepo import generate  # noqa: E402

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux's")


class Counted:
    """`freshness.signature`, counting its calls."""

    def __init__(self, monkeypatch):
        self.calls = 0
        real = freshness.signature

        def counted(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)
        monkeypatch.setattr(freshness, "signature", counted)

    def taken(self) -> int:
        n, self.calls = self.calls, 0
        return n


def _age(root, inside: bool = True) -> None:
    """Everything under `root` ten seconds old: a kept state can match (no racy entry). With `inside`,
    `.git/` and `.rt/` too (where a test must not move the index's own files, not)."""
    when = time.time() - 10
    for folder, dirs, files in os.walk(root):
        if not inside:
            dirs[:] = [d for d in dirs if d not in (".git", ".rt")]
        for name in dirs + files:
            os.utime(os.path.join(folder, name), (when, when), follow_symlinks=False)
    os.utime(root, (when, when))
    time.sleep(1.1)   # the change time utime set is now: a second on, it is out of the racy window too


@pytest.fixture
def tree(project, monkeypatch):
    generate(project.root, 2000)
    project.write("app/cart.js", "export function cartTotal(items) {\n  return items.length;\n}\n")
    project.write(".gitignore", ".rt/\n.claude/\nbuild/\n")
    project.init_git()
    monkeypatch.chdir(project.root)
    load(Ctx(False))
    _age(project.root)
    return project


def _kept_load(kept: Kept):
    ctx = Ctx(False)
    ctx.kept = kept
    return load(ctx)


def _defined(idx, name: str) -> list[str]:
    return [p for p, _ in idx.definitions(name)]


def test_no_signature_while_nothing_changed_and_every_change_seen(tree, monkeypatch):
    sig = Counted(monkeypatch)
    kept = Kept(watch=True)
    first = _kept_load(kept)
    assert kept.watcher is not None and set(kept.watcher.wds) == set(kept.quick.dirs) | {"."} and len(kept.quick.dirs) > 40
    sig.taken()
    assert _kept_load(kept) is first and sig.taken() >= 1   # the first check vouches for the watched tree
    for _ in range(3):
        assert _kept_load(kept) is first
    assert sig.taken() == 0   # nothing changed: no git, no stat of the tree

    tree.write("app/cart.js", "export function cartTotal(items) {\n  return items.length;\n}\n"
                              "export function cartCount(items) {\n  return items.length;\n}\n")
    _age(tree.root, inside=False)   # even with the old times back: the write was seen
    second = _kept_load(kept)
    assert sig.taken() >= 1 and _defined(second, "cartCount") == ["app/cart.js"]

    tree.write("app/promo/codes.js", "export function promoCode() {}\n")   # a new folder
    third = _kept_load(kept)
    assert _defined(third, "promoCode") == ["app/promo/codes.js"]
    tree.write("app/promo/more.js", "export function promoMore() {}\n")   # in the folder watched only since
    assert _defined(_kept_load(kept), "promoMore") == ["app/promo/more.js"]
    assert _defined(_kept_load(kept), "promoMore") == ["app/promo/more.js"]
    sig.taken()

    os.remove(tree.root / "app/promo/codes.js")
    assert _defined(_kept_load(kept), "promoCode") == [] and sig.taken() >= 1
    os.rename(tree.root / "app/promo", tree.root / "app/offers")
    assert _defined(_kept_load(kept), "promoMore") == ["app/offers/more.js"]
    tree.write("app/promo/again.js", "export function promoBack() {}\n")   # the old name made again: watched too
    _age(tree.root, inside=False)
    _kept_load(kept)
    _kept_load(kept)
    tree.write("app/promo/again.js", "export function promoBackAgain() {}\n")
    assert _defined(_kept_load(kept), "promoBackAgain") == ["app/promo/again.js"]
    _kept_load(kept)
    tree.write("app/offers/more.js", "export function promoMoved() {}\n")
    assert _defined(_kept_load(kept), "promoMoved") == ["app/offers/more.js"]
    os.makedirs(tree.root / "build")
    os.rename(tree.root / "app/promo", tree.root / "build/promo")   # moved where nothing is watched
    tree.write("app/promo/third.js", "export function promoThird() {}\n")
    _age(tree.root, inside=False)
    _kept_load(kept)
    _kept_load(kept)
    tree.write("app/promo/third.js", "export function promoThirdAgain() {}\n")
    assert _defined(_kept_load(kept), "promoThirdAgain") == ["app/promo/third.js"]
    shutil.rmtree(tree.root / "app/promo")
    shutil.rmtree(tree.root / "app/offers")   # a folder removed and made again (a branch switch): watched anew
    tree.write("app/offers/more.js", "export function promoMore() {}\n")
    _age(tree.root, inside=False)   # no racy entry: the next loads vouch for the tree
    _kept_load(kept)
    _kept_load(kept)
    tree.write("app/offers/more.js", "export function promoAgain() {}\n")
    assert _defined(_kept_load(kept), "promoAgain") == ["app/offers/more.js"]
    tree.write("node_modules_like.txt", "")   # any file in a watched folder counts
    sig.taken()
    _kept_load(kept)
    assert sig.taken() >= 1


def test_ignored_folders_stay_unwatched_and_git_index_rewrites_count(tree, monkeypatch):
    sig = Counted(monkeypatch)
    kept = Kept(watch=True)
    _kept_load(kept)
    _kept_load(kept)
    tree.write("build/out.js", "export function built() {}\n")   # ignored: made once, then written in
    _age(tree.root, inside=False)
    _kept_load(kept)
    _kept_load(kept)
    sig.taken()
    _kept_load(kept)
    assert sig.taken() == 0
    tree.write("build/out.js", "export function rebuilt() {}\n")
    idx = _kept_load(kept)
    assert sig.taken() == 0 and _defined(idx, "rebuilt") == []   # not watched, and not indexed either
    tree.git("add", "-A")   # git rewrites its index: the signature holds its stat data, so it is taken again
    _kept_load(kept)
    assert sig.taken() >= 1


def test_without_a_watcher_every_look_up_takes_the_signature(tree, monkeypatch):
    sig = Counted(monkeypatch)
    monkeypatch.setattr(watch, "_limit", lambda: 20)   # fewer watches than this repository has folders
    kept = Kept(watch=True)
    first = _kept_load(kept)
    assert kept.watcher is None
    sig.taken()
    for _ in range(3):
        assert _kept_load(kept) is first
    assert sig.taken() == 3
    plain = Kept()
    _kept_load(plain)
    sig.taken()
    _kept_load(plain)
    assert plain.watcher is None and sig.taken() >= 1
    tree.write("app/cart.js", "export function cartSum() {}\n")
    assert _defined(_kept_load(kept), "cartSum") == ["app/cart.js"]


def test_a_served_command_line_starts_no_git_while_nothing_changed(tree, monkeypatch):
    """The hook server runs a typed `rt symbol` with its kept index (`cli.main(argv, kept)`): no `git diff-files`
    is started for it while the watcher vouches for the tree. A fresh process starts one early, to overlap its
    imports; the server has none, and its index mostly needs no git."""
    import contextlib
    import io
    from rt import cli, core
    spawned = []
    real = core.GitProcess.__init__

    def counted(self, root, *args):
        spawned.append(args[0])
        real(self, root, *args)
    monkeypatch.setattr(core.GitProcess, "__init__", counted)

    def symbol(name: str, kept) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert cli.main(["symbol", name], kept) == 0
        return out.getvalue()
    kept = Kept(watch=True)
    for _ in range(3):
        assert "app/cart.js" in symbol("cartTotal", kept)
    spawned.clear()
    assert "app/cart.js" in symbol("cartTotal", kept) and spawned == []
    symbol("cartTotal", None)
    assert spawned == ["diff-files"]   # a fresh process's early check
    spawned.clear()
    tree.write("app/cart.js", "export function cartSum() {}\n")
    assert "app/cart.js" in symbol("cartSum", kept) and "diff-files" in spawned   # a change: git asked then


def test_a_queue_overflow_counts_as_a_change(tree, monkeypatch):
    sig = Counted(monkeypatch)
    kept = Kept(watch=True)
    _kept_load(kept)
    _kept_load(kept)
    sig.taken()
    w = kept.watcher
    assert not w.changed()
    assert w._matters(watch._HEAD.pack(-1, watch._Q_OVERFLOW, 0, 0))
    git_wd = next(iter(w.git_wds))
    assert not w._matters(watch._HEAD.pack(git_wd, watch._CLOSE_WRITE, 0, 16) + b"index.lock\0\0\0\0\0\0")
    assert w._matters(watch._HEAD.pack(git_wd, watch._MOVED_TO, 0, 8) + b"index\0\0\0")


class GitNamed:
    """`snapshot._git_output`, counting the calls that ask git for the modified and untracked files."""

    def __init__(self, monkeypatch):
        self.calls = 0
        real = snapshot._git_output

        def counted(repo, args):
            self.calls += args == snapshot._NAMED
            return real(repo, args)
        monkeypatch.setattr(snapshot, "_git_output", counted)
        monkeypatch.setattr(snapshot, "WATCH", True)
        monkeypatch.setattr(snapshot, "_listings", {})

    def taken(self) -> int:
        n, self.calls = self.calls, 0
        return n


def _scan_as_git_says(monkeypatch) -> dict:
    """The tree's map from a watched scan, checked against a scan that asks git (WATCH off)."""
    ctx = Ctx(False)
    watched = snapshot.scan(ctx.repo, ctx.store).files
    monkeypatch.setattr(snapshot, "WATCH", False)
    try:
        assert snapshot.scan(ctx.repo, ctx.store).files == watched
    finally:
        monkeypatch.setattr(snapshot, "WATCH", True)
    return watched


def test_a_watched_scan_asks_git_only_after_a_change_and_sees_every_change(tree, monkeypatch):
    os.makedirs(tree.root / "drafts")   # an empty untracked folder: a file may come in it
    tree.write("notes/todo.txt", "buy milk\n")   # an untracked one
    _age(tree.root)
    named = GitNamed(monkeypatch)
    ctx = Ctx(False)
    first = snapshot.scan(ctx.repo, ctx.store).files
    snapshot.scan(ctx.repo, ctx.store).files   # the first with every folder watched from before git ran
    assert named.taken() == 2
    for _ in range(3):
        again = snapshot.scan(ctx.repo, ctx.store)
        assert again.unchanged
    assert named.taken() == 0   # nothing changed: git not asked

    steps = [lambda: tree.write("app/cart.js", "export function cartSum() {}\n"),
             lambda: tree.write("drafts/plan.md", "# plan\n"),
             lambda: tree.write("app/promo/codes.js", "export const code = 1;\n"),
             lambda: tree.write("app/promo/more.js", "export const more = 2;\n"),   # in the folder watched only since
             lambda: os.remove(tree.root / "notes/todo.txt"),
             lambda: (tree.root / ".git/info").mkdir(exist_ok=True) or
             (tree.root / ".git/info/exclude").write_text("app/promo/\n")]   # git's own ignore rules count too
    for step in steps:
        _scan_as_git_says(monkeypatch)
        _scan_as_git_says(monkeypatch)   # vouched for again
        named.taken()
        step()
        files = _scan_as_git_says(monkeypatch)
        assert named.taken() >= 2   # the change made the watched scan ask git (the check's scan asks always)
    assert "drafts/plan.md" in files and "notes/todo.txt" not in files and "app/promo/more.js" not in files
    assert files["app/cart.js"] != first["app/cart.js"]

    shutil.rmtree(tree.root / ".git/info")   # git's info folder gone, then made again after the watch began
    snapshot.scan(ctx.repo, ctx.store).files
    snapshot.scan(ctx.repo, ctx.store).files
    (tree.root / ".git/info").mkdir()
    _scan_as_git_says(monkeypatch)
    _scan_as_git_says(monkeypatch)
    (tree.root / ".git/info/exclude").write_text("drafts/\n")
    assert "drafts/plan.md" not in _scan_as_git_says(monkeypatch)

    _scan_as_git_says(monkeypatch)
    named.taken()
    snapshot.scan(ctx.repo, ctx.store).files
    assert named.taken() == 0
    tree.write("build/out.js", "export function built() {}\n")   # ignored: not watched, not listed
    assert "build/out.js" not in snapshot.scan(ctx.repo, ctx.store).files
    assert named.taken() <= 1   # the folder made in the root counts once


def test_no_watcher_on_a_file_system_another_machine_can_change(tree, tmp_path, monkeypatch):
    table = tmp_path / "mountinfo"
    table.write_text("27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
                     "40 27 0:50 / /mnt/c rw,noatime - 9p drvfs rw,aname=drvfs\n"
                     "41 40 0:51 / /mnt/c/my\\040repo rw - nfs4 server:/export rw\n"
                     "42 27 0:52 / /mnt/cache rw - tmpfs tmpfs rw\n")
    assert watch._fs_type("/home/me/repo", str(table)) == "ext4"
    assert watch._fs_type("/mnt/c/work/repo", str(table)) == "9p"   # WSL's Windows drive
    assert watch._fs_type("/mnt/c/my repo/src", str(table)) == "nfs4"
    assert watch._fs_type("/mnt/cache", str(table)) == "tmpfs" and watch._fs_type("/mnt/cachet", str(table)) == "ext4"
    assert watch._fs_type(str(tree.root)) in watch.LOCAL   # this machine's own table

    sig = Counted(monkeypatch)
    named = GitNamed(monkeypatch)
    monkeypatch.setattr(watch, "_fs_type", lambda path: "nfs4")
    kept = Kept(watch=True)
    _kept_load(kept)
    ctx = Ctx(False)
    sig.taken()
    named.taken()
    for _ in range(3):
        _kept_load(kept)
        snapshot.scan(ctx.repo, ctx.store).files
    assert kept.watcher is None and sig.taken() == 3 and named.taken() == 3   # git asked every time, as before

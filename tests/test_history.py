"""The files recent commits changed together (rt/index/history.py) and what the ranking does with them."""
from __future__ import annotations

import json
import os
import subprocess

import pytest
from conftest import GIT_ENV
from rt.core import Repo
from rt.index import history
from rt.store import Store


def commit(project, files: dict[str, str], message: str, when: int | None = None) -> None:
    """Commit `files`; at `when` (seconds since the epoch) if given."""
    for path, text in files.items():
        project.write(path, text)
    project.git("add", "-A")
    if when is None:
        project.git("commit", "-q", "-m", message)
        return
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=project.root, check=True, capture_output=True,
                   env={**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": f"@{when} +0000", "GIT_COMMITTER_DATE": f"@{when} +0000"})


def in_git(project, files: dict[str, str], filler) -> None:
    """`files` and 30 unrelated files (`filler(i)` gives each one's path and text), in a first commit: the
    words of the task are then rare enough to choose."""
    for path, text in [*files.items(), *map(filler, range(30))]:
        project.write(path, text)
    project.init_git()


def load(project):
    repo = Repo(project.root, True)
    return history.load(repo, Store(repo))


def kept(project) -> dict:
    return json.loads((project.root / ".rt" / history.FILE).read_text())


def test_partners_count_the_commits_two_files_share_and_leave_wide_commits_merges_and_the_first_out(project):
    project.write("a.py", "a = 0\n")
    project.init_git()
    for i in range(3):
        commit(project, {"a.py": f"a = {i + 1}\n", "b.py": f"b = {i}\n"}, f"a and b {i}")
    commit(project, {"a.py": "a = 9\n", "c.py": "c = 1\n"}, "a and c")
    commit(project, {f"wide/f{i}.py": "x = 1\n" for i in range(history.WIDEST)} | {"a.py": "a = 10\n", "d.py": "d = 1\n"},
           "a sweep over many files")
    project.git("checkout", "-q", "-b", "side")
    commit(project, {"e.py": "e = 1\n"}, "on the side")
    project.git("checkout", "-q", "main")
    commit(project, {"a.py": "a = 11\n"}, "a alone")
    project.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    got = load(project)
    assert got.partners("a.py") == {"b.py": (3, 5), "c.py": (1, 5)}   # 3 with b, 1 with c, 1 alone; not the first
    assert got.partners("b.py") == {"a.py": (3, 3)}
    assert got.partners("d.py") == {} and got.partners("e.py") == {}   # the wide commit; the merge's other side alone
    assert got.partners("nowhere.py") == {}


def test_the_history_is_kept_per_head_and_only_the_newer_commits_are_read(project):
    project.write("a.py", "a = 0\n")
    project.init_git()
    commit(project, {"a.py": "a = 1\n", "b.py": "b = 1\n"}, "one")
    load(project)
    head = project.git("rev-parse", "HEAD").strip()
    assert kept(project)["head"] == head and kept(project)["commits"] == [[head, ["a.py", "b.py"], "one"]]
    data = kept(project)
    data["commits"][0][1] = ["marked.py", "other.py"]   # a change only a new read would undo
    (project.root / ".rt" / history.FILE).write_text(json.dumps(data))
    assert load(project).partners("marked.py") == {"other.py": (1, 1)}   # read from the kept file
    commit(project, {"a.py": "a = 2\n", "c.py": "c = 1\n"}, "two")
    got = load(project)
    assert kept(project)["commits"][1] == [head, ["marked.py", "other.py"], "one"]   # kept: only "two" was read
    assert got.partners("c.py") == {"a.py": (1, 1)}
    project.git("commit", "-q", "--amend", "-m", "two, reworded")   # "two" is gone from the history, "one" stays
    got = load(project)
    assert [c for c, _, _ in kept(project)["commits"]] == [project.git("rev-parse", "HEAD").strip(), head]
    assert got.partners("c.py") == {"a.py": (1, 1)} and got.partners("marked.py") == {"other.py": (1, 1)}
    assert project.git("status", "--porcelain") == ""


def test_the_history_kept_and_brought_up_to_date_is_the_history_read_anew(project, monkeypatch):
    """Commits on a branch merged later, with dates older than the main line's: the window of the last COMMITS
    commits that a first read sees, reached from a history kept at an earlier HEAD."""
    monkeypatch.setattr(history, "COMMITS", 4)
    project.write("a.py", "a = 0\n")
    project.init_git()
    day = 1_700_000_000
    for i in range(3):
        commit(project, {"a.py": f"a = {i + 1}\n", f"m{i}.py": "x = 1\n"}, f"main {i}", day + 100 * (i + 1))
    project.git("checkout", "-q", "-b", "side", "HEAD~2")
    for i in range(2):   # dated before the main line's last commits
        commit(project, {"s.py": f"s = {i}\n", f"s{i}.py": "x = 1\n"}, f"side {i}", day + 110 + i)
    project.git("checkout", "-q", "main")
    load(project)
    project.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    commit(project, {"a.py": "a = 9\n", "n.py": "x = 1\n"}, "after the merge", day + 1000)
    brought = load(project)
    (project.root / ".rt" / history.FILE).unlink()
    anew = load(project)
    assert brought.commits == anew.commits and len(anew.commits) == 4
    assert sorted(anew.partners("a.py")) == sorted(p for p, _ in (brought.partners("a.py").items()))


def test_no_history_outside_git_or_before_the_first_commit(project):
    project.write("a.py", "a = 1\n")
    repo = Repo(project.root, False)
    assert history.load(repo, Store(repo)) is None
    project.init_git(commit=False)
    assert load(project) is None
    assert not (project.root / ".rt" / history.FILE).exists()


def test_a_file_changed_with_the_best_ranked_one_follows_it(project):
    """The task's words are all in `billing/invoice.py`; the registry of its totals changed with it in most of
    its commits and shares no word with the task: it is ranked next, saying why. A file deleted since is not."""
    in_git(project, {"billing/invoice.py": "def invoice_total(lines):\n    return sum(lines)\n",
                     "billing/registry.py": "HANDLERS = {}\n", "billing/old.py": "OLD = 1\n"},
           lambda i: (f"misc/m{i}.py", f"def helper_{i}():\n    return {i}\n"))
    for i in range(3):
        commit(project, {"billing/invoice.py": f"def invoice_total(lines):\n    return sum(lines) + {i}\n",
                         "billing/registry.py": f"HANDLERS = {{{i}: 1}}\n", "billing/old.py": f"OLD = {i}\n"},
               f"invoice step {i}")
    project.git("rm", "-q", "billing/old.py")
    project.git("commit", "-q", "-m", "drop old")
    data = project.rt_json("pack", "round the invoice total")
    ranked = [r["path"] for r in data["ranked"]]
    assert ranked[:2] == ["billing/invoice.py", "billing/registry.py"]
    assert data["ranked"][1]["why"][-1] == "changed with billing/invoice.py (3 of 3 commits)"
    assert "billing/old.py" not in ranked
    (project.root / ".rt" / history.FILE).unlink()
    project.write("billing/invoice.py", "def invoice_total(lines):\n    return sum(lines) + 9\n")
    project.git("add", "-A")
    project.git("commit", "-q", "-m", "invoice alone")
    assert project.rt_json("pack", "round the invoice total")["ranked"][1]["path"] == "billing/registry.py"


def test_a_history_that_cannot_be_kept_is_still_given(project, monkeypatch):
    project.write("a.py", "a = 0\n")
    project.init_git()
    commit(project, {"a.py": "a = 1\n", "b.py": "b = 1\n"}, "one")

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(Store, "write_json", full)
    assert load(project).partners("a.py") == {"b.py": (1, 1)}
    assert not (project.root / ".rt" / history.FILE).exists()


def test_a_history_read_meanwhile_is_the_history_loaded_and_kept_only_when_taken(project, monkeypatch):
    """`Reading`: git's part in a thread while the caller works on (the cold /runtask hook's scan lists the tree
    meanwhile: nothing is written to `.rt/` before `result()`); an error is raised from `result()`, as `load`'s."""
    project.write("a.py", "a = 0\n")
    project.init_git()
    commit(project, {"a.py": "a = 1\n", "b.py": "b = 1\n"}, "one")
    commit(project, {"a.py": "a = 2\n", "c.py": "c = 1\n"}, "two")
    repo = Repo(project.root, True)
    reading = history.Reading(repo, Store(repo))
    reading._thread.join()
    assert not (project.root / ".rt" / history.FILE).exists()
    got = reading.result()
    assert got.commits == load(project).commits and got.partners("a.py") == {"b.py": (1, 2), "c.py": (1, 2)}
    assert kept(project)["head"] == project.git("rev-parse", "HEAD").strip()

    def broken(*args, **kwargs):
        raise ValueError("damaged")
    monkeypatch.setattr(history, "_read", broken)
    monkeypatch.setattr(history, "_last", [None])   # as in a process that has read no history yet
    reading = history.Reading(repo, Store(repo))
    with pytest.raises(ValueError, match="damaged"):
        reading.result()


def test_the_files_of_past_commits_worded_like_the_task_rise(project, monkeypatch):
    """`editor/mount.ts` holds none of the task's words, but the past commits about the toolbar's position
    changed it: with LIKE on, it ranks among the first, saying why; with LIKE at 0, it is not ranked at all.
    A commit sharing one common word with the task lends little. Pinned, it leads once, lent nothing."""
    in_git(project, {"editor/toolbar.ts": "export function toolbarMenu() { return 'toolbar'; }\n",
                     "editor/mount.ts": "export function mountEditor(node) { return node; }\n"},
           lambda i: (f"misc/m{i}.ts", f"export function helper{i}() {{ return {i}; }}\n"))
    for i in range(2):
        commit(project, {"editor/mount.ts": f"export function mountEditor(node) {{ return node + {i}; }}\n"},
               f"fix: toolbar is mispositioned when the document opens ({i})")
    commit(project, {"misc/m1.ts": "export function helper1() { return 'one'; }\n"}, "docs: a note to document m1")
    task = "Fix mispositioned toolbar on first document open"
    from rt.pack import rank
    monkeypatch.setattr(rank, "LIKE", 0.0)
    assert "editor/mount.ts" not in [r["path"] for r in project.rt_json("pack", task)["ranked"]]
    monkeypatch.undo()
    data = project.rt_json("pack", task)
    ranked = [r["path"] for r in data["ranked"]]
    assert ranked[0] == "editor/toolbar.ts" and "misc/m1.ts" not in ranked[:ranked.index("editor/mount.ts")]
    assert "changed by past commits like the task" in data["ranked"][ranked.index("editor/mount.ts")]["why"]
    assert load(project).words[0] == "doc document m1 not to"   # its message's keys, newest first
    pinned = project.rt_json("pack", task, "--path", "editor/mount.ts")["ranked"]
    assert [r["path"] for r in pinned].count("editor/mount.ts") == 1 and pinned[0]["why"] == ["pinned"]


def test_head_is_read_from_gits_files_and_a_kept_history_is_loaded_with_no_git_process(project, monkeypatch):
    """A served `rt pack` asked git for HEAD every time: `head_commit` reads it from `.git` (a branch's loose ref,
    its packed ref, a detached HEAD, a worktree's), as git says it; none before the first commit (git is asked).
    With the history kept at HEAD, `load` starts no git, and in one process reads the kept file once."""
    fresh = project.root.parent / "fresh"
    subprocess.run(["git", "init", "-q", str(fresh)], check=True)
    assert history.head_commit(str(fresh)) is None   # no commit yet
    project.write("a.py", "a = 0\n")
    project.init_git()
    commit(project, {"a.py": "a = 1\n", "b.py": "b = 1\n"}, "one")

    def rev(where=project.root):
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True).stdout.strip()
    assert history.head_commit(str(project.root)) == rev()
    project.git("pack-refs", "--all")
    assert not (project.root / ".git" / "refs" / "heads" / "main").exists()
    assert history.head_commit(str(project.root)) == rev()
    commit(project, {"a.py": "a = 2\n"}, "two")   # a loose ref again, newer than the packed one
    assert history.head_commit(str(project.root)) == rev()
    project.git("checkout", "-q", "--detach", "HEAD~1")
    assert history.head_commit(str(project.root)) == rev()
    project.git("checkout", "-q", "main")
    other = project.root.parent / (project.root.name + "-wt")
    project.git("worktree", "add", "-q", "-b", "side", str(other))
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "on the side"], cwd=other, check=True,
                   env={**os.environ, **GIT_ENV})
    assert history.head_commit(str(other)) == rev(other) != rev()

    load(project)
    asked, reads = [], []
    monkeypatch.setattr(history, "git", lambda *a, **k: asked.append(a))
    real_read = history._read
    monkeypatch.setattr(history, "_read", lambda store: reads.append(1) or real_read(store))
    monkeypatch.setattr(history, "_last", [None])
    first, again = load(project), load(project)
    assert asked == [] and reads == [1] and first is again and first.partners("b.py") == {"a.py": (1, 1)}

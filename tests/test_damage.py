"""Damaged state: every kind of file under .rt/ cut short. A damaged index is only a cache, so look-ups and
`rt index --rebuild` build it again and answer; `rt repair` checks every file and sets the damaged aside."""
from __future__ import annotations

import json
import os
import re

import pytest

INDEX_FILES = ("meta.json", "paths", "quick", "blobs.json", "delta.json", "f000.json", "i000", "s000.json", "w000.json",
               "r000.json")
LOOKUPS = (("symbol", "foo"), ("refs", "foo"), ("find", "return 1"), ("outline", "a.py"), ("refs", "bar"),
           ("slice", "a.py", "--symbol", "foo"), ("index",))


def _indexed(project) -> dict[tuple, str]:
    """A repository whose index has a delta (c.py edited after the build); each look-up's answer."""
    project.write("a.py", "def foo():\n    return 1\n")
    project.write("b.py", "from a import foo\nfoo()\n")
    project.write("c.py", "X = 1\n")
    project.init_git()
    project.rt("index")
    project.write("c.py", "def bar():\n    return 1\n\nbar()\n")
    answers = {args: project.rt(*args) for args in LOOKUPS}
    assert json.loads(project.read(".rt/index/delta.json"))["files"]   # the delta holds c.py
    return answers


def _cut(path, how: str) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if how == "half" else data[:-1])


@pytest.mark.parametrize("how", ["half", "last byte"])
@pytest.mark.parametrize("name", INDEX_FILES)
def test_look_ups_rebuild_a_cut_index_file_and_answer(project, name, how):
    answers = _indexed(project)
    for args in LOOKUPS:
        _cut(project.root / ".rt" / "index" / name, how)
        assert _same(project.rt(*args)) == _same(answers[args]), (name, args)


def _same(answer: str) -> str:
    """An answer without what differs between a build and a warm look-up: how many files were parsed now."""
    return re.sub(r"\(\d+ files? parsed now\)", "", answer)


@pytest.mark.parametrize("name", INDEX_FILES)
def test_index_rebuild_mends_every_file(project, name):
    """With the tree as the last build saw it, each shard's content is unchanged: a rebuild that skipped
    the shards whose content it thought it had would leave the cut one as it is."""
    _indexed(project)
    project.rt("index", "--rebuild")
    healthy = {p.name: p.read_bytes() for p in (project.root / ".rt" / "index").iterdir() if p.name != "quick"}
    _cut(project.root / ".rt" / "index" / name, "last byte")
    project.rt("index", "--rebuild")
    now = {p.name: p.read_bytes() for p in (project.root / ".rt" / "index").iterdir() if p.name != "quick"}
    assert now == healthy


def test_a_look_up_as_a_real_process_never_ends_in_an_internal_error(project):
    _indexed(project)
    _cut(project.root / ".rt" / "index" / "paths", "last byte")
    proc = project.rt_proc("symbol", "foo")
    assert (proc.returncode, proc.stdout) == (0, "a.py:1-2  function foo  def foo():\n"), proc.stderr
    assert "the index is damaged" in proc.stderr and "rebuilt" in proc.stderr


@pytest.mark.parametrize("name", INDEX_FILES)
def test_repair_finds_a_cut_index_file_and_rebuilds_the_index(project, name):
    answers = _indexed(project)
    _cut(project.root / ".rt" / "index" / name, "last byte")
    out = project.rt("repair")
    assert f"  index/{name}" in out and "the index was rebuilt" in out, out
    assert (project.root / ".rt" / "damaged" / f"index__{name}").is_file()
    assert project.rt("repair") == "nothing damaged in .rt/\n"
    assert project.rt("refs", "foo") == answers[("refs", "foo")]


def test_repair_checks_task_files_blobs_and_the_gitignore(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.write("notes.txt", "untracked, so its original is kept in .rt/blobs\n")
    project.rt("start", "t", "--no-baseline")
    project.rt("plan", "--edit", "a.py")
    rt = project.root / ".rt"
    store = {p.relative_to(rt).as_posix() for p in rt.rglob("*") if p.is_file()}
    blobs = sorted(p for p in store if p.startswith("blobs/"))
    assert blobs
    (rt / "tasks" / "1-t" / "hook-outside.json").write_text('{"files": {"a.py"', encoding="utf-8")
    _cut(rt / blobs[0], "last byte")
    _cut(rt / "statcache.json", "half")
    (rt / ".gitignore").write_text("", encoding="utf-8")
    out = project.rt("repair")
    assert "  tasks/1-t/hook-outside.json" in out and f"  {blobs[0]}" in out and "  statcache.json" in out
    assert "  .gitignore: restored" in out
    assert ".rt" not in project.git("status", "--porcelain", "--untracked-files=all")   # hidden from git again
    assert project.rt("repair") == "nothing damaged in .rt/\n"
    assert project.rt_json("status")["task"]["state"] == "planned"   # the task itself was sound and stays
    project.write("a.py", "x = 2\n")
    assert "M a.py  +1 -1" in project.rt("delta")


@pytest.mark.parametrize("rel, record, commands", [
    ("state.json", {"active": 5, "next": 2}, [("status",)]),
    ("state.json", {"active": "../../x", "next": 2}, [("status",)]),
    ("notes.json", {"notes": None, "next": 1}, [("note", "--decision", "x"), ("handoff",)]),
    ("notes.json", {"notes": []}, [("note", "--decision", "x")]),
    ("journal.json", {"entries": [1]}, [("journal",), ("handoff",)]),
    ("sessions.json", {"sessions": []}, [("usage",)]),
    ("intent.json", {"on": True, "turns": [], "grants": []}, [("intent",)]),
    ("tasks/1-t/task.json", {"history": None}, [("status",), ("tasks",), ("handoff",)]),
    ("tasks/1-t/task.json", {"scope": {"edit": ["a.py"]}}, [("delta",), ("review",), ("verify",), ("scope", "add", "a.py")]),
    ("tasks/1-t/task.json", {"scope": {"edit": "a.py", "create": [], "delete": []}}, [("delta",)]),
    ("tasks/1-t/task.json", {"state": "done"}, [("status",), ("block", "x"), ("start", "u", "--force"), ("tasks",)]),
    ("tasks/1-t/task.json", {"steps": [{}]}, [("status",)]),
    ("tasks/1-t/task.json", {"history": [{}]}, [("status",), ("finish", "--incomplete")]),
    ("tasks/1-t/task.json", {"claims": [{}]}, [("finish", "--incomplete")]),
    ("tasks/1-t/task.json", {"verify": "x"}, [("status",)]),
    ("tasks/1-t/snapshot.json", {"files": {"a.py": None}}, [("delta",)]),
])
def test_a_record_of_another_shape_is_damage_repair_sets_aside(project, rel, record, commands):
    """Valid JSON with rt's schema, but not what rt writes there (left by a hand or another program): each command
    says so in one line and `rt repair` sets it aside (it was an internal error, and repair found nothing)."""
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    path = project.root / ".rt" / rel
    if rel.endswith("task.json"):   # the task's own record, one key changed
        record = json.loads(path.read_text()) | record
    path.write_text(json.dumps(record | {"schema": 1}))
    for args in commands:
        project.rt(*args, ret=2)
        assert project.last_err.startswith(f"rt: error: .rt/{rel} is damaged (its '"), (args, project.last_err)
        assert project.last_err.endswith("' is not what rt writes there); run `rt repair` to set it aside and continue\n")
    assert f"  {rel}: damaged, set aside in .rt/damaged/" in project.rt("repair")
    for args in commands:   # after it: an answer, or a plain one-line error (the task's record is gone), never damage
        proc = project.rt_proc(*args)
        assert proc.returncode in (0, 2) and "damaged" not in proc.stderr, (args, proc.stderr)


def test_a_stat_cache_of_another_shape_is_rebuilt(project):
    """It is only a cache: a damaged one is dropped and built again, never an internal error."""
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    (project.root / ".rt" / "statcache.json").write_text(json.dumps({"files": [], "layout": 3, "schema": 1}))
    project.write("a.py", "x = 2\n")
    assert "M a.py  +1 -1" in project.rt("delta")


def test_repair_leaves_a_sound_store_alone(project):
    _indexed(project)
    project.rt("start", "t", "--no-baseline")
    before = {p: p.read_bytes() for p in (project.root / ".rt").rglob("*") if p.is_file() and p.name != "lock"}
    assert project.rt("repair") == "nothing damaged in .rt/\n"
    after = {p: p.read_bytes() for p in (project.root / ".rt").rglob("*") if p.is_file() and p.name != "lock"}
    assert after == before
    assert not os.path.exists(project.root / ".rt" / "damaged")


@pytest.mark.parametrize("name", ["s000.json", "w000.json", "f000.json"])
def test_runtask_hook_answers_over_a_damaged_index(project, name):
    from tests.hooks_support import context_text, hook, payload
    project.write("billing/invoice.py", "def total(items):\n    return sum(i.price for i in items)\n")
    project.write("README.md", "# shop\n")
    project.init_git()
    project.rt("index")
    _cut(project.root / ".rt" / "index" / name, "last byte")
    code, out, _ = hook(project, "user-prompt-submit",
                        payload(project, "UserPromptSubmit", prompt="/runtask fix the invoice total rounding"))
    text = context_text(out, "UserPromptSubmit")
    assert code == 0 and text.startswith("rt: task 1-fix-the-invoice-total-rounding started."), text
    assert "could not run" not in text and "billing/invoice.py" in text


@pytest.mark.parametrize("how", ["link out", "link in", "file", "dangling link"])
def test_an_index_folder_that_is_a_link_or_no_folder_is_never_written_through(project, tmp_path, how):
    """A committed `.rt/index -> somewhere`: the first look-up built the index there and removed the files it found
    (a folder outside the repository, or the repository's own src/). Refused in one line; `rt repair` sets it aside."""
    project.write("src/a.py", "def f():\n    return 1\n")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "notes.txt").write_text("mine\n")
    (project.root / ".rt").mkdir()
    index = project.root / ".rt" / "index"
    if how == "link out":
        index.symlink_to(victim)
    elif how == "link in":
        index.symlink_to("../src")
    elif how == "file":
        index.write_text("x\n")
    else:
        index.symlink_to(tmp_path / "nowhere")
    project.init_git()
    project.rt("symbol", "f", ret=2)
    assert project.last_err.startswith("rt: error: .rt/index is ") and "run `rt repair`" in project.last_err
    assert project.last_err.count("\n") == 1 and str(tmp_path) not in project.last_err
    assert sorted(os.listdir(victim)) == ["notes.txt"] and project.read("src/a.py") == "def f():\n    return 1\n"
    assert "  index: damaged, set aside in .rt/damaged/" in project.rt("repair")
    assert project.rt("symbol", "f").startswith("src/a.py:1-2")
    assert sorted(os.listdir(victim)) == ["notes.txt"]


@pytest.mark.parametrize("name", ["meta.json", "paths", "s000.json", "blobs.json", "delta.json", "quick"])
def test_an_index_file_that_is_a_folder_is_one_line_and_repair_mends_it(project, name):
    """A folder where the index keeps a file was an internal error (IsADirectoryError) on every look-up; then the
    error came after a notice that the index was "rebuilt from the tree", which it never was."""
    _indexed(project)
    target = project.root / ".rt" / "index" / name
    target.unlink()
    target.mkdir()
    proc = project.rt_proc("symbol", "f")
    assert proc.returncode in (0, 2) and "internal error" not in proc.stderr, proc.stderr
    if proc.returncode == 2:
        assert proc.stderr.count("\n") == 1, proc.stderr   # the error alone
        last = proc.stderr.rstrip("\n")
        assert last.startswith("rt: error: .rt/index/") and last.endswith("run `rt repair` to set it aside")
    project.rt("repair")
    assert project.rt_proc("symbol", "f").returncode in (0, 1)


def test_the_states_a_task_record_may_hold_are_those_of_the_state_machine():
    from rt.state import TRANSITIONS
    from rt.store import TASK_STATES
    assert TASK_STATES == set(TRANSITIONS)

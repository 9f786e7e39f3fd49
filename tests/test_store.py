"""`.rt/`: self-ignoring, schema-checked, damage reported in one line with a way out."""
import json

import pytest


@pytest.fixture
def repo(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "t")
    return project


def task_json(repo):
    return next((repo.root / ".rt" / "tasks").iterdir()) / "task.json"


def test_store_never_shows_in_git_status(repo):
    repo.rt("plan", "--edit", "a.py")
    assert (repo.root / ".rt" / ".gitignore").read_text() == "*\n"
    assert repo.git("status", "--porcelain") == ""


def test_state_file_cut_in_half_gives_one_line_and_repair_recovers(repo):
    f = task_json(repo)
    raw = f.read_bytes()
    f.write_bytes(raw[: len(raw) // 2])
    proc = repo.rt_proc("status")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "is damaged" in proc.stderr and "rt repair" in proc.stderr
    out = repo.rt("repair")
    assert "task.json" in out and "active task 1-t cleared" in out
    damaged = list((repo.root / ".rt" / "damaged").iterdir())
    assert any(p.read_bytes() == raw[: len(raw) // 2] for p in damaged)  # set aside, not deleted
    repo.rt("start", "again")
    assert repo.rt_json("status")["task"]["id"] == "2-again"
    assert repo.read("a.py") == "x = 1\n"


def test_newer_schema_is_refused_with_upgrade_hint(repo):
    f = task_json(repo)
    data = json.loads(f.read_text())
    data["schema"] = 99
    f.write_text(json.dumps(data))
    repo.rt("status", ret=2)
    assert "written by a newer rt (schema 99" in repo.last_err and "upgrade rt" in repo.last_err


def test_missing_state_and_missing_task_file(project):
    project.init_git(commit=False)
    assert project.rt("status").startswith("no active task")
    project.rt("delta", ret=2)
    assert "no rt task here yet" in project.last_err
    project.rt("start", "t")
    task_json(project).unlink()
    project.rt("status", ret=2)
    assert "rt repair" in project.last_err
    project.rt("repair")
    assert project.rt("status").startswith("no active task")


def test_damaged_stat_cache_is_rebuilt_not_fatal(repo):
    (repo.root / ".rt" / "statcache.json").write_text("{not json")
    repo.write("a.py", "x = 2\n")
    assert "M a.py  +1 -1" in repo.rt("delta")


def test_no_temp_files_left_behind(repo):
    for i in range(5):
        repo.rt("status")
    repo.rt("plan", "--edit", "a.py")
    leftovers = [p for p in (repo.root / ".rt").rglob(".tmp-*")]
    assert leftovers == []


def test_stat_cache_of_another_layout_is_rebuilt_not_misread(repo):
    cache = repo.root / ".rt" / "statcache.json"
    data = json.loads(cache.read_text())
    data.pop("layout")
    data["files"] = {p: v[:5] for p, v in data["files"].items()}  # an older rt's five-field entries
    cache.write_text(json.dumps(data))
    repo.write("a.py", "x = 2\n")
    assert "M a.py  +1 -1" in repo.rt("delta")
    from rt.snapshot import CACHE_LAYOUT
    assert json.loads(cache.read_text())["layout"] == CACHE_LAYOUT

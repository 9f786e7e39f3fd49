"""Paths: nothing outside the repository is touched, whatever the input."""
import os

import pytest


@pytest.fixture
def repo(project, tmp_path):
    project.write("src/a.py", "x = 1\n")
    project.init_git()
    (tmp_path / "outside.txt").write_text("secret\n")
    project.rt("start", "t")
    return project


@pytest.mark.parametrize("bad", ["../outside.txt", "src/../../outside.txt", "/etc/passwd"])
def test_paths_outside_the_repo_are_refused(repo, bad):
    repo.rt("plan", "--edit", bad, ret=2)
    assert "outside the repository" in repo.last_err
    repo.rt("plan", "--create", bad, ret=2)
    assert "outside the repository" in repo.last_err
    repo.rt("start", "x", "--path", bad, "--force", ret=2)
    assert "outside the repository" in repo.last_err


def test_store_paths_are_refused(repo):
    repo.rt("plan", "--edit", ".rt/state.json", ret=2)
    assert ".rt/ is rt's own store" in repo.last_err


def test_symlink_out_of_repo_is_never_followed(repo, tmp_path):
    os.symlink(tmp_path / "outside.txt", repo.root / "src" / "link.txt")
    os.symlink(tmp_path, repo.root / "linkdir")
    repo.rt("plan", "--edit", "src/link.txt", ret=2)
    assert "symlink that leaves the repository" in repo.last_err
    repo.rt("plan", "--create", "linkdir/new.py", ret=2)
    # the snapshot records the link itself, never the target's content
    repo.rt("start", "again", "--force")
    (tmp_path / "outside.txt").write_text("changed outside\n")
    assert "link.txt" not in repo.rt("delta")
    assert (tmp_path / "outside.txt").read_text() == "changed outside\n"


def test_a_symlink_loop_is_refused_in_one_line(repo):
    os.symlink("loop.py", repo.root / "loop.py")
    os.symlink("l2", repo.root / "l1")
    os.symlink("l1", repo.root / "l2")
    for args in (["plan", "--edit", "loop.py"], ["outline", "loop.py"], ["plan", "--create", "l1/x.py"],
                 ["pack", "t", "--path", "loop.py"], ["check", "loop.py"]):
        repo.rt(*args, ret=2)
        assert repo.last_err == "rt: error: " + args[-1] + ": goes through a symlink loop; refused\n", args


def test_a_file_named_rt_is_no_store_and_every_command_says_so(project):
    project.write("a.py", "def a():\n    return 1\n")
    project.write(".rt", "my notes\n")
    project.init_git()
    for args in (["index"], ["symbol", "a"], ["find", "a"], ["start", "t"], ["repair"]):
        project.rt(*args, ret=2)
        assert project.last_err.startswith("rt: error: .rt is a file of the repository's, not rt's store;"), args
        assert project.last_err.count("\n") == 1
    assert project.read(".rt") == "my notes\n"


def test_symlink_inside_repo_is_fine(repo):
    os.symlink("a.py", repo.root / "src" / "alias.py")
    repo.rt("plan", "--edit", "src/alias.py")
    assert repo.rt_json("status")["task"]["scope"]["edit"] == ["src/alias.py"]


def test_a_file_under_a_linked_folder_is_named_as_git_names_it(project):
    """`link/a.py` is the file git lists as `src/a.py`: the scope holds that name, so its change is in scope."""
    repo = project
    repo.write("src/a.py", "x = 1\n")
    os.symlink("src", repo.root / "link")
    repo.init_git()
    repo.rt("start", "t", "--no-baseline")
    repo.rt("plan", "--edit", "link/a.py", "--create", "link/new.py")
    assert repo.rt_json("status")["task"]["scope"] == {"create": ["src/new.py"], "delete": [], "edit": ["src/a.py"]}
    repo.write("link/a.py", "x = 2\n")
    repo.write("link/new.py", "y = 1\n")
    assert repo.rt_json("delta")["outside_scope"] == []
    assert "scope: as planned" in repo.rt("verify", ret=3)   # INCOMPLETE: no checks, but nothing out of scope
    repo.rt("scope", "remove", "link/new.py")
    assert repo.rt_json("status")["task"]["scope"]["create"] == []
    assert repo.rt("outline", "link/a.py").startswith("src/a.py: 1 line")
    assert sorted(repo.rt_json("pack", "x", "--path", "link")["files"]) == ["src/a.py", "src/new.py"]   # its files pinned


def test_an_absolute_path_spelled_through_a_symlink_to_the_repository_is_inside_it(repo, tmp_path):
    """Claude Code names files from its working directory, which may reach the repository through a link."""
    os.symlink(repo.root.parent, tmp_path / "via")
    repo.rt("plan", "--edit", f"{tmp_path}/via/./{repo.root.name}/src/a.py")
    assert repo.rt_json("status")["task"]["scope"]["edit"] == ["src/a.py"]
    os.symlink(tmp_path, repo.root / "out")
    repo.rt("plan", "--edit", f"{repo.root}/out/outside.txt", ret=2)   # and one leaving it is still refused


def test_relative_paths_are_taken_from_the_current_folder(repo):
    repo.rt("plan", "--edit", "a.py", cwd=repo.root / "src")
    assert repo.rt_json("status")["task"]["scope"]["edit"] == ["src/a.py"]


def test_non_utf8_names_and_contents(project):
    project.write("ok.py", "x = 1\n")
    name = os.fsdecode(b"caf\xe9.txt")
    (project.root / name).write_bytes(b"latin-1 caf\xe9\n")
    project.init_git()
    project.rt("start", "t")
    project.rt("plan", "--edit", name)
    (project.root / name).write_bytes(b"latin-1 caf\xe9 au lait\n")
    delta = project.rt_proc("delta")
    assert delta.returncode == 0, delta.stderr
    assert "caf" in delta.stdout and "+1 -1" in delta.stdout
    review = project.rt_proc("review")
    assert "+latin-1 caf" in review.stdout and "au lait" in review.stdout


def test_file_deleted_between_listing_and_reading(project):
    # git lists a tracked file that is already gone from the work tree: it must be skipped, not crash
    project.write("gone.py", "x\n")
    project.write("kept.py", "y\n")
    project.init_git()
    (project.root / "gone.py").unlink()
    data = project.rt_json("start", "t")
    assert data["files"] == 1


def test_empty_git_repository(project):
    project.init_git(commit=False)
    assert project.rt_json("start", "t")["files"] == 0
    project.write("new.py", "print(1)\n")
    assert "A new.py  +1 -0" in project.rt("delta")


def test_folder_that_is_not_a_git_repository(project):
    project.write("app.py", "x = 1\n")
    project.write(".gitignore", "*.log\nout/\n!keep.log\n")
    project.write("debug.log", "noise\n")
    project.write("keep.log", "kept\n")
    project.write("out/bundle.js", "x\n")
    project.write("node_modules/dep/index.js", "x\n")
    project.write("pkg/.gitignore", "/local.txt\n")
    project.write("pkg/local.txt", "x\n")
    project.write("pkg/sub/local.txt", "x\n")
    data = project.rt_json("start", "t")
    assert data["files"] == 5  # app.py .gitignore keep.log pkg/.gitignore pkg/sub/local.txt
    project.rt("plan", "--edit", "app.py")
    project.write("app.py", "x = 2\n")
    assert "M app.py  +1 -1" in project.rt("delta")
    assert "-x = 1\n+x = 2" in project.rt("review")
    assert not (project.root / ".git").exists()
    for name in ("#hash.py", "!bang.py", "trail .py", "a[1].py", "a1.py"):   # escaped in .gitignore as git reads it
        project.write(name, "x = 1\n")
    project.write(".gitignore", "*.log\nout/\n!keep.log\n\\#hash.py\n\\!bang.py\ntrail\\ .py\na\\[1\\].py\n")
    files = project.rt_json("start", "again", "--force")["files"]
    assert files == 6  # app.py .gitignore keep.log pkg/.gitignore pkg/sub/local.txt a1.py


def test_the_repository_is_found_from_below_and_through_symlinks(project, tmp_path, monkeypatch):
    """`find_repo` walks up to the nearest `.git` (a folder, or the file of a linked worktree) with the folders
    resolved, as `Path.resolve` and `Path.parents` found it; outside git, the current folder resolved. `root` is
    the `Path` of `top`."""
    from pathlib import Path

    from rt.core import Repo, find_repo
    project.write("src/deep/a.py", "x = 1\n")
    project.init_git()
    (tmp_path / "link").symlink_to(project.root / "src")
    (tmp_path / "plain" / "sub").mkdir(parents=True)
    (tmp_path / "wt" / "pkg").mkdir(parents=True)
    (tmp_path / "wt" / ".git").write_text("gitdir: /nowhere\n")
    cases = [(project.root / "src" / "deep", project.root, True), (tmp_path / "link" / "deep", project.root, True),
             (tmp_path / "plain" / "sub", tmp_path / "plain" / "sub", False), (tmp_path / "wt" / "pkg", tmp_path / "wt", True)]
    for start, top, is_git in cases:
        for repo in (find_repo(start), find_repo(str(start))):
            assert (repo.top, repo.root, repo.is_git) == (str(top.resolve()), top.resolve(), is_git)
            assert isinstance(repo.root, Path) and repo == Repo(top.resolve(), is_git) and repo.store_dir == top.resolve() / ".rt"
        monkeypatch.chdir(start)
        assert find_repo() == Repo(str(top.resolve()), is_git)

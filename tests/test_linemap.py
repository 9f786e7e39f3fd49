"""Where old lines went, read from real `git diff -M` and `diff -u` output at several context sizes,
and the diff of diagnostics that uses it."""
from __future__ import annotations

import subprocess

import pytest

from rt.diagnostics.diff import diff
from rt.diagnostics.linemap import FileMap, from_lines, from_patch
from rt.diagnostics.model import Diagnostic

OLD = [f"line{i}\n" for i in range(1, 21)]
NEW = OLD[:2] + ["ins1\n", "ins2\n"] + OLD[2:9] + ["changed10\n"] + OLD[10:15] + OLD[16:]   # 16 deleted


def expected(old_line: int) -> tuple[int, bool] | None:
    text = f"line{old_line}\n"
    return (NEW.index(text) + 1, False) if text in NEW else None


@pytest.fixture
def repo(project):
    project.write("a.py", "".join(OLD))
    project.write("b.py", "".join(OLD))
    project.write("gone.py", "x\n")
    project.init_git()
    project.write("a.py", "".join(NEW))
    project.git("mv", "b.py", "b2.py")
    project.git("rm", "-q", "gone.py")
    project.git("add", "-A")
    return project


@pytest.mark.parametrize("context", ["-U0", "-U1", "-U3", "-U10"])
def test_git_diff_at_any_context_maps_every_line(repo, context):
    moved = from_patch(repo.git("diff", "-M", "--cached", context))
    for n in range(1, 21):
        path, line, changed = moved.place("a.py", n)
        want = expected(n)
        assert path == "a.py" and changed == (want is None), n
        if want:
            assert line == want[0], n
    assert moved.place("b.py", 7) == ("b2.py", 7, False)
    assert moved.place("gone.py", 1)[2] is True
    assert moved.place("untouched.py", 4) == ("untouched.py", 4, False)


def test_plain_diff_u_of_two_files(tmp_path):
    (tmp_path / "old").write_text("".join(OLD))
    (tmp_path / "new").write_text("".join(NEW))
    patch = subprocess.run(["diff", "-u", "old", "new"], cwd=tmp_path, capture_output=True, text=True).stdout
    moved = from_patch(patch.replace("--- old", "--- a.py").replace("+++ new", "+++ a.py"))
    assert [moved.place("a.py", n)[1] for n in (1, 3, 11, 20)] == [1, 5, 13, 21]


def test_blocks_from_two_versions_agree_with_git(repo):
    fm = FileMap("a.py", from_lines(OLD, NEW))
    for n in range(1, 21):
        want = expected(n)
        assert fm.line(n)[1] == (want is None) and (want is None or fm.line(n)[0] == want[0]), n


def d(file: str, line: int, code: str = "F821", message: str = "Undefined name `zz`", kind: str = "") -> Diagnostic:
    return Diagnostic("c", file, line, 1, code, "error", message, kind)


def test_diff_with_a_line_map(repo):
    moved = from_patch(repo.git("diff", "-M", "--cached"))
    before = [d("a.py", 5), d("a.py", 12), d("b.py", 3), d("a.py", 10, "E501", "Line too long")]
    after = [d("a.py", 7), d("a.py", 3), d("a.py", 14), d("b2.py", 3), d("a.py", 12, "E501", "Line too long")]
    result = diff(before, after, moved=moved)
    # line 3 holds an inserted line: the new twin; line 10 was edited and is line 12 now: the same finding
    # there is the old one
    assert [(x.file, x.line, x.code) for x in result.new] == [("a.py", 3, "F821")]
    assert (result.fixed, result.unchanged) == (0, 4)


def test_a_renamed_test_file_keeps_its_failing_tests_old(repo):
    moved = from_patch(repo.git("diff", "-M", "--cached"))
    before = [d("b.py", 4, "b.py::test_x", "assert 1 == 2", "failed")]
    after = [d("b2.py", 4, "b2.py::test_x", "assert 1 == 3", "failed")]
    result = diff(before, after, moved=moved)
    assert result.new == [] and result.unchanged == 1
    assert [now.message for _, now in result.changed] == ["assert 1 == 3"]


@pytest.mark.parametrize("quote_path", ["true", "false"])
def test_paths_git_quotes_are_read_back(project, quote_path):
    """A name with a quote, a tab, a backslash, a space or (with `core.quotePath` on, git's default) a letter
    outside ASCII is written quoted or followed by a tab in git's headers: renamed or edited, each is found."""
    names = ['say "hi".py', "tab\there.py", "back\\slash.py", "a space.py", "café.py"]
    for name in names:
        project.write(f"src/{name}", "".join(OLD))
    project.init_git()
    (project.root / "lib").mkdir()
    for name in names:
        project.write(f"src/{name}", "".join(NEW))
        project.git("mv", f"src/{name}", f"lib/{name}")
    project.git("add", "-A")
    moved = from_patch(project.git("-c", f"core.quotePath={quote_path}", "diff", "-M", "--cached"))
    for name in names:
        assert moved.place(f"src/{name}", 11) == (f"lib/{name}", 13, False), name
        assert moved.place(f"src/{name}", 10)[2] is True, name
    project.git("commit", "-qm", "moved")
    for name in names:   # edited in place: the names of the `---` and `+++` lines
        project.write(f"lib/{name}", "".join(OLD))
    moved = from_patch(project.git("-c", f"core.quotePath={quote_path}", "diff"))
    for name in names:
        assert moved.place(f"lib/{name}", 13) == (f"lib/{name}", 11, False), name


def test_removed_and_added_lines_that_look_like_file_headers_stay_in_their_hunk(project):
    """A removed `-- comment` (SQL in a string, Lua, Haskell) is `--- comment` in the patch, an added `++ x` is
    `+++ x`: inside a hunk they are lines of it, not a next file's header, so the renamed file keeps its map."""
    sql = 'Q = """\nSELECT 1\n-- old note\n"""\n\n\ndef f():\n    return zz\n'
    project.write("pkg/a.py", sql)
    project.init_git()
    project.git("mv", "pkg/a.py", "pkg/b.py")
    project.write("pkg/b.py", sql.replace("-- old note\n", "++ new note\n++ more\n"))
    project.git("add", "-A")
    moved = from_patch(project.git("diff", "-M", "--cached"))
    assert moved.place("pkg/a.py", 8) == ("pkg/b.py", 9, False)
    assert set(moved.files) == {"pkg/a.py"}

"""`rt diff-logs` on real logs as CI keeps them: `--parser auto` says what it chose, `--diff`/`--git` keep
moved findings old, runs cut short are never complete, tests are matched by id and kind."""
from __future__ import annotations

import sys

from tests.diagnostics_support import write_tree
from tests.forms_support import sh

RUFF_TOML = '[lint]\nselect = ["F"]\n'
TWINS = "def f():\n    return zz\n\n\ndef g():\n    return zz\n"


def ruff_log(project, name: str, *args: str) -> str:
    code, out = sh(["ruff", "check", "--no-cache", *args, "."], project.root)
    path = project.root.parent / name
    path.write_text(out)
    return str(path)


def test_auto_says_which_parser_and_form_it_chose(project):
    write_tree(project.root, {"ruff.toml": RUFF_TOML, "a.py": "import os\n"})
    before = ruff_log(project, "before.log")                    # the default (full) form
    write_tree(project.root, {"a.py": "import os\nimport sys\n"})
    after = ruff_log(project, "after.log", "--output-format=concise")
    out = project.rt("diff-logs", before, after, ret=1)
    assert out.splitlines()[:3] == ["FAIL: 1 new, 0 fixed, 1 unchanged (ruff: 1 before, 2 after)",
                                    "parser auto: before log: ruff (full); after log: ruff (concise)",
                                    "a.py:2:8 F401 `sys` imported but unused"]
    data = project.rt_json("diff-logs", before, after, ret=1)
    assert data["parser"] == "ruff" and data["chosen"] == "before log: ruff (full); after log: ruff (concise)"


def test_auto_on_logs_it_cannot_tell_says_so_in_one_line(project):
    (project.root.parent / "a.log").write_text("Segmentation fault (core dumped)\n")
    out = project.rt("diff-logs", str(project.root.parent / "a.log"), str(project.root.parent / "a.log"), ret=3)
    assert out.splitlines()[:2] == ["INCOMPLETE: no diff, a log could not be read as auto output",
                                    "parser auto: could not tell which tool printed these logs (name it with --parser)"]


def test_a_run_cut_short_is_incomplete_whatever_it_printed(project):
    write_tree(project.root, {"ruff.toml": RUFF_TOML, "a.py": "import os\n"})
    log = ruff_log(project, "both.log")
    for code, why in (("124", "timed out"), ("137", "killed by signal 9 (SIGKILL)"), ("-15", "signal 15 (SIGTERM)"),
                      ("143", "signal 15 (SIGTERM)")):
        out = project.rt("diff-logs", log, log, "--after-exit", code, ret=3)
        assert out.startswith("INCOMPLETE") and why in out, out


def test_diff_keeps_findings_of_a_renamed_file_old_and_finds_the_added_twin(project):
    write_tree(project.root, {"ruff.toml": RUFF_TOML, "pkg/a.py": TWINS})
    project.init_git()
    before = ruff_log(project, "before.log", "--output-format=concise")
    project.git("mv", "pkg/a.py", "pkg/b.py")
    write_tree(project.root, {"pkg/b.py": "def h():\n    return zz\n\n\n" + TWINS})   # the twin goes on top
    project.git("add", "-A")
    project.git("commit", "-qm", "move and add")
    after = ruff_log(project, "after.log", "--output-format=concise")
    patch = project.root.parent / "change.patch"
    patch.write_text(project.git("diff", "-M", "HEAD~1", "HEAD"))
    for how in (["--diff", str(patch)], ["--git", "HEAD~1..HEAD"]):
        data = project.rt_json("diff-logs", before, after, *how, ret=1)
        assert [(n["file"], n["line"], n["code"]) for n in data["new"]] == [("pkg/b.py", 2, "F821")], how
        assert (data["fixed"], data["unchanged"]) == (0, 2)
    data = project.rt_json("diff-logs", before, after, ret=1)      # without the change: the file looks all new
    assert data["new"][0]["count"] == 3 and data["fixed"] == 2
    project.rt("diff-logs", before, after, "--git", "nosuchrev..HEAD", ret=2)
    assert "git could not diff" in project.last_err


def pytest_log(project, name: str, *args: str) -> tuple[int, str]:
    code, out = sh([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], project.root)
    path = project.root.parent / name
    path.write_text(out)
    return code, str(path)


def test_a_test_still_failing_with_another_message_is_not_new(project):
    write_tree(project.root, {"test_a.py": "def test_a():\n    assert 1 == 2\n\n\ndef test_b():\n    pass\n"})
    _, before = pytest_log(project, "before.log")
    write_tree(project.root, {"test_a.py": "def test_a():\n    assert 1 == 3, 'other text'\n\n\n"
                                           "def test_b():\n    raise ValueError('new')\n"})
    _, after = pytest_log(project, "after.log")
    out = project.rt("diff-logs", before, after, ret=1)
    lines = out.splitlines()
    assert lines[0] == "FAIL: 1 new, 0 fixed, 1 unchanged (pytest: 1 before, 2 after)", out
    assert lines[2] == "test_a.py:6 test_a.py::test_b (failed) ValueError: new"
    assert lines[3] == "    | test_a.py:6: raise ValueError('new')" and not lines[4].startswith("    |")
    assert "still failing, message changed: test_a.py::test_a (failed): AssertionError: other text" in lines
    data = project.rt_json("diff-logs", before, after, ret=1)
    assert [(n["code"], n["kind"]) for n in data["new"]] == [("test_a.py::test_b", "failed")]
    assert data["changed"][0]["code"] == "test_a.py::test_a"


def test_collection_error_is_new_when_new_and_incomplete_when_old(project):
    write_tree(project.root, {"test_a.py": "def test_a():\n    pass\n"})
    code_ok, clean = pytest_log(project, "clean.log")
    write_tree(project.root, {"test_b.py": "import no_such_module_rt\n"})
    code, broken = pytest_log(project, "broken.log")
    assert (code_ok, code) == (0, 2)
    out = project.rt("diff-logs", clean, broken, "--before-exit", "0", "--after-exit", "2", ret=1)
    assert out.startswith("FAIL: 1 new") and "test_b.py (error)" in out and "stopped early" in out, out
    out = project.rt("diff-logs", broken, broken, "--before-exit", "2", "--after-exit", "2", ret=3)
    assert out.startswith("INCOMPLETE: 0 new") and "stopped early: pytest stopped early: Interrupted" in out, out

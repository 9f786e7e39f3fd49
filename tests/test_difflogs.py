"""`rt diff-logs` on saved outputs of real tools: verdicts, exit codes, --json, and refused input."""
from __future__ import annotations

import json

from tests.diagnostics_support import run_tool, write_tree

RUFF_TOML = '[lint]\nselect = ["F"]\n'


def save_ruff_logs(project, before: str, after: str) -> tuple[int | None, int | None]:
    """Run real ruff on a.py before and after, saving both outputs outside the project folder."""
    write_tree(project.root, {"ruff.toml": RUFF_TOML, "a.py": before})
    code_before, out = run_tool("ruff", project.root)
    (project.root.parent / "before.log").write_text(out)
    write_tree(project.root, {"a.py": after})
    code_after, out = run_tool("ruff", project.root)
    (project.root.parent / "after.log").write_text(out)
    return code_before, code_after


def logs(project) -> tuple[str, str]:
    return str(project.root.parent / "before.log"), str(project.root.parent / "after.log")


def test_new_error_fails_with_its_current_line(project):
    save_ruff_logs(project, "import os\n", "import os\nimport sys\n")
    out = project.rt("diff-logs", "--parser", "ruff", *logs(project), ret=1)
    assert out.splitlines() == ["FAIL: 1 new, 0 fixed, 1 unchanged (ruff: 1 before, 2 after)",
                                "a.py:2:8 F401 `sys` imported but unused"]
    data = project.rt_json("diff-logs", "--parser", "ruff", *logs(project), ret=1)
    assert data["verdict"] == "FAIL" and data["fixed"] == 0
    assert [(n["file"], n["line"], n["code"], n["count"]) for n in data["new"]] == [("a.py", 2, "F401", 1)]


def test_moved_and_fixed_errors_pass(project):
    codes = save_ruff_logs(project, "import os\nimport sys\n", '"""Doc."""\n\nimport sys\n')
    out = project.rt("diff-logs", "--parser", "ruff", *logs(project),
                     "--before-exit", str(codes[0]), "--after-exit", str(codes[1]))
    assert out == "PASS: 0 new, 1 fixed, 1 unchanged (ruff: 2 before, 1 after)\n"


def test_identical_messages_state_the_known_limit(project):
    twice = "def f():\n    return zz\n\n\ndef g():\n    return zz\n"
    save_ruff_logs(project, twice, twice + "\n\ndef h():\n    return zz\n")
    out = project.rt("diff-logs", "--parser", "ruff", *logs(project), ret=1)
    assert "a.py:10:12 F821 Undefined name `zz`  [2 identical before]" in out
    assert out.rstrip().endswith("only an increase is visible, and its line may be an old one's")


def test_a_log_nothing_understands_is_incomplete_not_clean(project):
    save_ruff_logs(project, "import os\n", "import os\n")
    (project.root.parent / "after.log").write_text("Segmentation fault (core dumped)\n")
    out = project.rt("diff-logs", "--parser", "ruff", *logs(project), ret=3)
    assert out.splitlines()[0] == "INCOMPLETE: no diff, a log could not be read as ruff output"
    assert "ruff (after log) could not run: not a form the ruff parser reads (it reads: full (the default)," in out
    assert "  | Segmentation fault (core dumped)" in out
    # the same log with its exit code: a non-zero exit with nothing parsed
    out = project.rt("diff-logs", "--parser", "ruff", *logs(project), "--after-exit", "139", ret=3)
    assert "exit 139: killed by signal 11 (SIGSEGV); what it printed is not the whole run" in out


def test_an_empty_log_is_no_clean_run_without_its_exit_code(project):
    (project.root.parent / "before.log").write_text("FAILED t.py::test_a - assert 0\n1 failed in 0.01s\n")
    (project.root.parent / "after.log").write_text("")
    for parser in ("pytest", "ruff", "mypy", "auto"):
        out = project.rt("diff-logs", "--parser", parser, *logs(project), ret=3)
        assert out.startswith("INCOMPLETE: no diff"), (parser, out)
    assert "could not run: the log is empty (a tool that prints nothing when clean: give its exit code" in out
    project.rt("diff-logs", "--parser", "ruff", *logs(project), "--before-exit", "0", "--after-exit", "0")


def test_a_crashed_tool_is_incomplete_even_with_a_clean_looking_log(project):
    save_ruff_logs(project, "import os\n", "import os\n")
    out = project.rt("diff-logs", "--parser", "ruff", *logs(project), "--after-exit", "2", ret=3)
    assert "exit 2: ruff reports a failure of its own" in out


def test_a_log_of_a_failed_tool_without_exit_code_is_incomplete(project):
    (project.root.parent / "before.log").write_text("1 passed in 0.01s\n")
    (project.root.parent / "after.log").write_text("\nno tests ran in 0.01s\n")
    out = project.rt("diff-logs", "--parser", "pytest", *logs(project), ret=3)
    assert "pytest (after log) could not run: pytest collected no tests" in out


def test_wrong_parser_is_incomplete(project):
    save_ruff_logs(project, "import os\n", "import os\nimport sys\n")
    data = project.rt_json("diff-logs", "--parser", "tsc", *logs(project), ret=3)
    assert data["verdict"] == "INCOMPLETE" and data["new"] == [] and data["fixed"] is None
    assert data["logs"]["after"]["status"] == "could_not_run"


def test_ci_paths_are_made_relative_with_root(project):
    before = "/home/runner/work/app/app/src/a.py:1:8: F401 [*] `os` imported but unused\n"
    after = before + "/home/runner/work/app/app/src/b.py:3:1: F821 Undefined name `q`\n"
    (project.root.parent / "before.log").write_text(before)
    (project.root.parent / "after.log").write_text(after)
    data = project.rt_json("diff-logs", "--parser", "ruff", *logs(project), "--root", "/home/runner/work/app/app",
                           ret=1)
    assert [(n["file"], n["line"]) for n in data["new"]] == [("src/b.py", 3)]


def test_refuses_missing_and_binary_logs(project):
    (project.root.parent / "before.log").write_text("")
    (project.root.parent / "after.log").write_bytes(b"\x00\x01binary")
    before, after = logs(project)
    project.rt("diff-logs", "--parser", "ruff", before, after, ret=2)
    assert "is binary, not a text log" in project.last_err
    project.rt("diff-logs", "--parser", "ruff", before, after + ".nope", ret=2)
    assert "cannot read the after log" in project.last_err and "No such file" in project.last_err
    project.rt("diff-logs", "--parser", "nosuch", before, before, ret=2)
    assert "argument --parser: invalid choice: 'nosuch' (choose from 'auto', 'cargo'," in project.last_err


def test_real_process_output_is_byte_stable(project):
    save_ruff_logs(project, "import os\n", "import os\nimport sys\n")
    first = project.rt_proc("diff-logs", "--parser", "ruff", *logs(project), "--json")
    second = project.rt_proc("diff-logs", "--parser", "ruff", *logs(project), "--json")
    assert first.returncode == 1 and first.stdout == second.stdout
    assert json.loads(first.stdout)["new"][0]["message"] == "`sys` imported but unused"


def test_the_first_three_new_failures_show_their_explaining_lines(project):
    """A report explains the first three new failing tests with their assertion lines, the rest in a line each."""
    tests = "".join(f"def test_total_{k}():\n    total = {k} + 1\n    assert total == {k} + {{}}\n\n\n" for k in range(4))
    write_tree(project.root, {"test_totals.py": tests.replace("{}", "1")})
    (project.root.parent / "before.log").write_text(run_tool("pytest", project.root)[1])
    write_tree(project.root, {"test_totals.py": tests.replace("{}", "2")})
    (project.root.parent / "after.log").write_text(run_tool("pytest", project.root)[1])
    out = project.rt("diff-logs", "--parser", "pytest", *logs(project), ret=1)
    assert out.startswith("FAIL: 4 new, 0 fixed, 0 unchanged")
    for k in range(4):
        assert f"test_totals.py::test_total_{k} (failed) assert {k + 1} == ({k} + 2)\n" in out
    explained = [k for k in range(4) if f"    | test_totals.py:{5 * k + 3}: assert total == {k} + 2\n" in out]
    assert explained == [0, 1, 2], out


def test_one_byte_outside_utf8_leaves_the_other_lines_as_they_read(project):
    """A CI log holds other steps' output too: one line with a byte outside UTF-8 is read as Latin-1, its
    other lines stay UTF-8, so a finding that names `café` reads the same in both logs and stays old."""
    save_ruff_logs(project, "def f():\n    return café\n", "def f():\n    return café\n")
    before, after = logs(project)
    with open(after, "ab") as f:
        f.write(b"make: warning: cannot read build/\xff.o\n")
    out = project.rt("diff-logs", "--parser", "ruff", before, after)
    assert out == "PASS: 0 new, 0 fixed, 1 unchanged (ruff: 1 before, 1 after)\n"

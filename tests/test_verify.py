"""start -> baseline -> edit -> verify with the real tools, on projects the tests generate."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, needs
from tests.checks_support import CALC, commit_config, node_project, python_project, verify_md
from tests.hooks_support import bash, edit, hook, permission


def new_lines(md: str) -> list[str]:
    """The lines of verify.md's 'new diagnostics' section."""
    if "## new diagnostics" not in md:
        return []
    part = md.split("## new diagnostics", 1)[1].split("\n## ", 1)[0]
    return [ln for ln in part.splitlines()[1:] if ln.startswith("- ")]


def test_python_fail_with_exactly_the_new_diagnostics_then_pass(project):
    python_project(project)
    out = project.rt("start", "make add return a string")
    assert "- ruff: 1 diagnostic(s)" in out and "- mypy: 0 diagnostic(s)" in out
    assert project.rt_json("status")["task"]["state"] == "ready"
    project.rt("plan", "--edit", "calc.py", "tests/test_calc.py")
    project.write("calc.py", "def add(a: int, b: int) -> str:\n    return a + b\n")
    project.write("tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 4\n")
    project.rt("step", "changed add")
    out = project.rt("verify", ret=1)
    assert out.startswith("# verify: FAIL")
    new = new_lines(verify_md(project))
    assert new[0] == '- calc.py:2:12 mypy [return-value] Incompatible return value type (got "int", expected "str")'
    assert new[1].startswith("- tests/test_calc.py:5 pytest [test_add] assert 3 == 4")
    assert len(new) == 2  # the old unused import in legacy.py is not new
    assert "- passed, nothing new: ruff (1 old)" in out
    data = project.rt_json("status")["task"]
    assert data["state"] == "building" and data["verify"]["verdict"] == "FAIL"
    assert data["verify"]["summary"] == "FAIL: 2 new diagnostic(s) (mypy 1, pytest 1)"

    project.write("calc.py", '"""Sums."""\n' + CALC)
    project.write("tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(1, 3) == 4\n")
    out = project.rt("verify")
    assert out.startswith("# verify: PASS") and "## new diagnostics" not in out
    assert "- scope: as planned (2 file(s) changed)" in out
    assert project.rt_json("status")["task"]["state"] == "verified"


def test_verify_output_is_byte_stable_and_points_at_full_output(project):
    python_project(project, tools="ruff")
    project.rt("start", "add imports")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", "".join(f"import m{i}\n" for i in range(25)) + CALC)
    first = project.rt("verify", ret=1)
    again = project.rt("verify", ret=1)  # only the count of failed attempts differs
    assert again.split("## fix attempts")[0] == first.split("## fix attempts")[0]
    assert "- ... and 15 more, in .rt/tasks/1-add-imports/verify/ruff.log" in first
    assert "- ruff (lint): failed: 25 new (1 old); full output: .rt/tasks/1-add-imports/verify/ruff.log\n" in first   # no zero count
    assert "/tmp" not in first and str(project.root) not in first
    log = project.read(".rt/tasks/1-add-imports/verify/ruff.log")
    assert "calc.py:25:8: F401" in log


def test_one_finding_repeated_down_a_file_is_one_line_with_its_other_lines(project):
    """An import put above httpx's `from __future__`: ruff's E402 for each of the ten imports below. After the
    edit and in `rt verify` the finding is one line naming its other lines, the first eight of them."""
    needs("ruff")
    project.write("pyproject.toml", '[tool.ruff.lint]\nselect = ["E402", "F401"]\n')
    project.write("calc.py", "import os\nimport sys\n" + CALC)
    project.init_git()
    project.rt("start", "move a statement")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", "X = 1\n" + "".join(f"import m{i}  # noqa: F401\n" for i in range(11)) + "import os\nimport sys\n"
                  + CALC)
    out = project.rt("check", "calc.py", ret=1)
    assert out.splitlines() == ["13 new diagnostic(s) after editing calc.py:",
                                "  calc.py:2:1 ruff [E402] Module level import not at top of file (also lines 3, 4, 5, 6, 7, "
                                "8, 9, 10 and 4 more)"]
    out = project.rt("verify", ret=1)
    assert "## new diagnostics (13)\n- calc.py:2:1 ruff [E402] Module level import not at top of file (also lines 3, " \
           "4, 5, 6, 7, 8, 9, 10 and 4 more)\n\n" in out


def test_check_file_reports_only_that_file(project):
    python_project(project, tools="ruff mypy")
    project.rt("start", "edit two files")
    project.rt("plan", "--edit", "calc.py", "legacy.py")
    project.write("calc.py", "import json\n" + CALC)
    project.write("legacy.py", "import os\nimport sys\n")
    out = project.rt("check", "calc.py", ret=1)
    assert out.splitlines() == ["1 new diagnostic(s) after editing calc.py:",
                                "  calc.py:1:8 ruff [F401] `json` imported but unused"]
    data = project.rt_json("check", "legacy.py", ret=1)
    assert [d["message"] for d in data["files"][0]["new"]] == ["`sys` imported but unused"]
    project.write("calc.py", CALC)
    assert project.rt("check", "calc.py") == "nothing new in calc.py (mypy, ruff)\n"
    project.write("notes.md", "# notes\n")
    assert project.rt("check", "notes.md", "calc.py").splitlines() == [   # what was checked, never hidden
        "no check reads notes.md on its own, so nothing was checked (`rt verify` runs every check)",
        "nothing new in calc.py (mypy, ruff)"]
    project.write("sub/notes.md", "# notes\n")
    for folder in (".", "sub"):   # a folder is no file that is gone
        project.rt("check", folder, ret=2)
        assert project.last_err == f"rt: error: {folder}: a folder; `rt check` takes files (`rt verify` runs every check " \
                                   "on the tree)\n"


def test_a_file_named_like_an_option_is_checked_as_a_file(project):
    """`-x.py` handed to ruff as it is reads as ruff's option `-x` ("unexpected argument"): the check is given it
    as `./-x.py`, so it checks the file, and its findings name it as the project does."""
    python_project(project, tools="ruff")
    project.write("-x.py", "import os\n")
    project.git("add", "-A")
    project.git("commit", "-qm", "a file named like an option")
    project.rt("start", "edit the file named like an option")
    project.write("-x.py", "import os\nimport sys\n")
    out = project.rt("check", "--", "-x.py", ret=1)
    assert out.splitlines() == ["1 new diagnostic(s) after editing -x.py:", "  -x.py:2:8 ruff [F401] `sys` imported but unused"]


def test_check_file_agrees_with_the_baseline_for_mypy_stubs(project):
    """mypy on one file checks it past its .pyi stub, which the whole-project run never does: the
    per-file check must not call the baseline's silence 300 new errors."""
    needs("mypy")
    project.write("pyproject.toml", "[tool.mypy]\n")
    project.write("pkg/__init__.py", "")
    project.write("pkg/mod.py", 'def f() -> int:\n    return "x"\n')
    project.write("pkg/mod.pyi", "def f() -> int: ...\n")
    project.init_git()
    project.rt("start", "touch mod")
    project.rt("plan", "--edit", "pkg/mod.py")
    project.write("pkg/mod.py", 'def f() -> int:\n    return "x"  # reworded\n')
    assert project.rt("check", "pkg/mod.py") == "nothing new in pkg/mod.py (mypy)\n"


def test_check_file_api_for_hooks(project):
    import contextlib

    from rt.cli import Ctx
    from rt.task.verify import check_file, format_file_check
    python_project(project, tools="ruff")
    project.rt("start", "hook api")
    project.write("calc.py", "import json\n" + CALC)
    with contextlib.chdir(project.root):
        ctx = Ctx(False)
        task = json.loads((project.root / ".rt/tasks/1-hook-api/task.json").read_text())
        result = check_file(ctx, task, "calc.py")
        assert [(d.file, d.line, d.code) for d in result.new] == [("calc.py", 1, "F401")]
        assert result.could_not_run == []
        assert format_file_check(result).startswith("1 new diagnostic(s) after editing calc.py:")
        assert format_file_check(check_file(ctx, task, "README.md")) == ""


def test_missing_required_program_is_incomplete_never_clean(project):
    python_project(project, tools="ruff")
    commit_config(project, '[checks.typos]\nkind = "lint"\ncommand = ["no-such-tool-rt-test", "."]\n')
    out = project.rt("start", "tidy")
    assert "- typos: could not run: program not found: no-such-tool-rt-test" in out
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC + "\n")
    out = project.rt("verify", ret=3)
    assert out.startswith("# verify: INCOMPLETE")
    assert "- typos (lint): could not run: program not found: no-such-tool-rt-test" in out
    assert project.rt_json("status")["task"]["state"] == "building"


def test_timeout_is_incomplete(project):
    python_project(project, tools="ruff", old_problem=False)
    commit_config(project, '[checks.slow]\nkind = "test"\ntimeout = 1\n'
                             'command = ["python3", "-c", "import time; print(\'starting\', flush=True); time.sleep(30)"]\n')
    project.rt("start", "slow", "--no-baseline")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC + "\n")
    out = project.rt("verify", ret=3)
    assert "- slow (test): could not run: timed out after 1s" in out
    assert "    | starting" in out  # the first lines of what it printed


def test_output_the_parser_cannot_read_is_could_not_run(project):
    python_project(project, tools="ruff")
    commit_config(project, '[checks.ruff]\ncommand = ["python3", "-c", "import sys; sys.exit(\'ruff crashed: boom\')"]\n')
    out = project.rt("start", "broken tool", ret=3)   # its only check could not run
    assert "- ruff: could not run: exit 1: ruff crashed: boom\n" in out   # its only line is its reason
    commit_config(project, '[checks.ruff]\ncommand = ["python3", "-c", "print(1); print(2); raise SystemExit(1)"]\n')
    out = project.rt("start", "--force", "broken tool again", ret=3)
    assert "- ruff: could not run: exit 1 and no output the ruff parser understands (it reads: full (the default)," in out
    assert "    | 1\n    | 2" in out


def test_a_program_that_never_started_has_no_output_to_point_at(project):
    python_project(project, tools="ruff", old_problem=False)
    commit_config(project, '[checks.types]\nkind = "typecheck"\ncommand = ["no-such-checker-here"]\n')
    project.rt("start", "missing checker")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC + "\n")
    out = project.rt("verify", ret=3)
    assert "- types (typecheck): could not run: program not found: no-such-checker-here (install it, or set its " \
           "command in rt.toml)\n- " in out   # the next check's line: no "full output" of a log holding the reason


def test_a_check_that_could_not_run_is_reported_by_its_own_error_line(project):
    """`cargo check` offline: exit 101 and `error: failed to get ...` after warnings; that line is the reason."""
    python_project(project, tools="ruff")
    script = ("import sys; print('warning: spurious network error (3 tries remaining)'); "
              "print('error: failed to get `aho-corasick` as a dependency of package `globset`'); sys.exit(101)")
    commit_config(project, f'[checks.ruff]\nparser = "cargo"\ncommand = ["python3", "-c", "{script}"]\n')
    out = project.rt("start", "offline tool", ret=3)
    assert "- ruff: could not run: exit 101: error: failed to get `aho-corasick` as a dependency of package " \
           "`globset`\n" in out


def test_a_python_module_that_is_not_installed_is_the_reason_without_the_interpreter_path(project):
    """pytest not installed in the interpreter that runs `python3 -m pytest`: Python prints its own path and
    "No module named pytest", exit 1. That line is the reason, the path left out (it is this machine's)."""
    python_project(project, tools="ruff")
    commit_config(project, '[checks.tests]\nkind = "test"\nparser = "pytest"\n'
                           'command = ["python3", "-m", "no_such_test_runner_here"]\n')
    out = project.rt("start", "runner missing")
    assert "- tests: could not run: exit 1: python3: No module named no_such_test_runner_here\ntests could not" in out
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC + "\n")
    out = project.rt("verify", ret=3)   # the log holds that line only: no pointer to it
    assert "- tests (test): could not run: exit 1: python3: No module named no_such_test_runner_here\n- " in out


def test_a_test_run_its_conftest_stops_gives_the_missing_module(project):
    """httpx's conftest imports `trustme`, not installed: pytest exits 4 ("ImportError while loading conftest"
    and the exception's `E   ` lines). The reason names the missing module, not only "crash, configuration or
    usage error"."""
    python_project(project, tools="ruff pytest")
    project.write("tests/conftest.py", "import no_such_plugin_here\n")
    project.git("add", "-A")
    project.git("commit", "-qm", "conftest")
    out = project.rt("start", "conftest stops")
    assert "- pytest: could not run: exit 4: pytest reports a failure of its own: ModuleNotFoundError: No module " \
           "named 'no_such_plugin_here'\n" in out


def test_a_script_calling_a_missing_program_names_it(project):
    """hoppscotch's `npm test` runs `pnpm -r do-test`, and pnpm is not installed: `sh: 1: pnpm: not found`,
    exit 127. The reason names pnpm."""
    needs("npm")
    project.write("package.json", '{"name": "app", "private": true, "scripts": {"test": "no-such-runner-here -r test"}}\n')
    project.write("src/app.js", "export const one = 1;\n")
    project.init_git()
    out = project.rt("start", "runner missing", ret=3)   # no check could run
    assert "- test: could not run: exit 127: program missing or not executable: no-such-runner-here\nno check" in out


def test_a_check_whose_whole_output_is_one_line_gives_that_line(project):
    """prometheus's go.work asks for a newer Go than the one installed: go build, vet and test print one line
    ("reading go.work: ...go.work:1: invalid go version '1.25.10': must match format 1.23"), exit 1. That line is
    the reason, the repository's path taken out; it is not shown again under it."""
    python_project(project, tools="ruff")
    project.write("oldgo.py", "import os, sys\nprint('reading go.work: ' + os.getcwd() + \"/go.work:1: invalid go version "
                              "'1.25.10': must match format 1.23\")\nprint()\nsys.exit(1)\n")
    commit_config(project, '[checks.go-vet]\nparser = "go"\ncommand = ["python3", "oldgo.py"]\n')
    out = project.rt("start", "old go")
    assert "- go-vet: could not run: exit 1: reading go.work: go.work:1: invalid go version '1.25.10': must match " \
           "format 1.23\n" in out


def test_scope_outside_and_not_done_fail(project):
    python_project(project, tools="ruff", old_problem=False)
    project.rt("start", "scoped")
    project.rt("plan", "--edit", "calc.py", "--create", "fmt.py")
    project.write("calc.py", CALC + "\n")
    project.write("legacy.py", "X = 2\n")
    out = project.rt("verify", ret=1)
    assert "- changed outside the plan: legacy.py (approve it with `rt scope add legacy.py`, or undo it)" in out
    assert "- planned but not done: fmt.py (do it, or drop it with `rt scope remove fmt.py`)" in out
    assert "## new diagnostics" not in out
    project.rt("scope", "add", "legacy.py")
    project.rt("scope", "remove", "fmt.py")
    assert project.rt("verify").startswith("# verify: PASS")


def test_the_scope_commands_verify_suggests_work_pasted_into_a_shell(project):
    """`rt scope add trail .py` added `trail` and `.py`; `rt scope remove -x.py` was an unknown option. Each path in a
    suggested command is quoted for a shell, with `./` before a leading `-`: pasted into bash, it names that file."""
    python_project(project, tools="ruff", old_problem=False)
    project.rt("start", "scoped")
    odd = ["trail .py", 'say "hi".py', "pages/[id].tsx", "new\nline.py", os.fsdecode(b"caf\xe9's.py"), "-x.py"]
    project.rt("plan", "--edit", "calc.py", "--create", "./-x.py")
    project.write("calc.py", CALC + "\n")
    for name in odd[:5]:
        project.write(name, "X = 2\n")
    out = project.rt("verify", ret=1)
    commands = re.findall(r"`(rt scope (?:add|remove) [^`]*)`", out)
    assert len(commands) == 6, out
    for command in commands:
        done = subprocess.run(["bash", "-c", f"{sys.executable} -m {command}"], cwd=project.root, capture_output=True,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, errors="surrogateescape")
        assert done.returncode == 0, (command, done.stderr)
    scope = project.rt_json("status")["task"]["scope"]
    assert sorted(scope["edit"]) == sorted(["calc.py", *odd[:5]]) and scope["create"] == []


def test_fix_attempt_limit(project):
    python_project(project, tools="ruff", old_problem=False)
    project.rt("start", "keeps failing")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", "import json\n" + CALC)
    out = project.rt("verify", ret=1)
    assert "- failed verify 1 of 2: fix the above and run `rt verify` again" in out
    project.write("calc.py", "import csv\n" + CALC)
    out = project.rt("verify", ret=1)
    assert ("- 2 failed verify runs in a row (limit 2): edits are blocked now. Tell the user what fails and what "
            "you tried; more attempts are their decision (`rt allow-fix`, which they approve), else "
            "`rt block \"FAIL: 1 new diagnostic(s) (ruff 1)\"`") in out
    assert project.rt_json("status")["task"]["failed_verifies"] == 2
    decision, reason = permission(hook(project, "pre-tool-use", edit(project, "calc.py"))[1])
    assert decision == "deny" and "2 failed `rt verify` runs in a row" in reason and "rt allow-fix" in reason
    assert project.rt("allow-fix") == "fix attempts allowed: 3 failed verifies in a row (now 2)\n"
    assert permission(hook(project, "pre-tool-use", edit(project, "calc.py"))[1]) == (None, "")
    project.write("calc.py", CALC + "\n")
    project.rt("verify")
    assert project.rt_json("status")["task"]["failed_verifies"] == 0


def test_allow_fix_is_put_to_the_user(project):
    python_project(project, tools="ruff", old_problem=False)
    project.rt("start", "keeps failing")
    project.rt("plan", "--edit", "calc.py")
    decision, reason = permission(hook(project, "pre-tool-use", bash(project, "rt allow-fix --attempts 2"))[1])
    assert decision == "ask" and "the user's decision" in reason


def test_fix_attempt_limit_from_config(project):
    python_project(project, tools="ruff", old_problem=False)
    commit_config(project, "fix_attempts = 1\n")
    project.rt("start", "one try")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", "import json\n" + CALC)
    assert "1 failed verify runs in a row (limit 1)" in project.rt("verify", ret=1)


def test_no_baseline_cannot_tell_old_from_new(project):
    python_project(project, tools="ruff")
    project.rt("start", "no baseline", "--no-baseline")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC + "\n")
    out = project.rt("verify", ret=3)
    assert "could not run: 1 diagnostic(s) but no baseline was taken, so new cannot be told from old" in out


def test_optional_check_is_skipped_unless_asked(project):
    python_project(project, tools="ruff", old_problem=False)
    commit_config(project, '[checks.extra]\nkind = "lint"\nrequired = false\nparser = "flake8"\ncommand = ["flake8", "."]\n')
    project.rt("start", "optional")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC + "\n")
    out = project.rt("verify")
    assert "- skipped: extra (optional: `rt verify --with extra`); no typecheck, test check configured (see `rt checks`)" in out
    out = project.rt("verify", "--with", "extra", ret=3)  # asked for, so it counts; no baseline, and W391
    assert "- extra (lint): could not run: 1 diagnostic(s) but no baseline was taken" in out
    assert "unknown-check" in project.rt("verify", "--with", "unknown-check", ret=2) + project.last_err


def test_baseline_rules(project):
    python_project(project, tools="ruff")
    project.rt("start", "baseline later", "--no-baseline")
    assert project.rt_json("status")["task"]["state"] == "scanned"
    project.write("calc.py", CALC + "\n")
    project.rt("baseline", ret=2)
    assert "changed since `rt start`" in project.last_err
    project.write("calc.py", CALC)
    out = project.rt("baseline")
    assert "- ruff: 1 diagnostic(s)" in out and project.rt_json("status")["task"]["state"] == "ready"
    project.rt("verify", ret=2)
    assert "verify needs a plan" in project.last_err
    project.rt("plan", "--edit", "calc.py")
    project.rt("baseline", ret=2)
    assert "taken before editing" in project.last_err


def test_verify_records_the_tree_it_saw_for_the_stop_hook(project):
    """After a PASS the Stop hook lets the agent stop; an edit after it blocks the stop once, and undoing
    the edit (the same content as verified) lets it stop again: the record is of content, not of times."""
    from tests.hooks_support import hook, payload
    python_project(project, tools="ruff", old_problem=False)
    project.rt("start", "fingerprint")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC + "\n")
    assert project.rt("verify").startswith("# verify: PASS")
    stop = payload(project, "Stop", stop_hook_active=False)
    assert hook(project, "stop", stop) == (0, None, "")
    project.write("calc.py", CALC + "\n\n")
    code, out, _ = hook(project, "stop", stop)
    assert code == 0 and out["decision"] == "block"
    assert out["reason"].startswith("rt: task 1-fingerprint changed files since its last `rt verify`.")
    project.write("calc.py", CALC + "\n")
    assert hook(project, "stop", stop) == (0, None, "")


def test_node_tsc_eslint_vitest(project):
    node_project(project)
    out = project.rt("start", "change add")
    for name in ("tsc", "eslint", "vitest"):
        assert f"- {name}: 0 diagnostic(s)" in out
    project.rt("plan", "--edit", "src/add.ts", "src/util.js")
    project.write("src/add.ts", "export function add(a: number, b: number): number {\n  const s: string = a;\n"
                                "  return a + b + 1;\n}\n")
    project.write("src/util.js", "export function twice(x) {\n  const unused = 1;\n  return 2 * x;\n}\n")
    out = project.rt("check", "src/add.ts", ret=1)
    assert "src/add.ts:2:9 tsc [TS2322] Type 'number' is not assignable to type 'string'." in out
    assert "src/add.test.ts:5:21 vitest [src/add.test.ts > adds]" in out  # `vitest related` ran the test of the edited file
    out = project.rt("verify", ret=1)
    new = new_lines(verify_md(project))
    assert len(new) == 3, new
    assert new[0] == "- src/add.ts:2:9 tsc [TS2322] Type 'number' is not assignable to type 'string'."
    assert new[1] == "- src/util.js:2:9 eslint [no-unused-vars] 'unused' is assigned a value but never used."
    assert new[2].startswith("- src/add.test.ts:5:21 vitest [src/add.test.ts > adds] AssertionError: expected 4 to be 3")
    project.write("src/add.ts", "export function add(a: number, b: number): number {\n  return b + a;\n}\n")
    project.write("src/util.js", "export function twice(x) {\n  return x * 2;\n}\n")
    assert project.rt("verify").startswith("# verify: PASS")


def test_claim_is_recorded(project):
    python_project(project, tools="ruff")
    project.rt("start", "claims", "--no-baseline")
    out = project.rt("claim", "  the page renders   in Safari ")
    assert out == "claim 1 recorded as unverified: the page renders in Safari\n"
    assert project.rt_json("status")["task"]["claims"] == [{"text": "the page renders in Safari"}]
    project.rt("claim", "   ", ret=2)
    assert "the claim is empty; say what you assert" in project.last_err


def test_no_checks_at_all_is_incomplete(project):
    project.write("main.py", "print(1)\n")
    project.init_git()
    assert "no checks found" in project.rt("start", "nothing to run")
    project.rt("plan", "--edit", "main.py")
    project.write("main.py", "print(2)\n")
    out = project.rt("verify", ret=3)
    assert out.startswith("# verify: INCOMPLETE") and "- skipped: no typecheck, lint, test check configured" in out
    assert project.rt_json("status")["task"]["verify"]["summary"] == "INCOMPLETE: no checks configured"


def test_timeout_option_and_deleted_file(project):
    python_project(project, tools="ruff")
    project.rt("start", "options")
    project.rt("plan", "--delete", "legacy.py")
    for bad in ("0", "86401", "1" + "0" * 30):   # a day at most: more overflowed the clock's arithmetic
        project.rt("verify", "--timeout", bad, ret=2)
        assert f"'{bad}' is not a whole number of seconds from 1 to 86400" in project.last_err
    (project.root / "legacy.py").unlink()
    assert project.rt("check", "legacy.py") == "legacy.py: no such file now, nothing to check\n"
    out = project.rt("verify", "--timeout", "60")
    assert "- passed, nothing new: ruff (1 fixed)" in out


def test_a_moved_file_keeps_its_old_findings_old(project):
    python_project(project, tools="ruff")
    project.rt("start", "move legacy")
    project.rt("plan", "--delete", "legacy.py", "--create", "old/legacy.py")
    (project.root / "old").mkdir()
    (project.root / "legacy.py").rename(project.root / "old/legacy.py")
    out = project.rt("verify")
    assert "- passed, nothing new: ruff (1 old)" in out


def test_a_file_moved_and_edited_keeps_its_old_findings_old_and_its_new_one_is_new(project):
    """Moved with an edit, as `git diff -M` pairs files alike (half their lines or more): its old findings,
    at the lines the edit moved them to, are old; the one the edit added is new."""
    python_project(project, tools="ruff")
    project.write("legacy.py", "import os\n\n\ndef f():\n    return zz\n\n\ndef g():\n    return 1\n")
    project.git("commit", "-qam", "more")
    project.rt("start", "move legacy")
    project.rt("plan", "--delete", "legacy.py", "--create", "old/legacy.py")
    (project.root / "legacy.py").unlink()
    project.write("old/legacy.py", "import os\nimport sys\n\n\ndef f():\n    return zz\n\n\ndef g():\n    return 2\n")
    out = project.rt("verify", ret=1)
    assert new_lines(out) == ["- old/legacy.py:2:8 ruff [F401] `sys` imported but unused"], out


def test_rt_check_of_a_moved_file_keeps_its_old_findings_old(project):
    """`rt check` and the post-edit hook compared a moved file with the baseline's findings under its new path,
    none: every old finding was new (the model set out to fix what it never broke). Paired with the gone file most
    like it, as verify pairs them, the old ones stay old."""
    python_project(project, tools="ruff")
    project.write("legacy.py", "import os\n\n\ndef f():\n    return zz\n\n\ndef g():\n    return 1\n")
    project.git("commit", "-qam", "more")
    project.rt("start", "move legacy")
    project.rt("plan", "--delete", "legacy.py", "--create", "old/legacy.py")
    project.git("mv", "legacy.py", "moved.py")
    assert project.rt("check", "moved.py") == "nothing new in moved.py (ruff)\n"
    (project.root / "old").mkdir()
    project.git("mv", "moved.py", "old/legacy.py")
    project.write("old/legacy.py", "import os\nimport sys\n\n\ndef f():\n    return zz\n\n\ndef g():\n    return 2\n")
    out = project.rt("check", "old/legacy.py", ret=1)
    assert out.splitlines() == ["1 new diagnostic(s) after editing old/legacy.py:",
                                "  old/legacy.py:2:8 ruff [F401] `sys` imported but unused"], out


def test_tool_output_loses_the_absolute_repository_path(project):
    python_project(project, tools="ruff", old_problem=False)
    commit_config(project, '[checks.odd]\nparser = "ruff"\ncommand = ["python3", "-c", '
                             '"import os, sys; print(os.getcwd() + \'/setup.cfg: cannot read\'); sys.exit(2)"]\n')
    project.rt("start", "odd tool", "--no-baseline")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC + "\n")
    out = project.rt("verify", ret=3)
    assert "    | setup.cfg: cannot read" in out and str(project.root) not in out


SPELLINGS = """import os
if "BAD" in open("src/a.py").read():
    print("./src//a.py:1:1: E9 old")
    print("./src/a.py:3:1: E1 one")
    print("src//a.py:3:1: E2 two")
    print("src/./a.py:3:1: E3 three")
    print(os.getcwd() + "/src/../src/a.py:3:1: E4 four")
    print("../elsewhere/a.py:3:1: E5 outside")
else:
    print("src/a.py:1:1: E9 old")
raise SystemExit(1)
"""


def test_a_file_a_tool_spells_its_own_way_is_the_file_the_baseline_and_rt_check_name(project):
    """`./src//a.py`, `src/./a.py`, `<root>/src/../src/a.py` are `src/a.py`: its new findings are found and its old
    one stays old; a path out of the repository is left as printed."""
    project.write("src/a.py", "x = 1\ny = 2\nz = 3\n")
    project.write("spell.py", SPELLINGS)
    project.init_git()
    commit_config(project, '[checks.spell]\nparser = "generic"\ncommand = ["python3", "spell.py"]\n')
    project.rt("start", "t")
    project.rt("plan", "--edit", "src/a.py")
    project.write("src/a.py", "x = 1\ny = 2\nz = BAD\n")
    assert project.rt("check", "src/a.py", ret=1).splitlines() == [
        "4 new diagnostic(s) after editing src/a.py:", "  src/a.py:3:1 spell E1 one", "  src/a.py:3:1 spell E2 two",
        "  src/a.py:3:1 spell E3 three", "  src/a.py:3:1 spell E4 four"]
    assert new_lines(project.rt("verify", ret=1)) == [
        "- ../elsewhere/a.py:3:1 spell E5 outside", "- src/a.py:3:1 spell E1 one", "- src/a.py:3:1 spell E2 two",
        "- src/a.py:3:1 spell E3 three", "- src/a.py:3:1 spell E4 four"]


def test_damaged_baseline_is_set_aside_by_repair(project):
    python_project(project, tools="ruff")
    project.rt("start", "damage")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC + "\n")
    project.write(".rt/tasks/1-damage/baseline.json", '{"checks": {"ruff"')
    project.rt("verify", ret=2)
    assert "baseline.json is damaged" in project.last_err and "rt repair" in project.last_err
    assert "tasks/1-damage/baseline.json" in project.rt("repair")
    out = project.rt("verify", ret=3)  # the old finding can no longer be told from a new one
    assert "no baseline was taken" in out


@pytest.mark.parametrize("config, line", [
    ("[checks.ruff]\nenabled = false\n", "- skipped: ruff (run by the baseline, no longer a check: rt.toml or the "
                                         "project's files changed since the task started)"),
    ('[checks.ruff]\ncommand = ["true"]\n', "- ruff (lint): could not run: its command changed after the task started (`ruff "),
])
def test_a_check_the_baseline_ran_that_is_gone_or_changed_is_never_a_silent_pass(project, config, line):
    """A new finding after the check was switched off, or its command made `true`, since the baseline."""
    python_project(project, tools="ruff", old_problem=False)
    project.rt("start", "tidy")
    project.rt("plan", "--edit", "calc.py", "--create", "rt.toml")
    project.write("calc.py", "import json\n" + CALC)
    project.write("rt.toml", config)
    out = project.rt("verify", ret=3)
    assert out.startswith("# verify: INCOMPLETE") and any(ln.startswith(line) for ln in out.splitlines()), out


def test_a_check_added_or_changed_while_the_task_runs_is_not_run(project, tmp_path):
    """An agent that may edit rt.toml would have rt run its command (verify, the post-edit hook, rt check) without
    the user's word: a check not in the baseline, or with another command, runs only once `rt baseline` takes it in."""
    python_project(project, tools="ruff", old_problem=False)
    project.rt("start", "tidy")
    project.rt("plan", "--edit", "calc.py", "--create", "rt.toml")
    marker = tmp_path / "ran"
    command = f'["{sys.executable}", "-c", "open({str(marker)!r}, \'w\')"]'
    project.write("rt.toml", f"[checks.docs]\ncommand = {command}\nper_file = {command[:-1]}, \"{{file}}\"]\n"
                             f"[checks.ruff]\nper_file = {command[:-1]}, \"{{file}}\"]\n")
    project.write("calc.py", '"""Sums."""\n' + CALC)
    out = project.rt("check", "calc.py", ret=3)
    assert "docs could not check calc.py: added to the config after the task started" in out
    out = project.rt("verify", ret=3)
    assert "- docs (lint): could not run: added to the config after the task started, so not run for it" in out
    assert "- ruff (lint): could not run: its command changed after the task started" in out
    assert not marker.exists()


def test_a_task_of_an_earlier_rt_holds_back_checks_by_its_baseline(project):
    """A task recorded before rt kept its start's checks: the baseline's commands decide instead."""
    python_project(project, tools="ruff", old_problem=False)
    project.rt("start", "tidy")
    record = project.root / ".rt/tasks/1-tidy/task.json"
    record.write_text(json.dumps({k: v for k, v in json.loads(record.read_text()).items() if k != "checks"}))
    project.rt("plan", "--edit", "calc.py", "--create", "rt.toml")
    project.write("rt.toml", '[checks.ruff]\ncommand = ["true"]\n')
    project.write("calc.py", "import json\n" + CALC)
    assert "- ruff (lint): could not run: its command changed after the task started (`ruff" in project.rt("verify", ret=3)

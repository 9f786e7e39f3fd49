"""Detection of a project's checks from its own files, the config file, formatters, `rt checks`."""
from __future__ import annotations

import shutil
import sys

import pytest

from conftest import needs
from tests.checks_support import CALC, ROOT, python_project
from rt.checks import detect, formatter_for, run_check
from rt.core import find_repo


def found(project) -> dict:
    return {c.name: c for c in detect(find_repo(project.root))}


def test_node_detection_prefers_the_local_tool(project, monkeypatch):
    project.write("package.json", '{"devDependencies": {"typescript": "5", "eslint": "9", "jest": "29"}, '
                                  '"scripts": {"build": "tsc -b", "test": "jest"}}')
    project.write("node_modules/.bin/eslint", "#!/bin/sh\n")
    checks = found(project)
    assert list(checks) == ["tsc", "eslint", "build", "jest"]  # kind order: typecheck, lint, build, test
    assert checks["eslint"].command == ["node_modules/.bin/eslint", "--format", "json", "."]
    assert checks["eslint"].per_file == ["node_modules/.bin/eslint", "--format", "json", "--no-warn-ignored", "{file}"]
    assert checks["tsc"].command[0] == "tsc"  # not installed locally: found on PATH at run time
    assert checks["tsc"].reason == "package.json depends on typescript"
    assert checks["jest"].per_file[-2:] == ["--findRelatedTests", "{file}"]
    assert not checks["build"].required and checks["build"].command == ["npm", "run", "build", "--silent"]
    assert checks["tsc"].applies_to("src/a.tsx") and not checks["tsc"].applies_to("README.md")
    monkeypatch.setenv("PATH", "")   # no tsc anywhere: the project's dependencies are what is missing, say how they come
    assert "  missing:  tsc is not installed here, so this check cannot run (`npm install` puts the project's " \
           "copy in node_modules/.bin)" in project.rt("checks")


def test_eslint_legacy_config_lints_every_script_kind(project):
    project.write("package.json", '{"devDependencies": {"eslint": "8"}}')
    project.write(".eslintrc.json", "{}")
    eslint = found(project)["eslint"]
    assert eslint.command == ["eslint", "--format", "json", "--ext", ".js,.jsx,.ts,.tsx,.mjs,.cjs", "."]
    assert eslint.per_file == ["eslint", "--format", "json", "{file}"]
    assert eslint.reason == "package.json depends on eslint"


def test_node_test_script_without_a_known_runner(project):
    project.write("package.json", '{"scripts": {"test": "node test.js"}}')
    project.write("tsconfig.json", "{}")
    checks = found(project)
    assert checks["tsc"].reason == "tsconfig.json exists"
    assert checks["test"].command == ["npm", "test", "--silent"] and checks["test"].parser == "generic"


def test_npm_placeholder_test_script_is_not_a_check(project):
    project.write("package.json", '{"scripts": {"test": "echo \\"Error: no test specified\\" && exit 1"}}')
    assert found(project) == {}


def test_python_detection_from_each_kind_of_file(project):
    project.write("setup.cfg", "[flake8]\nmax-line-length = 100\n[mypy]\nfiles = src\n")
    project.write("tox.ini", "[pytest]\naddopts = -q\n")
    project.write("Makefile", "lint:\n\tpylint src\n")
    project.write("requirements-dev.txt", "# tools\npyright==1.1\n-r base.txt\n")
    checks = found(project)
    assert sorted(checks) == ["flake8", "mypy", "pylint", "pyright", "pytest"]
    assert checks["flake8"].reason == "setup.cfg [flake8]"
    assert checks["mypy"].reason == "setup.cfg [mypy]"
    assert checks["mypy"].command[-1] != "."  # the config names the files
    assert checks["pytest"].reason == "tox.ini [pytest]"
    assert checks["pylint"].reason == "Makefile runs pylint"
    assert checks["pyright"].reason == "requirements-dev.txt lists pyright"
    assert checks["pytest"].command[:3] == ["python3", "-m", "pytest"]


def test_python_detection_from_pyproject_and_venv(project):
    project.write("pyproject.toml", '[project]\nname = "x"\ndependencies = ["requests"]\n'
                                    '[project.optional-dependencies]\ndev = ["Flake8>=7"]\n'
                                    "[tool.ruff]\n[tool.mypy]\n")
    project.write(".venv/bin/ruff", "")
    project.write(".venv/bin/python", "")
    project.write("tests/conftest.py", "")
    checks = found(project)
    assert sorted(checks) == ["flake8", "mypy", "pytest", "ruff"]
    assert checks["flake8"].reason == "pyproject.toml lists flake8"
    assert checks["ruff"].command[0] == ".venv/bin/ruff" and checks["mypy"].command[0] == "mypy"
    assert checks["mypy"].command[-1] == "."
    assert checks["pytest"].command[0] == ".venv/bin/python" and checks["pytest"].reason == "conftest.py exists"
    assert checks["pytest"].per_file is None  # a test suite has no per-file form


def test_unittest_suites_run_with_pytest(project):
    project.write("tox.ini", "[testenv]\ncommands = {envpython} -m unittest -v {posargs}\n")
    assert found(project)["pytest"].reason == "tox.ini runs unittest (pytest runs those tests too)"
    project.write("Makefile", "test:\n\tpython -m unittest\n")
    assert found(project)["pytest"].reason == "Makefile runs unittest (pytest runs those tests too)"


def test_go_and_rust_detection(project):
    project.write("go.mod", "module example.com/x\n")
    project.write("Cargo.toml", '[package]\nname = "x"\n')
    checks = found(project)
    assert [c.name for c in checks.values()] == ["cargo-check", "clippy", "go-vet", "go-build", "cargo-test", "go-test"]
    assert checks["go-vet"].command == ["go", "vet", "./..."] and checks["go-vet"].parser == "go"
    assert checks["cargo-check"].command == ["cargo", "check", "--all-targets", "--message-format=short"]
    assert not checks["clippy"].required and checks["cargo-test"].required
    assert checks["go-test"].applies_to("pkg/a.go") and not checks["go-test"].applies_to("src/main.rs")


def test_nothing_declared_means_no_checks(project):
    project.write("main.py", "print(1)\n")
    assert found(project) == {}
    assert "no checks found" in project.rt("checks")


def test_config_overrides_adds_and_disables(project):
    project.write("pyproject.toml", "[tool.ruff]\n[tool.mypy]\n[tool.pylint]\n")
    project.write("rt.toml", 'timeout = 120\nfix_attempts = 4\n'
                             '[checks.mypy]\nrequired = false\ntimeout = 30\n'
                             '[checks.pylint]\nenabled = false\n'
                             '[checks.docs]\nkind = "lint"\ncommand = ["markdownlint", "docs"]\n'
                             'per_file = ["markdownlint", "{file}"]\nfiles = ["*.md"]\n')
    checks = found(project)
    assert sorted(checks) == ["docs", "mypy", "ruff"]
    assert checks["ruff"].timeout == 120
    assert checks["mypy"].timeout == 30 and not checks["mypy"].required
    assert checks["mypy"].reason == "pyproject.toml [tool.mypy]; adjusted in rt.toml"
    assert checks["docs"].reason == "rt.toml [checks.docs]" and checks["docs"].parser == "generic"
    assert checks["docs"].applies_to("docs/a.md") and not checks["docs"].applies_to("a.py")
    assert project.rt_json("checks")["fix_attempts"] == 4


def test_tool_rt_in_pyproject_and_rt_toml_wins(project):
    project.write("pyproject.toml", '[tool.ruff]\n[tool.rt.checks.ruff]\nrequired = false\n')
    assert not found(project)["ruff"].required
    assert found(project)["ruff"].reason == "pyproject.toml [tool.ruff]; adjusted in pyproject.toml [tool.rt]"
    project.write("rt.toml", "[checks.ruff]\ntimeout = 5\n")
    assert found(project)["ruff"].required and found(project)["ruff"].timeout == 5


@pytest.mark.parametrize("config, message", [
    ("colour = 1\n", "rt.toml: unknown key 'colour'"),
    ("timeout = true\n", "rt.toml: timeout must be a int"),
    ("rerun_failed_tests = -1\n", "rt.toml: rerun_failed_tests must be 0 (no rerun) to 10"),
    ("rerun_failed_tests = 1000000000\n", "rt.toml: rerun_failed_tests must be 0 (no rerun) to 10"),
    ("fix_attempts = -3\n", "rt.toml: fix_attempts must be 1 or more"),
    ("fix_attempts = 0\n", "rt.toml: fix_attempts must be 1 or more"),
    ("[checks.\"../../notes\"]\ncommand = [\"echo\"]\n", "rt.toml: check name '../../notes' may hold letters, digits"),
    ("[checks.\"a/b\"]\ncommand = [\"echo\"]\n", "rt.toml: check name 'a/b' may hold"),
    ("[checks.\"a\\nb\"]\ncommand = [\"echo\"]\n", "rt.toml: check name 'a\\nb' may hold"),
    ("[checks.x]\ncommand = [\"echo\"]\nparser = \"nonsense\"\n", "rt.toml: [checks.x] parser must be one of cargo, eslint"),
    ("[checks.x]\ncommand = [\"\"]\n", "rt.toml: [checks.x] command must name a program first"),
    ("x = " + "[" * 100_000 + "]" * 100_000 + "\n", "rt.toml: not valid TOML (nested too deep)"),
    ("timeout = 100000000000000000000\n", "rt.toml: timeout must be a whole number of seconds from 1 to 86400"),
    ("[checks.ruff]\ntimeout = 0\n", "rt.toml: [checks.ruff] timeout must be a whole number of seconds from 1 to 86400"),
    ("[checks.x]\nkind = \"lint\"\n", "[checks.x] is not a detected check, so it needs a command"),
    ("[checks.x]\ncommand = [\"a\"]\nkind = \"style\"\n", "[checks.x] kind must be one of"),
    ("[checks.x]\ncommand = [\"a\"]\nper_file = [\"a\"]\n", "[checks.x] per_file must contain \"{file}\""),
    ("[checks.x]\ncommand = [\"a\"]\nretries = 2\n", "[checks.x] unknown key 'retries'"),
    ("[format]\n\"*.py\" = [\"black\"]\n", "[format] '*.py' must be a command list containing \"{file}\""),
    ("[checks\n", "rt.toml: not valid TOML"),
])
def test_config_errors_are_one_line(project, config, message):
    project.write("rt.toml", config)
    out = project.rt("checks", ret=2)
    assert out == "" and message in project.last_err and project.last_err.count("\n") == 1


@pytest.mark.parametrize("pyproject", ["tool = 1\n", "project = 3\n", "[project]\ndependencies = [1]\n",
                                       "dependency-groups = []\n", "[tool]\nmypy = 3\nruff = []\n",
                                       "[tool.poetry]\ngroup = 1\n", "x = " + "[" * 100_000 + "]" * 100_000 + "\n"])
def test_a_pyproject_of_odd_types_is_read_past(project, pyproject):
    """Valid TOML where a table or a list of strings should be: what it cannot mean is not read, nothing fails."""
    project.write("pyproject.toml", pyproject)
    project.rt("checks")


@pytest.mark.parametrize("how", ["link", "folder"])
def test_an_rt_toml_rt_cannot_read_is_said_not_ignored(project, how):
    """A link (even one inside the repository) or a folder: the checks it switches off would run regardless."""
    project.write("conf/rt.toml", "[checks.ruff]\nenabled = false\n")
    if how == "link":
        (project.root / "rt.toml").symlink_to("conf/rt.toml")
    else:
        (project.root / "rt.toml").mkdir()
    project.rt("checks", ret=2)
    assert project.last_err.startswith("rt: error: rt.toml is there but is no file rt reads (a link, a folder")


def test_a_tool_rt_that_is_no_table_is_one_line(project):
    project.write("pyproject.toml", "[tool]\nrt = 5\n")
    project.rt("checks", ret=2)
    assert project.last_err == "rt: error: pyproject.toml [tool.rt] must be a table\n"


def test_a_check_name_never_leads_its_log_out_of_rt_store(project):
    """The log of a check goes to .rt/.../NAME.log: a name climbing out would write over the user's file."""
    project.write("notes.log", "mine\n")
    project.write("rt.toml", '[checks."../../../../notes"]\ncommand = ["echo", "hello from check"]\n')
    project.init_git()
    project.rt("start", "t", ret=2)
    assert project.read("notes.log") == "mine\n"


def test_rt_checks_lists_why_and_is_byte_stable(project):
    needs("ruff")
    project.write("pyproject.toml", "[tool.ruff]\n[tool.pytest.ini_options]\n")
    first = project.rt("checks")
    assert first == project.rt("checks")
    assert first.splitlines()[:4] == [
        "ruff  lint, required, timeout 600s, parser ruff",
        "  run:      ruff check --output-format=concise --no-cache --no-fix .",
        "  per file: ruff check --output-format=concise --no-cache --no-fix --force-exclude {file}",
        "  why:      pyproject.toml [tool.ruff]",
    ]
    assert "missing" not in first  # ruff and python3 are installed
    project.write("rt.toml", '[checks.typos]\ncommand = ["no-such-tool-rt-test"]\n')
    out = project.rt("checks")
    assert "  missing:  no-such-tool-rt-test is not installed here, so this check cannot run" in out
    assert not [c for c in project.rt_json("checks")["checks"] if c["name"] == "typos"][0]["installed"]
    out = project.rt("checks", "--file", "src/a.py")
    assert out.splitlines()[-1] == "src/a.py: checks ruff, typos, pytest; formatter none"


def test_formatter_from_config_then_detected(project):
    repo = find_repo(project.root)
    project.write("pyproject.toml", "[tool.ruff.format]\nquote-style = 'single'\n")
    assert formatter_for(repo, "pkg/a.py") == ["ruff", "format", "pkg/a.py"]
    assert formatter_for(repo, "a.md") is None
    project.write("rt.toml", '[format]\n"*.py" = ["black", "-q", "{file}"]\n"docs/*.md" = ["mdformat", "{file}"]\n')
    assert formatter_for(repo, "pkg/a.py") == ["black", "-q", "pkg/a.py"]
    assert formatter_for(repo, "docs/a.md") == ["mdformat", "docs/a.md"]
    project.write("go.mod", "module x\n")
    assert formatter_for(repo, "main.go") == ["gofmt", "-w", "main.go"]
    project.write("package.json", '{"devDependencies": {"prettier": "3"}}')
    assert formatter_for(repo, "src/a.ts") == ["prettier", "--write", "src/a.ts"]
    project.write("node_modules/.bin/prettier", "")
    assert formatter_for(repo, "src/a.ts") == ["node_modules/.bin/prettier", "--write", "src/a.ts"]


def test_formatter_runs_and_changes_only_that_file(project):
    """The argv formatter_for gives really formats a file in place when handed to a program runner."""
    from rt.core import run
    needs("ruff")
    project.write("pyproject.toml", "[tool.ruff.format]\n")
    project.write("a.py", "x = [1,2]\n")
    project.write("b.py", "y = [1,2]\n")
    argv = formatter_for(find_repo(project.root), "a.py")
    assert run(argv, project.root).returncode == 0
    assert project.read("a.py") == "x = [1, 2]\n" and project.read("b.py") == "y = [1,2]\n"


def test_run_check_per_file_form(project):
    python_project(project, tools="ruff", old_problem=True)
    project.write("calc.py", "import json\n" + CALC)
    check = found(project)["ruff"]
    repo = find_repo(project.root)
    whole = run_check(repo, check)
    one = run_check(repo, check, file="calc.py")
    assert sorted(d.file for d in whole.run.diagnostics) == ["calc.py", "legacy.py"]
    assert [d.file for d in one.run.diagnostics] == ["calc.py"]


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo: not installed here (`bash .ci/run` installs it)")
def test_cargo_check_finds_a_new_error(project):
    project.write("Cargo.toml", '[package]\nname = "fx"\nversion = "0.1.0"\nedition = "2021"\n')
    project.write("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n")
    project.write(".gitignore", "target\n")
    project.init_git()
    out = project.rt("start", "break main")
    assert "- cargo-check: 0 diagnostic(s)" in out
    project.rt("plan", "--edit", "src/main.rs")
    project.write("src/main.rs", "fn main() {\n    let x: u8 = \"no\";\n}\n")
    out = project.rt("verify", ret=1)
    assert "- src/main.rs:2:17 cargo-check, cargo-test [E0308] mismatched types" in out   # one line for both


@pytest.mark.skipif(shutil.which("go") is None, reason="needs go: not installed here (`bash .ci/run` installs it)")
def test_a_compile_error_go_build_vet_and_test_all_report_is_listed_once(project):
    project.write("go.mod", "module example.com/fx\n\ngo 1.18\n")
    project.write("fx.go", "package fx\n\nfunc Twice(n int) int {\n\treturn 2 * n\n}\n")
    project.write("fx_test.go", 'package fx\n\nimport "testing"\n\nfunc TestTwice(t *testing.T) {\n'
                  '\tif Twice(2) != 4 {\n\t\tt.Fatal("no")\n\t}\n}\n')
    project.init_git()
    project.rt("start", "break Twice")
    project.rt("plan", "--edit", "fx.go")
    project.write("fx.go", 'package fx\n\nfunc Twice(n int) int {\n\tvar s string = n\n\treturn 2 * len(s)\n}\n')
    out = project.rt("verify", ret=1)
    listed = [ln for ln in out.splitlines() if ln.startswith("- fx.go:4:")]
    assert len(listed) == 1, out
    assert all(name in listed[0] for name in ("go-vet", "go-build", "go-test")), out
    assert "more at the same place by another check" in out
    for name in ("go-vet", "go-build", "go-test"):   # each check still says it failed
        assert f"- {name} (" in out and "failed: 1 new" in out.split(f"- {name} (", 1)[1].splitlines()[0], out


def test_readme_config_example_is_valid(project):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = readme.split("**Config file**", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    project.write("pyproject.toml", "[tool.mypy]\n[tool.pylint]\n")
    project.write("rt.toml", example)
    checks = found(project)
    assert sorted(checks) == ["docs", "mypy"] and not checks["mypy"].required
    assert formatter_for(find_repo(project.root), "a.py") == ["black", "-q", "a.py"]


def test_toml_files_are_kept_parsed_beside_their_text(project):
    """rt.toml and pyproject.toml are kept parsed in .rt/toml.json for the next process; a document with
    a date (which JSON cannot hold) is parsed every time, a damaged cache is parsed past and rewritten,
    and an edited file is parsed again. (Each step a process of its own, as the hooks are.)"""
    import json

    project.write("rt.toml", 'fix_attempts = 3\n[checks.lint]\ncommand = ["true"]\n')
    project.write("pyproject.toml", "[project]\nname = 'x'\n[tool.other]\nreleased = 2024-05-01\n")
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    cache = project.root / ".rt" / "toml.json"
    first = project.rt_proc("checks")
    assert first.returncode == 0 and "rt.toml [checks.lint]" in first.stdout
    kept = json.loads(cache.read_text())
    assert kept["rt.toml"]["data"]["fix_attempts"] == 3 and "pyproject.toml" not in kept
    cache.write_text("{not json")
    assert project.rt_proc("checks").stdout == first.stdout
    assert json.loads(cache.read_text())["rt.toml"]["data"]["fix_attempts"] == 3
    project.write("rt.toml", 'fix_attempts = 3\n[checks.other]\ncommand = ["true"]\n')
    now = project.rt_proc("checks").stdout
    assert "rt.toml [checks.other]" in now and "[checks.lint]" not in now
    assert list(json.loads(cache.read_text())["rt.toml"]["data"]["checks"]) == ["other"]


def test_a_finding_on_stderr_after_output_without_a_line_break_is_read(project):
    """stdout `checked 2 files` (no line break), then stderr's finding: joined, its line did not parse."""
    project.write("lint.py", "import sys\nsys.stdout.write('checked 2 files')\nsys.stdout.flush()\n"
                             "if 'zz' in open('a.py').read():\n"
                             "    sys.stderr.write(\"a.py:1:1: error: undefined name 'zz'\\n\")\n    sys.exit(1)\n")
    project.write("a.py", "x = 1\n")
    project.write("rt.toml", f'[checks.lint]\ncommand = ["{sys.executable}", "lint.py"]\nparser = "generic"\n')
    project.init_git()
    project.rt("start", "t")
    project.rt("plan", "--edit", "a.py")
    project.write("a.py", "x = zz\n")
    out = project.rt("check", "a.py", ret=1)
    assert "a.py:1:1 lint undefined name 'zz'" in out

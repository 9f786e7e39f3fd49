"""rt verify with the same rules as diff-logs: a configuration failure is never PASS, a failing test's report
carries the lines that explain it, old findings under lines the task inserted stay old, a stopped run
with nothing new is INCOMPLETE."""
from __future__ import annotations

from tests.checks_support import CALC, node_project, python_project, verify_md
from tests.test_verify import new_lines


def test_typescript_7_removed_option_makes_verify_incomplete_not_pass(project):
    """TS7 reports a removed `baseUrl` at tsconfig.json and checks nothing: a new type error must not PASS."""
    node_project(project)
    project.write("tsconfig.json", project.read("tsconfig.json").replace('"strict": true', '"strict": true, "baseUrl": "."'))
    project.git("commit", "-qam", "baseUrl")
    out = project.rt("start", "change add")
    assert "- tsc: could not run: tsc configuration error in tsconfig.json:1: TS5102" in out, out
    project.rt("plan", "--edit", "src/add.ts")
    project.write("src/add.ts", "export function add(a: number, b: number): number {\n  const s: string = a;\n"
                                "  return a + b;\n}\n")
    out = project.rt("verify", ret=3)
    assert out.startswith("# verify: INCOMPLETE"), out
    assert "- tsc (typecheck): could not run: tsc configuration error in tsconfig.json:1: TS5102 Option 'baseUrl'" in out


def test_failing_test_report_shows_its_assertion_and_e_lines(project):
    python_project(project, tools="pytest")
    project.rt("start", "break add")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", "def add(a: int, b: int) -> int:\n    return a - b\n")
    out = project.rt("verify", ret=1)
    assert "- tests/test_calc.py:5 pytest [test_add] assert -1 == 3" in out, out
    assert "    | tests/test_calc.py:5: assert add(1, 2) == 3\n    | E +  where -1 = add(1, 2)" in out, out


def test_a_test_still_failing_with_another_message_is_not_new(project):
    python_project(project, tools="pytest")
    project.write("tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 4\n")
    project.git("commit", "-qam", "a failing test")
    project.rt("start", "change add")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC.replace("a + b", "a + b + 10"))
    out = project.rt("verify")
    assert out.startswith("# verify: PASS"), out
    assert "## old failures\n- still failing, message changed: tests/test_calc.py::test_add (failed): assert 13 == 4" in out


def test_an_identical_finding_added_under_inserted_lines_is_the_new_one(project):
    python_project(project, tools="ruff", old_problem=False)
    twins = "def f():\n    return zz\n\n\ndef g():\n    return zz\n"
    project.write("legacy.py", twins)
    project.git("add", "-A")
    project.git("commit", "-qm", "twins")
    project.rt("start", "add h")
    project.rt("plan", "--edit", "legacy.py")
    project.write("legacy.py", '"""Doc."""\n\n\ndef h():\n    return zz\n\n\n' + twins)
    project.rt("verify", ret=1)
    assert new_lines(verify_md(project)) == ["- legacy.py:5:12 ruff [F821] Undefined name `zz`"]


def test_collection_error_already_there_makes_verify_incomplete(project):
    python_project(project, tools="pytest")
    project.write("pyproject.toml", '[tool.pytest.ini_options]\n[tool.rt.checks.pytest]\n'
                                    'command = ["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider"]\n')
    project.write("tests/test_broken.py", "import no_such_module_rt\n")
    project.git("add", "-A")
    project.git("commit", "-qm", "broken test module")
    out = project.rt("start", "change add")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC.replace("a + b", "b + a"))
    out = project.rt("verify", ret=3)
    assert out.startswith("# verify: INCOMPLETE"), out
    assert "- pytest (test): stopped early, nothing new where it got to (1 old)" in out

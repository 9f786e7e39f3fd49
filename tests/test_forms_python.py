"""The Python tools' output in every form they print, from real runs: each form reads the same findings
as the recommended one; CI damage (CRLF, colour, Windows paths, lines around a report) changes nothing;
a log cut short, a configuration error and an early stop are never a clean run."""
from __future__ import annotations

import sys

import pytest

from rt.diagnostics.model import Interrupted, ToolFailure, Truncated
from rt.diagnostics.parsers import parse
from tests.diagnostics_support import write_tree
from tests.forms_support import auto, crlf, judged, keys, read, sh

PY = {
    "ruff.toml": '[lint]\nselect = ["E", "F"]\n',
    "pkg/a.py": ("import os\nimport sys\n\n\ndef f(x):\n    return undefined_name + x\n\n\n"
                 "def g() -> int:\n    return 'not an int'\n\n\nLONG = '" + "a" * 100 + "'\n"),
    "pkg/b.py": "from typing import List\n\n\ndef h(a: int) -> int:\n    return a\n\n\nh('x')\n",
}


@pytest.fixture(scope="module")
def py(tmp_path_factory):
    root = tmp_path_factory.mktemp("py")
    write_tree(root, PY)
    return root


def ruff(root, *args, env=None):
    return sh(["ruff", "check", "--no-cache", *args, "."], root, env)


RUFF_FORMS = ["full", "grouped", "pylint", "json", "json-lines", "github", "sarif", "junit", "azure"]


def test_ruff_every_form_reads_what_the_concise_form_reads(py):
    code, concise = ruff(py, "--output-format=concise")
    want = keys(read("ruff", concise, py))
    assert code == 1 and len(want) == 5, concise
    for form in RUFF_FORMS:
        code, out = ruff(py, f"--output-format={form}")
        assert keys(read("ruff", out, py)) == want, f"{form}:\n{out[:3000]}"
        assert auto(out) in ("ruff", "sarif", "junit", "github"), form
    code, full = ruff(py)            # the default form, as a CI log holds it
    assert judged("ruff", code, crlf(full), py).diagnostics == judged("ruff", code, concise, py).diagnostics
    code, coloured = ruff(py, "--output-format=full", env={"CLICOLOR_FORCE": "1", "FORCE_COLOR": "1", "NO_COLOR": ""})
    assert "\x1b[" in coloured and keys(read("ruff", coloured, py)) == want


def test_ruff_full_form_cut_short_is_never_complete(py):
    code, full = ruff(py)
    header = full.index("\n", full.index("F821")) + 1        # cut right after a finding's first line
    for cut in (full[:header], full[:full.index("Found ")]):
        with pytest.raises(Truncated):
            parse("ruff", cut, "ruff", str(py))
        run = judged("ruff", 1, cut, py)
        assert run.status == "could_not_run" and "ends" in run.reason


def test_ruff_findings_in_files_named_with_a_colon_or_a_backslash_are_read_and_none_is_dropped(tmp_path):
    """ruff prints `x:1.py:3:8: F401 ...` and `back\\slash.py:3:8: ...` for files so named: each is read under its
    name. A line rt cannot read (a name starting with a space looks like a continuation) is never a clean
    file: ruff's closing count says a finding is missing, and the run could not be judged."""
    write_tree(tmp_path, {"x:1.py": "import os\n", "back\\slash.py": "import os\n", "plain.py": "import sys\n"})
    code, out = ruff(tmp_path, "--output-format=concise")
    assert code == 1 and keys(read("ruff", out, tmp_path)) == [("back\\slash.py", 1, "F401", ""), ("plain.py", 1, "F401", ""),
                                                            ("x:1.py", 1, "F401", "")], out
    write_tree(tmp_path, {" lead.py": "import os\n"})
    code, out = ruff(tmp_path, "--output-format=concise")
    assert "Found 4 errors." in out
    with pytest.raises(ToolFailure, match="rt read 3 of the 4 findings ruff reported"):
        parse("ruff", out, "ruff", str(tmp_path))
    assert judged("ruff", code, out, tmp_path).status == "could_not_run"


def test_flake8_forms_and_windows_paths(tmp_path):
    win = "C:\\src\\with spaces.py"          # a real file of that name: flake8 prints the path as a Windows CI does
    write_tree(tmp_path, {win: "import os\n\n\ndef f():\n     return 1\n"})
    code, default = sh(["flake8", win], tmp_path)
    got = read("flake8", default, None)
    assert [(d.file, d.line, d.column, d.code) for d in got] == [("C:/src/with spaces.py", 1, 1, "F401"),
                                                                  ("C:/src/with spaces.py", 5, 6, "E111"),
                                                                  ("C:/src/with spaces.py", 5, 6, "E117")], default
    for args in (["--format=pylint"], ["--show-source"]):
        _, out = sh(["flake8", *args, win], tmp_path)
        assert [(d.file, d.line, d.code) for d in read("flake8", out, None)] == [(d.file, d.line, d.code) for d in got]
    assert [d.file for d in read("flake8", default, "C:\\src")] == ["with spaces.py"] * 3


def mypy(root, *args, env=None):
    cache = root.parent / "mypy-cache"
    return sh([sys.executable, "-m", "mypy", "--cache-dir", str(cache), *args, "pkg"], root, env)


def test_mypy_every_form_reads_the_same_findings(py):
    code, default = mypy(py)
    want = [(f, line, c) for f, line, c, _ in keys(read("mypy", default, py))]
    assert code == 1 and [c for _, _, c in want] == ["return-value", "arg-type"], default
    for args, env in ((["--show-column-numbers"], None), (["--show-column-numbers", "--show-error-end"], None),
                      (["--pretty"], {"COLUMNS": "50"}), (["-O", "json"], None), (["--no-error-summary"], None),
                      (["--junit-xml", "/dev/stdout"], None)):
        _, out = mypy(py, *args, env=env)
        got = [(f, line, c) for f, line, c, _ in keys(read("mypy" if "--junit-xml" not in args else "junit", out, py))]
        assert got == want, f"{args}:\n{out}"
        assert auto(out) in ("mypy", "junit"), args
    _, pretty = mypy(py, "--pretty", env={"COLUMNS": "50"})
    messages = {d.message for d in read("mypy", pretty, py)}
    assert messages == {d.message for d in read("mypy", default, py)}, pretty   # wrapped lines joined back


def test_mypy_plugin_error_located_in_pyproject_is_a_run_that_did_not_happen(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": '[tool.mypy]\nplugins = ["no_such_plugin_rt"]\n',
                          "pkg/a.py": "x: int = 'a'\n"})
    code, out = mypy(tmp_path)
    run = judged("mypy", code, out, tmp_path)
    assert run.status == "could_not_run" and run.reason.startswith("mypy configuration error in pyproject.toml"), out


def test_mypy_blocking_syntax_error_stops_the_run(tmp_path):
    write_tree(tmp_path, {"pkg/a.py": "x: int = 'a'\n", "pkg/b.py": "def broken(:\n    pass\n"})
    code, out = mypy(tmp_path)
    with pytest.raises(Interrupted) as stopped:
        parse("mypy", out, "mypy", str(tmp_path))
    assert {(d.file, d.code) for d in stopped.value.diagnostics} == {("pkg/b.py", "syntax")}
    run = judged("mypy", code, out, tmp_path)
    assert run.status == "partial" and "prevented further checking" in run.reason, out


PYLINT_TEMPLATES = ["{path}:{line}:{column}: {msg_id}: {msg} ({symbol})", "{path}:{line}: [{msg_id}({symbol}), {obj}] {msg}",
                    "{path}({line}): [{msg_id}{obj}] {msg}", "{abspath}:{line}:{column}: {category} {msg_id} {msg}",
                    "{path}:{line}: {msg} [{msg_id}]"]


def pylint(root, *args):
    return sh([sys.executable, "-m", "pylint", "--disable=C", *args, "pkg"], root)


def test_pylint_every_form_and_template_reads_the_same_findings(py):
    code, text = pylint(py)
    want = [(f, line, c) for f, line, c, _ in keys(read("pylint", text, py))]
    assert {"W0611", "E0602"} <= {c for _, _, c in want} and "rated at" in text, text
    forms = [["--output-format=" + f] for f in ("parseable", "msvs", "colorized", "json", "json2", "github")]
    forms += [["--msg-template=" + t] for t in PYLINT_TEMPLATES]
    for args in forms:
        _, out = pylint(py, *args)
        got = [(f, line, c) for f, line, c, _ in keys(read("pylint", out, py))]
        assert got == want, f"{args}:\n{out}"
    _, json_out = pylint(py, "--output-format=json")
    assert {d.message for d in read("pylint", json_out, py)} == {d.message for d in read("pylint", text, py)}


def test_pylint_configuration_error_is_a_run_that_did_not_happen(tmp_path):
    write_tree(tmp_path, {".pylintrc": "[MAIN]\nload-plugins=no_such_plugin_rt\n", "pkg/a.py": "import os\n"})
    code, out = pylint(tmp_path)
    run = judged("pylint", code, out, tmp_path)
    assert run.status == "could_not_run" and "configuration error in Command line or configuration file" in run.reason, out


def test_windows_paths_of_mypy_and_pylint(tmp_path):
    win = "C:\\src\\with spaces.py"
    write_tree(tmp_path, {win: "import os\n\n\ndef f() -> int:\n    return 'x'\n"})
    _, out = sh([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "c"), "--show-column-numbers", win], tmp_path)
    assert [(d.file, d.line, d.column) for d in read("mypy", out, None)] == [("C:/src/with spaces.py", 5, 12)], out
    _, out = sh([sys.executable, "-m", "pylint", "--disable=C", win], tmp_path)
    assert ("C:/src/with spaces.py", 1, "W0611") in [(d.file, d.line, d.code) for d in read("pylint", out, None)], out


# ---------------------------------------------------------------- pytest

TESTS = {
    "tests/helpers.py": "def check(v):\n    assert v > 10, f'too small: {v}'\n",
    "tests/test_m.py": ("import pytest\n\nfrom helpers import check\n\n\ndef test_ok():\n    assert 1 == 1\n\n\n"
                        "def test_eq():\n    data = {'a': 1, 'b': 2}\n    assert data == {'a': 1, 'b': 3}\n\n\n"
                        "def test_helper():\n    check(3)\n\n\n@pytest.fixture\ndef broken():\n"
                        "    raise RuntimeError('fixture exploded')\n\n\ndef test_uses_broken(broken):\n    pass\n\n\n"
                        "class TestK:\n    @pytest.mark.parametrize('n', [1, 2])\n    def test_p(self, n):\n"
                        "        assert n == 1, 'n is not one ' + 'x' * 150\n"),
    "pytest.ini": "[pytest]\npythonpath = tests\n",
}
FAILING = [("tests/test_m.py", "tests/test_m.py::TestK::test_p[2]", "failed"),
           ("tests/test_m.py", "tests/test_m.py::test_eq", "failed"),
           ("tests/test_m.py", "tests/test_m.py::test_helper", "failed"),
           ("tests/test_m.py", "tests/test_m.py::test_uses_broken", "error")]


def pytest_run(root, *args):
    return sh([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], root)


@pytest.fixture(scope="module")
def tests_project(tmp_path_factory):
    root = tmp_path_factory.mktemp("pt")
    write_tree(root, TESTS)
    return root


def test_pytest_every_form_reads_the_same_failing_tests(tests_project):
    root = tests_project
    code, default = pytest_run(root)
    got = read("pytest", default, root)
    assert code == 1 and sorted((d.file, d.code, d.kind) for d in got) == FAILING, default
    for args in (["-q"], ["-v"], ["-rA"], ["--tb=short"], ["--tb=line"], ["--tb=no"], ["-q", "-rN"], ["-v", "-rN"]):
        _, out = pytest_run(root, *args)
        assert sorted((d.file, d.code, d.kind) for d in read("pytest", out, root)) == FAILING, f"{args}:\n{out}"
        assert auto(out) == "pytest", args
    for family in ("xunit1", "xunit2"):
        _, out = pytest_run(root, "-q", "--junitxml=/dev/stdout", "-o", f"junit_family={family}")
        got_junit = read("junit", out[out.index("<?xml"):], root)
        assert sorted((d.code, d.kind) for d in got_junit) == [(i, k) for _, i, k in FAILING], out   # node ids
        assert {d.file for d in got_junit} == {"tests/test_m.py"}


def test_pytest_failure_carries_its_assertion_and_e_lines(tests_project):
    root = tests_project
    for args in ([], ["--tb=short"]):
        _, out = pytest_run(root, *args)
        by_id = {d.code: d for d in read("pytest", out, root)}
        helper = by_id["tests/test_m.py::test_helper"]
        assert (helper.line, helper.message) == (16, "AssertionError: too small: 3"), out
        assert helper.detail.splitlines() == ["tests/test_m.py:16: check(3)",
                                              "tests/helpers.py:2: assert v > 10, f'too small: {v}'",
                                              "E AssertionError: too small: 3"], args
        eq = by_id["tests/test_m.py::test_eq"].detail.splitlines()
        assert eq[0] == "tests/test_m.py:12: assert data == {'a': 1, 'b': 3}" and len(eq) <= 8, eq
        long = by_id["tests/test_m.py::TestK::test_p[2]"]
        assert long.message == "AssertionError: n is not one " + "x" * 150   # the E line, not the cut summary


def test_pytest_log_cut_short_is_never_complete(tests_project):
    _, out = pytest_run(tests_project, "-q")
    cut = out[:out.index("short test summary info")]
    run = judged("pytest", 1, cut, tests_project)
    assert run.status == "could_not_run" and "closing summary" in run.reason
    assert judged("pytest", 1, out, tests_project).status == "findings"


def test_pytest_collection_error_is_a_stopped_run_with_its_errors(tmp_path):
    write_tree(tmp_path, {"test_a.py": "def test_a():\n    assert True\n", "test_b.py": "import no_such_module_rt\n"})
    code, out = pytest_run(tmp_path)
    run = judged("pytest", code, out, tmp_path)
    assert code == 2 and run.status == "partial", out
    assert [(d.code, d.kind) for d in run.diagnostics] == [("test_b.py", "error")]
    assert "no_such_module_rt" in run.diagnostics[0].message
    code, out = pytest_run(tmp_path, "-x", "test_a.py", "test_b.py")
    assert judged("pytest", code, out, tmp_path).status == "partial"


def test_pytest_stop_at_first_failure_is_a_stopped_run(tmp_path):
    write_tree(tmp_path, {"test_a.py": "def test_a():\n    assert False\n\n\ndef test_b():\n    assert False\n"})
    code, out = pytest_run(tmp_path, "-x")
    run = judged("pytest", code, out, tmp_path)
    assert run.status == "partial" and "stopping after 1 failure" in run.reason, out


def test_pytest_unreadable_config_is_a_failure_of_the_tool(tmp_path):
    write_tree(tmp_path, {"pytest.ini": "[pytest]\naddopts = --no-such-option-rt\n", "test_a.py": "def test_a():\n    pass\n"})
    code, out = pytest_run(tmp_path)
    with pytest.raises(ToolFailure):
        parse("pytest", out, "pytest", str(tmp_path))
    assert judged("pytest", code, out, tmp_path).status == "could_not_run"

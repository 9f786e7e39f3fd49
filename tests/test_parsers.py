"""Each parser on real output of its tool (run here on a small project), and on the documented text of
tools the tests do not install (pyright, go, jest). Failures of the tool itself must never read as clean."""
from __future__ import annotations

import pytest

from rt.diagnostics.diff import classify
from rt.diagnostics.model import ToolFailure
from rt.diagnostics.parsers import PARSERS, RECOMMENDED_ARGS, rel_path
from tests.diagnostics_support import check_run, have, write_tree


def test_every_parser_has_recommended_args():
    assert set(RECOMMENDED_ARGS) == set(PARSERS)
    for name, parse in PARSERS.items():
        if name not in ("jest", "vitest", "junit", "sarif"):     # a report that is never empty
            assert parse("", name, None) == [], f"{name}: an empty output is a clean run"


def test_rel_path():
    assert rel_path("/w/repo/src/a.py", "/w/repo") == "src/a.py"
    assert rel_path("./src/a.py", "/w/repo") == "src/a.py"
    assert rel_path("src\\win\\a.py", None) == "src/win/a.py"
    assert rel_path("/elsewhere/a.py", "/w/repo") == "/elsewhere/a.py"
    for spelled in ("./src//a.py", "src/./a.py", "src/x/../a.py", "/w/repo//src/a.py", "/w/repo/src/../src/a.py"):
        assert rel_path(spelled, "/w/repo") == "src/a.py", spelled
    for outside in ("../x//a.py", "src/../../a.py", "/elsewhere//a.py"):   # out of the repository: as printed
        assert rel_path(outside, "/w/repo") == outside


# ---------------------------------------------------------------- real tools

def test_ruff_config_error_is_a_failed_run(tmp_path):
    write_tree(tmp_path, {"ruff.toml": "[lint]\nselect = 3\n", "a.py": "import os\n"})
    run, output = check_run("ruff", tmp_path)
    assert run.status == "could_not_run" and "ruff" in run.reason, output
    assert run.head and run.diagnostics == []


def test_ruff_clean_and_syntax_error(tmp_path):
    write_tree(tmp_path, {"ruff.toml": '[lint]\nselect = ["F"]\n', "a.py": "x = 1\n"})
    assert check_run("ruff", tmp_path)[0].status == "ok"
    write_tree(tmp_path, {"a.py": "def f(:\n    pass\n"})
    run, output = check_run("ruff", tmp_path)
    assert run.status == "findings" and run.diagnostics[0].file == "a.py" and run.diagnostics[0].line == 1, output


def test_mypy_usage_error_is_a_failed_run(tmp_path):
    from rt.core import run
    write_tree(tmp_path, {"a.py": "x = 1\n"})
    proc = run(["mypy", "--no-such-flag-rt", "."], tmp_path)
    output = proc.stdout.decode() + proc.stderr.decode()
    got = classify("mypy", "mypy", proc.returncode, output, str(tmp_path))
    assert got.status == "could_not_run" and "usage" in got.reason, output


def test_mypy_plugin_error_in_the_config_is_a_run_that_did_not_happen(tmp_path):
    write_tree(tmp_path, {"setup.cfg": "[mypy]\nplugins = no_such_plugin_rt\n", "a.py": "x: int = 'a'\n"})
    run, output = check_run("mypy", tmp_path)
    assert run.status == "could_not_run" and run.diagnostics == [], output
    assert run.reason.startswith("mypy configuration error in setup.cfg:") and "no_such_plugin_rt" in run.reason


def test_mypy_type_error_worded_like_a_config_error_is_a_finding(tmp_path):
    write_tree(tmp_path, {"a.py": "x: dict[str, int] = {}\ny = x[1]\n"})
    run, output = check_run("mypy", tmp_path)
    assert run.status == "findings", output
    assert [(d.line, d.code) for d in run.diagnostics] == [(2, "index")], output
    assert run.diagnostics[0].message.startswith("Invalid index type")


def test_mypy_notes_are_left_out(tmp_path):
    write_tree(tmp_path, {"a.py": "x = 1\nreveal_type(x)\ny: int = 'a'\n"})
    run, output = check_run("mypy", tmp_path)
    assert [(d.line, d.code, d.severity) for d in run.diagnostics] == [(3, "assignment", "error")], output


def test_pytest_collection_error_and_ids(tmp_path):
    write_tree(tmp_path, {
        "test_b.py": "import no_such_module_rt\n",
        "test_c.py": ("import pytest\n\n\nclass TestK:\n    @pytest.mark.parametrize('n', [1, 2, 'a - b'])\n"
                      "    def test_p(self, n):\n        assert n == 1, 'n is not one'\n"),
    })
    run, output = check_run("pytest", tmp_path)
    by_id = {d.code: d for d in run.diagnostics}
    assert set(by_id) == {"test_b.py", "test_c.py::TestK::test_p[2]", "test_c.py::TestK::test_p[a - b]"}, output
    assert "no_such_module_rt" in by_id["test_b.py"].message
    failing = by_id["test_c.py::TestK::test_p[2]"]
    assert (failing.file, failing.line) == ("test_c.py", 7)
    assert failing.message == "AssertionError: n is not one"


def test_pytest_failure_in_a_helper_points_at_the_test_line(tmp_path):
    write_tree(tmp_path, {"helpers.py": "def check(v):\n    assert v > 10, f'too small: {v}'\n",
                          "test_h.py": "from helpers import check\n\n\ndef test_uses_helper():\n    check(3)\n"})
    run, output = check_run("pytest", tmp_path)
    assert [(d.file, d.line, d.code, d.message) for d in run.diagnostics] == [
        ("test_h.py", 5, "test_h.py::test_uses_helper", "AssertionError: too small: 3")], output


def test_pytest_no_tests_is_a_failed_run(tmp_path):
    write_tree(tmp_path, {"a.py": "x = 1\n"})
    run, output = check_run("pytest", tmp_path)
    assert run.status == "could_not_run", output


def test_pytest_long_assertion_message_is_not_cut(tmp_path):
    long = "x" * 300
    write_tree(tmp_path, {"test_a.py": f"def test_long():\n    assert False, '{long}'\n"})
    run, _ = check_run("pytest", tmp_path)
    assert run.diagnostics[0].message == f"AssertionError: {long}"


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    root = tmp_path_factory.mktemp("js")
    config = 'export default [{ rules: { "no-unused-vars": "error", "semi": "warn" } }];\n'
    write_tree(root, {"eslint.config.mjs": config,
                      "src/a.js": "const x = 1\n", "src/b.js": "const y = ;\n"})
    return root


def test_eslint_json_and_stylish_agree(js):
    json_run, output = check_run("eslint", js)
    stylish_out = PARSERS["eslint"](_run_plain_eslint(js), "eslint", str(js))
    assert json_run.status == "findings", output
    key = sorted((d.file, d.line, d.code, d.severity) for d in json_run.diagnostics)
    assert key == sorted((d.file, d.line, d.code, d.severity) for d in stylish_out)
    assert ("src/a.js", 1, "no-unused-vars", "error") in key and ("src/a.js", 1, "semi", "warning") in key
    parse_error = [d for d in json_run.diagnostics if d.file == "src/b.js"]
    assert parse_error and parse_error[0].code == "" and "Parsing error" in parse_error[0].message


def _run_plain_eslint(root) -> str:
    from rt.core import run
    proc = run(["eslint", "."], root, env={"NO_COLOR": "1"})
    return proc.stdout.decode() + proc.stderr.decode()


def test_tsc_without_tsconfig_is_a_failed_run(tmp_path):
    write_tree(tmp_path, {"src/a.ts": "const a: number = 1;\n"})
    run, output = check_run("tsc", tmp_path)
    assert run.status == "could_not_run" and "tsc" in run.reason, output


def test_tsc_bad_option_in_tsconfig_is_a_run_that_did_not_happen(tmp_path):
    write_tree(tmp_path, {"tsconfig.json": '{"compilerOptions": {"target": "es1900"}, "include": ["src"]}',
                          "src/a.ts": "const a: number = 1;\n"})
    run, output = check_run("tsc", tmp_path)
    assert run.status == "could_not_run" and "tsconfig.json:1: TS6046" in run.reason, output


@pytest.mark.skipif(not have("cargo"), reason="needs cargo: not installed here (`bash .ci/run` does not install it: Rust's toolchain)")
def test_cargo_short_and_default_forms_agree(tmp_path):
    from rt.core import run
    write_tree(tmp_path, {"Cargo.toml": '[package]\nname = "fx"\nversion = "0.1.0"\nedition = "2021"\n',
                          "src/lib.rs": 'pub fn f() -> i32 {\n    let a = 1;\n    "x"\n}\n'})
    short, output = check_run("cargo", tmp_path)
    proc = run(["cargo", "check", "--offline"], tmp_path, env={"CARGO_TERM_COLOR": "never"})
    default = PARSERS["cargo"](proc.stderr.decode(), "cargo", str(tmp_path))
    assert short.status == "findings", output
    got = sorted((d.file, d.line, d.code, d.severity) for d in short.diagnostics)
    assert got == [("src/lib.rs", 3, "E0308", "error")]     # rustc lints only code that type-checks
    assert got == sorted((d.file, d.line, d.code, d.severity) for d in default)


# ---------------------------------------------------------------- documented formats of absent tools

def test_cargo_test_panic_in_the_older_form():
    out = ("---- tests::adds stdout ----\nthread 'tests::adds' panicked at 'assertion failed: `(left == right)`', "
           "src/lib.rs:9:9\n\nfailures:\n    tests::adds\n\ntest result: FAILED. 0 passed; 1 failed\n")
    got = PARSERS["cargo"](out, "cargo", None)
    assert [(d.file, d.line, d.code, d.message) for d in got] == [
        ("src/lib.rs", 9, "tests::adds", "assertion failed: `(left == right)`")]


PYRIGHT_TEXT = """/w/repo/src/a.py
  /w/repo/src/a.py:3:12 - error: Type "str" is not assignable to return type "int" (reportReturnType)
  /w/repo/src/a.py:5:1 - warning: Import "x" could not be resolved (reportMissingImports)
1 error, 1 warning, 0 informations
"""
PYRIGHT_JSON = """{"version": "1.1.400", "generalDiagnostics": [{"file": "/w/repo/src/a.py", "severity": "error",
 "message": "Type \\"str\\" is not assignable to return type \\"int\\"\\n  extra", "range": {"start": {"line": 2,
 "character": 11}, "end": {"line": 2, "character": 14}}, "rule": "reportReturnType"}],
 "summary": {"errorCount": 1, "warningCount": 0}}"""


def test_pyright_text_and_json():
    text = PARSERS["pyright"](PYRIGHT_TEXT, "pyright", "/w/repo")
    data = PARSERS["pyright"](PYRIGHT_JSON, "pyright", "/w/repo")
    assert [(d.file, d.line, d.column, d.code) for d in text] == [("src/a.py", 3, 12, "reportReturnType"),
                                                                  ("src/a.py", 5, 1, "reportMissingImports")]
    assert [(d.file, d.line, d.column, d.code, d.message) for d in data] == [
        ("src/a.py", 3, 12, "reportReturnType", 'Type "str" is not assignable to return type "int"')]
    assert PARSERS["pyright"]("0 errors, 0 warnings, 0 informations \n", "pyright", None) == []


PYRIGHT_WRAPPED = """/w/repo/a.py
  /w/repo/a.py:7:12 - error: Type "int" is not assignable to return type "str"
  \xa0\xa0"int" is not assignable to "str" (reportReturnType)
  /w/repo/a.py:11:12 - error: "undefined_name" is not defined (reportUndefinedVariable)
2 errors, 0 warnings, 0 informations
"""
"""pyright 1.1.414's text form: a message of several lines has its rule after the last one (indented with two
spaces and two no-break spaces)."""
PYRIGHT_WRAPPED_JSON = """{"version": "1.1.414", "generalDiagnostics": [{"file": "/w/repo/a.py", "severity": "error",
 "message": "Type \\"int\\" is not assignable to return type \\"str\\"\\n  \\"int\\" is not assignable to \\"str\\"",
 "range": {"start": {"line": 6, "character": 11}, "end": {"line": 6, "character": 12}}, "rule": "reportReturnType"},
 {"file": "/w/repo/a.py", "severity": "error", "message": "\\"undefined_name\\" is not defined",
 "range": {"start": {"line": 10, "character": 11}, "end": {"line": 10, "character": 25}},
 "rule": "reportUndefinedVariable"}], "summary": {"errorCount": 2, "warningCount": 0}}"""


def test_pyright_rule_after_a_message_of_several_lines_is_its_code():
    """Read without its rule, a finding in the text form is another one than the same in the JSON form (or a
    log of either form): every old finding of that kind would read as new."""
    text = PARSERS["pyright"](PYRIGHT_WRAPPED, "pyright", "/w/repo")
    data = PARSERS["pyright"](PYRIGHT_WRAPPED_JSON, "pyright", "/w/repo")
    assert [d.key() for d in text] == [d.key() for d in data]
    assert [d.code for d in text] == ["reportReturnType", "reportUndefinedVariable"]


ESLINT_STYLISH = """
/w/repo/src/a.js
  2:7   error  'unused' is assigned a value but never used  no-unused-vars
  3:23  error  'zz' is not defined                          no-undef
  4:23  error  'zz' is not defined                          no-undef

\u2716 3 problems (3 errors, 0 warnings)

"""
TSC_PRETTY = """src/b.ts:3:3 - error TS2322: Type 'number' is not assignable to type 'string'.

3   return a + b;
    ~~~~~~

src/b.ts:6:7 - error TS2322: Type 'string' is not assignable to type 'number'.

6 const t: number = "x";
        ~


Found 2 errors in the same file, starting at: src/b.ts:3

"""
"""eslint 9's stylish and tsc 5.9's `--pretty` output (colour codes taken out), as they print them."""


@pytest.mark.parametrize("parser, log, closing", [("eslint", ESLINT_STYLISH, "\u2716 3 problems"),
                                                   ("tsc", TSC_PRETTY, "Found 2 errors"),
                                                   ("pyright", PYRIGHT_WRAPPED, "2 errors, 0 warnings")])
def test_a_form_that_always_closes_with_its_count_is_cut_short_without_it(parser, log, closing):
    """A CI log cut before the tool's closing count line may have lost the findings after the cut: a new
    one there would read as nothing new. Every cut before that line is no complete run."""
    assert classify(parser, parser, 1, log, "/w/repo").status == "findings"
    cut_at = log.index(closing)
    for end in range(1, cut_at):
        assert classify(parser, parser, 1, log[:end], "/w/repo").status == "could_not_run", log[:end]


def test_pylint_real_and_its_usage_error(tmp_path):
    write_tree(tmp_path, {"a.py": "import os\n\n\ndef f(x):\n    return undefined_z\n"})
    run, output = check_run("pylint", tmp_path)
    got = {(d.line, d.code, d.severity) for d in run.diagnostics}
    assert {(1, "W0611", "warning"), (5, "E0602", "error"), (4, "W0613", "warning")} <= got, output
    usage = "usage: pylint [options]\npylint: error: bad\n"
    assert classify("pylint", "pylint", 32, usage, None).status == "could_not_run"


def test_pylint():
    out = ("************* Module a\na.py:1:0: C0114: Missing module docstring (missing-module-docstring)\n"
           "a.py:3:4: E0602: Undefined variable 'z' (undefined-variable)\n")
    got = PARSERS["pylint"](out, "pylint", None)
    assert [(d.line, d.code, d.severity, d.message) for d in got] == [
        (1, "C0114", "info", "Missing module docstring"), (3, "E0602", "error", "Undefined variable 'z'")]
    with pytest.raises(ToolFailure):
        PARSERS["pylint"]("Traceback (most recent call last):\n  File x\nKeyError: 1\n", "pylint", None)


GO_OUTPUT = """# example.com/m
./a.go:5:2: declared and not used: x
vet: ./b.go:7:13: undefined: y
--- FAIL: TestAdd (0.00s)
    add_test.go:8: expected 3, got 4
--- FAIL: TestPanics (0.00s)
panic: runtime error: index out of range [3] with length 1 [recovered]
FAIL
FAIL\texample.com/m\t0.003s
"""


def test_go():
    got = PARSERS["go"](GO_OUTPUT, "go", None)
    assert [(d.file, d.line, d.code, d.message) for d in got] == [
        ("a.go", 5, "", "declared and not used: x"), ("b.go", 7, "", "undefined: y"),
        ("add_test.go", 8, "example.com/m.TestAdd", "expected 3, got 4"),
        ("", 0, "example.com/m.TestPanics", "panic: runtime error: index out of range [3] with length 1 [recovered]")]
    assert PARSERS["go"]("ok  \texample.com/m\t0.002s\n", "go", None) == []
    # fzf's go.mod asks a newer Go than the one installed: the reason is go's line and the one it ends with ":" for
    old = classify("go-vet", "go", 1, "go: errors parsing go.mod:\n/w/fzf/go.mod:20: invalid go version '1.23.0': must "
                                      "match format 1.23\n", "/w/fzf")
    assert old.reason == ("go could not load the module: go: errors parsing go.mod: go.mod:20: invalid go version "
                          "'1.23.0': must match format 1.23")


@pytest.mark.skipif(not have("go"), reason="needs go: not installed here (`bash .ci/run` installs it)")
def test_go_vet_real(tmp_path):
    from rt.core import run
    write_tree(tmp_path, {"go.mod": "module example.com/m\n\ngo 1.19\n",
                          "a.go": 'package m\n\nimport "fmt"\n\nfunc F() {\n\tfmt.Printf("%d\\n", "s")\n}\n'})
    proc = run(["go", "vet", "./..."], tmp_path)
    got = PARSERS["go"](proc.stdout.decode() + proc.stderr.decode(), "go", str(tmp_path))
    assert [(d.file, d.line) for d in got] == [("a.go", 6)]


def test_jest_json_with_noise_around_it():
    out = ('console.log noise\n{"numFailedTests": 1, "testResults": [{"name": "/w/repo/t/a.test.js",'
           ' "status": "failed", "message": "", "assertionResults": [{"fullName": "math adds", "title": "adds",'
           ' "status": "failed", "failureMessages": ["Error: expect(received).toBe(expected)\\n\\nExpected: 3'
           '\\n    at /w/repo/t/a.test.js:4:19"]},'
           ' {"fullName": "ok", "status": "passed", "failureMessages": []}]},'
           ' {"name": "/w/repo/t/b.test.js", "status": "failed", "message": "SyntaxError: Unexpected token (3:1)",'
           ' "assertionResults": []}]}\nDone in 1.2s\n')
    got = PARSERS["jest"](out, "jest", "/w/repo")
    assert [(d.file, d.line, d.code, d.message) for d in got] == [
        ("t/a.test.js", 4, "t/a.test.js > adds", "Error: expect(received).toBe(expected)"),
        ("t/b.test.js", 0, "t/b.test.js", "SyntaxError: Unexpected token (3:1)")]
    assert PARSERS["jest"]("Error: Cannot find module 'jest'\n", "jest", None) is None


def test_tsc_errors_without_a_file():
    alone = "error TS5023: Unknown compiler option 'nope'.\n"
    with pytest.raises(ToolFailure, match="TS5023"):
        PARSERS["tsc"](alone, "tsc", None)
    mixed = PARSERS["tsc"](alone + "src/a.ts(1,7): error TS2322: Type 'string' is not assignable.\n", "tsc", None)
    assert [(d.file, d.code) for d in mixed] == [("src/a.ts", "TS2322"), ("", "TS5023")]


def test_generic_form():
    out = "src/a.c:3:5: warning: unused variable 'x'\nlib/b.sh:10: missing quote\nsome other line\n"
    got = PARSERS["generic"](out, "cc", None)
    assert [(d.file, d.line, d.column, d.severity, d.message) for d in got] == [
        ("src/a.c", 3, 5, "warning", "unused variable 'x'"), ("lib/b.sh", 10, 0, "error", "missing quote")]
    assert PARSERS["generic"]("make: nothing to be done\n", "cc", None) is None


def test_ansi_colour_is_stripped():
    out = "\x1b[1ma.py\x1b[0m:\x1b[33m1\x1b[0m:8: \x1b[31mF401\x1b[0m `os` imported but unused\n"
    assert [(d.file, d.line, d.code) for d in PARSERS["ruff"](out, "ruff", None)] == [("a.py", 1, "F401")]


def test_ci_line_stamps_are_stripped():
    out = ("2026-01-05T10:22:33.1234567Z ##[group]Run ruff\n"
           "2026-01-05T10:22:34.0000001Z src/a.py:3:1: F821 Undefined name `q`\n")
    assert [(d.file, d.line, d.code) for d in PARSERS["ruff"](out, "ruff", None)] == [("src/a.py", 3, "F821")]


def test_classify_rules():
    assert classify("x", "ruff", None, "", None).status == "could_not_run"
    assert classify("x", "ruff", 127, "sh: ruff: not found", None).reason == \
        "exit 127: program missing or not executable: ruff"   # the shell's line names it
    assert classify("x", "ruff", 127, "", None).reason == "exit 127: program missing or not executable"
    hup = classify("x", "ruff", 129, "a.py:1:1: F401 `os` imported but unused\n", None)   # 128 + SIGHUP
    assert hup.status == "could_not_run"
    assert hup.reason == "exit 129: killed by signal 1 (SIGHUP); what it printed is not the whole run"
    assert classify("x", "ruff", 2, "Segmentation fault\n", None).status == "could_not_run"
    crashed = classify("x", "ruff", 2, "\x1b[31mruff failed\x1b[0m\n  Cause: /w/repo/ruff.toml: bad\n", "/w/repo")
    assert crashed.head == "ruff failed\n  Cause: ruff.toml: bad"     # no colour, no machine-specific path
    assert classify("x", "flake8", 1, "", None).status == "could_not_run"       # non-zero, nothing reported
    assert classify("x", "flake8", 0, "", None).status == "ok"
    ran = classify("x", "flake8", 1, "a.py:1:1: F401 'os' imported but unused\n", None)
    assert ran.status == "findings" and len(ran.diagnostics) == 1
    assert classify("x", "eslint", 0, '[{"filePath": "/r/a.js", "messages": [{"ruleId": "semi", "severity": 1,'
                    ' "message": "Missing semicolon.", "line": 1, "column": 2}]}]', "/r").status == "findings"


ODD_OUTPUTS = ["{", "[", "[1,2]", '[{"messages": "x"}]', '[{"messages": [1]}]', '{"testResults": 5}',
               '{"testResults": [1]}',
               '{"testResults": [{"assertionResults": [{"status": "failed", "failureMessages": [1]}]}]}',
               '{"generalDiagnostics": [1]}', '{"generalDiagnostics": 3}',
               '{"generalDiagnostics": [{"range": {"start": {"line": "x"}}}]}',
               '[{"filePath": 3, "messages": [{"line": "a"}]}]', "FAILED ", "_ x _\nE", "\x00\x01",
               "error[E1]: x\n --> a.rs:1:2", "--- FAIL: T\n", PYRIGHT_TEXT, GO_OUTPUT]


ODD_READ = {
    ("cargo", "error[E1]: x\n --> a.rs:1:2"): ["a.rs:1 E1 x"],
    ("go", "--- FAIL: T\n"): "cut short",
    ("go", GO_OUTPUT): ["a.go:5  declared and not used: x", "b.go:7  undefined: y",
                        "add_test.go:8 example.com/m.TestAdd expected 3, got 4",
                        ":0 example.com/m.TestPanics panic: runtime error: index out of range [3] with length 1 [recovered]"],
    ("generic", GO_OUTPUT): ["a.go:5  declared and not used: x"],
    ("pyright", PYRIGHT_TEXT): ["/w/repo/src/a.py:3 reportReturnType Type \"str\" is not assignable to return type \"int\"",
                                "/w/repo/src/a.py:5 reportMissingImports Import \"x\" could not be resolved"],
}
"""The odd outputs a parser does read: its own format (a snippet of it), or a log cut short (a failure)."""


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_odd_output_never_breaks_a_parser(name):
    """Output of the wrong shape is not understood (None: the check could not run), never read as clean
    (an empty list would be a PASS) and never an exception; only the parser's own format gives findings."""
    for output in ODD_OUTPUTS:
        try:
            got = PARSERS[name](output, name, "/r")
        except ToolFailure as e:
            got = "cut short" if "ends before" in str(e) else f"failure: {e}"
        if isinstance(got, list):
            got = [f"{d.file}:{d.line} {d.code} {d.message}" for d in got]
        assert got == ODD_READ.get((name, output)), (name, output[:40])

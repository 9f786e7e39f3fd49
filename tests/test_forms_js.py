"""tsc, eslint, vitest and jest output in the forms they print, from real runs: each form reads what the
recommended form reads; messages on several lines, rule-less messages, JSON reports among other lines,
TypeScript 7's removed options located in tsconfig.json (a run that did not happen)."""
from __future__ import annotations

import pytest

from rt.diagnostics.model import Truncated
from rt.diagnostics.parsers import parse
from tests.diagnostics_support import write_tree
from tests.forms_support import CI_MODULES, auto, crlf, judged, keys, node_formatter, read, sh

have_node = pytest.mark.skipif(not (CI_MODULES / ".bin" / "eslint").exists(),
                               reason="the node tools are not installed (.ci/run installs them in .ci/node_modules)")
TSCONFIG = ('{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "esnext",'
            ' "moduleResolution": "bundler", "types": []}, "include": ["src"]}\n')
TS = {"tsconfig.json": TSCONFIG,
      "src/a.ts": 'const a: number = "x";\nconst b: string = 2;\nexport function f(x: number): string {\n'
                  '  return x;\n}\nexport { a, b };\n',
      "src/b.ts": "export const c: Array<number> = [1, 'two'];\n"}


@have_node
def test_tsc_default_and_pretty_forms_agree(tmp_path):
    write_tree(tmp_path, TS)
    code, plain = sh(["tsc", "-p", "."], tmp_path)
    want = keys(read("tsc", plain, tmp_path))
    assert code != 0 and len(want) == 4 and auto(plain) == "tsc", plain
    code, pretty = sh(["tsc", "-p", ".", "--pretty"], tmp_path)
    assert "Found 4 errors in 2 files." in pretty and keys(read("tsc", pretty, tmp_path)) == want, pretty
    assert keys(read("tsc", crlf(pretty), tmp_path)) == want and auto(pretty) == "tsc"


@have_node
def test_tsc_removed_option_in_tsconfig_is_a_run_that_did_not_happen(tmp_path):
    """TypeScript 7 reports a removed `baseUrl` at tsconfig.json and then checks nothing."""
    write_tree(tmp_path, TS | {"tsconfig.json": TSCONFIG.replace('"strict": true', '"strict": true, "baseUrl": "."')})
    for args in ([], ["--pretty"]):
        code, out = sh(["tsc", "-p", ".", *args], tmp_path)
        run = judged("tsc", code, out, tmp_path)
        assert run.status == "could_not_run" and "configuration error in tsconfig.json" in run.reason, out
        assert "TS5102" in run.reason and "baseUrl" in run.reason


ESLINT_CONFIG = ('export default [{ linterOptions: { reportUnusedDisableDirectives: "error" }, rules: {'
                 ' "no-unused-vars": "error", "semi": "warn", "no-restricted-syntax": ["error", {'
                 ' selector: "CallExpression[callee.name=\'foo\']", message: "Do not call foo.\\nCall bar." }] } }];\n')
JS = {"eslint.config.mjs": ESLINT_CONFIG,
      "src/a.js": "const x = 1\nfoo();\n// eslint-disable-next-line no-console\nconst z = 2;\n",
      "src/b.js": "const y = ;\n", "src/c.js": "export const ok = 1;\n"}


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    root = tmp_path_factory.mktemp("js")
    write_tree(root, JS)
    return root


@have_node
def test_eslint_every_form_reads_what_the_json_form_reads(js):
    code, out = sh(["eslint", "-f", "json", "."], js)
    want = keys(read("eslint", out, js))
    assert code == 1 and len(want) == 6 and ("src/a.js", 2, "no-restricted-syntax", "") in want, out
    assert ("src/a.js", 3, "", "") in want and ("src/b.js", 1, "", "") in want       # rule-less messages
    forms = [["-f", "stylish"], ["-f", "json-with-metadata"]]
    forms += [["-f", path] for path in (node_formatter("eslint-formatter-unix", "index.js"),
                                        node_formatter("eslint-formatter-compact", "index.js")) if path]
    for args in forms:
        _, text = sh(["eslint", *args, "."], js)
        assert keys(read("eslint", text, js)) == want, f"{args}:\n{text}"
        assert auto(text) == "eslint", args
    _, stylish = sh(["eslint", "."], js)
    restricted = next(d for d in read("eslint", stylish, js) if d.code == "no-restricted-syntax")
    assert restricted.message == "Do not call foo. Call bar", stylish       # a message on two lines
    assert keys(read("eslint", crlf(stylish), js)) == want


@have_node
def test_eslint_json_with_lines_around_it(js):
    """An npm script banner before the report, a Node warning after it: the report is found among them."""
    _, report = sh(["eslint", "-f", "json", "."], js)
    _, warning = sh(["node", "-e", "Buffer(1)"], js)          # a real DeprecationWarning line
    assert "DeprecationWarning" in warning
    banner = "\n> fx@1.0.0 lint\n> eslint -f json .\n\n"
    want = keys(read("eslint", report, js))
    for log in (banner + report + warning, warning + banner + report, report.rstrip("\n") + "\n" + warning):
        assert keys(read("eslint", log, js)) == want, log
    with pytest.raises(Truncated):
        parse("eslint", banner + report[: len(report) // 2], "eslint", str(js))


@have_node
def test_eslint_sarif_and_junit(js):
    _, out = sh(["eslint", "-f", "json", "."], js)
    want = {(f, line, c) for f, line, c, _ in keys(read("eslint", out, js)) if c}
    sarif = node_formatter("@microsoft/eslint-formatter-sarif", "sarif.js")
    junit = node_formatter("eslint-formatter-junit", "index.js")
    if not (sarif and junit):
        pytest.skip("eslint's sarif and junit formatters are not installed (.ci/run installs them)")
    _, text = sh(["eslint", "-f", sarif, "."], js)
    assert auto(text) == "sarif" and {(f, line, c) for f, line, c, _ in keys(read("sarif", text, js)) if c} == want
    _, text = sh(["eslint", "-f", junit, "."], js)
    assert auto(text) == "junit"
    assert {(f, line, c) for f, line, c, _ in keys(read("junit", text, js)) if c} == want, text


VITEST = {
    "src/m.test.js": ('import { test, expect, describe } from "vitest";\ndescribe("math", () => {\n'
                      '  test("adds", () => {\n    expect(1 + 1).toBe(3);\n  });\n  test("ok", () => {\n'
                      '    expect(1).toBe(1);\n  });\n});\ntest("throws", () => {\n  throw new Error("boom");\n});\n'),
    "src/n.test.js": 'import { test } from "vitest";\ntest("loads", () => {});\nconst = ;\n',
    "package.json": '{"name": "fx", "private": true, "type": "module"}\n',
}


@have_node
def test_vitest_json_default_and_junit_reporters_agree(tmp_path):
    write_tree(tmp_path, VITEST)
    code, out = sh(["vitest", "run", "--reporter=json", "--outputFile=/dev/stdout"], tmp_path)
    got = read("vitest", out, tmp_path)
    want = sorted((d.file, d.code, d.kind) for d in got)
    assert code == 1 and want == [("src/m.test.js", "src/m.test.js > math > adds", "failed"),
                                  ("src/m.test.js", "src/m.test.js > throws", "failed"),
                                  ("src/n.test.js", "src/n.test.js", "error")], out
    for args in (["--reporter=default"], ["--reporter=verbose"]):
        code, text = sh(["vitest", "run", *args], tmp_path)
        if "Map.groupBy is not a function" in text:
            pytest.skip("this vitest's default reporter needs a newer Node (Map.groupBy)")
        assert sorted((d.file, d.code, d.kind) for d in read("vitest", text, tmp_path)) == want, text
    code, text = sh(["vitest", "run", "--reporter=junit", "--outputFile=/dev/stdout"], tmp_path)
    assert auto(text) == "junit"
    assert {d.kind for d in read("junit", text, tmp_path)} == {"failed", "error"}


@pytest.mark.skipif(not (CI_MODULES / "jest" / "bin" / "jest.js").is_file(),
                    reason="jest is not installed (.ci/run installs it in .ci/node_modules)")
def test_jest_default_reporter_and_json_agree(tmp_path):
    write_tree(tmp_path, {"package.json": '{"name": "fx", "private": true}\n',
                          "src/a.test.js": ('describe("math", () => {\n  test("adds", () => {\n'
                                            '    expect(1 + 1).toBe(3);\n  });\n});\ntest("throws", () => {\n'
                                            '  throw new Error("boom");\n});\ntest("ok", () => {});\n'),
                          "src/b.test.js": 'test("x", () => {});\nconst = ;\n'})
    jest = str(CI_MODULES / "jest" / "bin" / "jest.js")
    code, out = sh(["node", jest, "--ci", "--json"], tmp_path)
    want = sorted((d.file, d.line, d.code, d.kind) for d in read("jest", out, tmp_path))
    assert code == 1 and [c for _, _, c, _ in want] == ["src/a.test.js > math > adds", "src/a.test.js > throws",
                                                         "src/b.test.js"], out
    code, text = sh(["node", jest, "--ci"], tmp_path)
    assert auto(text) == "jest"
    assert sorted((d.file, d.line, d.code, d.kind) for d in read("jest", text, tmp_path)) == want, text
    cut = text[:text.index("Test Suites:")]
    assert judged("jest", 1, cut, tmp_path).status == "could_not_run"


FIXTURES = __import__("pathlib").Path(__file__).parent / "fixtures"


def test_vitest_default_reporter_as_vitest_3_printed_it():
    """Captured from vitest 3.2 on VITEST above (this machine's vitest 5 needs a newer Node for its
    default reporter): the default reporter and the JSON report of the same run agree."""
    text = (FIXTURES / "vitest3-default.log").read_text()
    report = (FIXTURES / "vitest3-json.log").read_text()
    got = {d.code: d for d in read("vitest", text, "/w/fx")}
    assert auto(text) == "vitest" and auto(report) == "vitest"
    assert sorted((d.file, d.line, d.code, d.kind) for d in got.values() if d.kind == "failed") == sorted(
        (d.file, d.line, d.code, d.kind) for d in read("vitest", report, "/w/fx") if d.kind == "failed")
    assert got["src/n.test.js"].kind == "error" and "Parse failure" in got["src/n.test.js"].message
    adds = got["src/m.test.js > math > adds"]
    assert adds.detail.splitlines()[:2] == ["src/m.test.js:4: expect(1 + 1).toBe(3);",
                                            "AssertionError: expected 2 to be 3 // Object.is equality"]
    assert judged("vitest", 1, text[:text.index(" Test Files")], "/w/fx").status == "could_not_run"

"""go and cargo output in the forms they print, from real runs. A failing go test carries only what was
printed for it: under `-v` (go 1.14+) a test's output comes before its `--- FAIL:` line, and a test that
printed no location is reported without one, never at another test's."""
from __future__ import annotations

import json

import pytest

from rt.diagnostics.parsers import parse
from tests.diagnostics_support import have, write_tree
from tests.forms_support import auto, crlf, judged, read, sh

needs_go = pytest.mark.skipif(not have("go"), reason="needs go: not installed here (`bash .ci/run` installs it)")
needs_cargo = pytest.mark.skipif(not have("cargo"), reason="needs cargo: not installed here (`bash .ci/run` does not install it: Rust's toolchain)")

GO_TESTS = {
    "go.mod": "module example.com/m\n\ngo 1.19\n",
    "a_test.go": ('package m\n\nimport "testing"\n\nfunc TestPass(t *testing.T) {\n\tt.Log("a passing test logs this")\n}\n\n'
                  'func TestAdd(t *testing.T) {\n\tif 1+1 != 3 {\n\t\tt.Errorf("sum is %d", 1+1)\n\t}\n}\n\n'
                  'func TestNoLocation(t *testing.T) {\n\tt.Fail()\n}\n\n'
                  'func TestSub(t *testing.T) {\n\tt.Run("one", func(t *testing.T) { t.Fatal("sub one broke") })\n'
                  '\tt.Run("two", func(t *testing.T) { t.Log("sub two logs") })\n}\n\n'
                  'func TestPar1(t *testing.T) {\n\tt.Parallel()\n\tt.Error("par1 failed")\n}\n\n'
                  'func TestPar2(t *testing.T) {\n\tt.Parallel()\n\tt.Log("par2 logs")\n}\n'),
    "p2/p_test.go": 'package p2\n\nimport "testing"\n\nfunc init() { var m map[string]int; m["a"] = 1 }\n\nfunc TestX(t *testing.T) {}\n',
    "p3/p_test.go": 'package p3\n\nimport "testing"\n\nfunc TestPanics(t *testing.T) {\n\tvar s []int\n\t_ = s[3]\n}\n',
}
GO_WANT = [("example.com/m.TestAdd", "a_test.go", 11, "sum is 2"),
           ("example.com/m.TestNoLocation", "", 0, "test failed (it printed no message)"),
           ("example.com/m.TestPar1", "a_test.go", 26, "par1 failed"),
           ("example.com/m.TestSub/one", "a_test.go", 20, "sub one broke"),
           ("example.com/m/p2", "p2/p_test.go", 5, "panic: assignment to entry in nil map"),
           ("example.com/m/p3.TestPanics", "p3/p_test.go", 7,
            "panic: runtime error: index out of range [3] with length 0 [recovered]")]


@pytest.fixture(scope="module")
def go_tests(tmp_path_factory):
    root = tmp_path_factory.mktemp("go")
    write_tree(root, GO_TESTS)
    return root


@needs_go
def test_go_test_plain_verbose_and_json_attach_each_failure_to_its_own_test(go_tests):
    for args in ([], ["-v"], ["-json"], ["-v", "-p", "1"]):
        code, out = sh(["go", "test", *args, "./..."], go_tests)
        got = sorted((d.code, d.file, d.line, d.message) for d in read("go", out, go_tests))
        assert code == 1 and got == GO_WANT, f"{args}:\n{out}"
        assert auto(out) == "go", args
        assert all(d.kind for d in read("go", crlf(out), go_tests))


@needs_go
def test_go_test_json_events_of_packages_run_in_parallel_interleaved(go_tests):
    """Packages run at once and `-json` writes their events as they come: a real run's events dealt
    out one package at a time, round robin, still give each failure to its own package and test."""
    _, out = sh(["go", "test", "-json", "./..."], go_tests)
    events = [ln for ln in out.splitlines() if ln.startswith("{")]
    by_package: dict[str, list[str]] = {}
    for ln in events:
        by_package.setdefault(json.loads(ln)["Package"], []).append(ln)
    assert len(by_package) == 3
    dealt, queues = [], [list(q) for q in by_package.values()]
    while any(queues):
        dealt += [q.pop(0) for q in queues if q]
    assert dealt != events
    got = sorted((d.code, d.file, d.line, d.message) for d in read("go", "\n".join(dealt) + "\n", go_tests))
    assert got == GO_WANT


@needs_go
def test_go_test_log_cut_before_the_package_result_is_never_complete(go_tests):
    _, out = sh(["go", "test", "-v", "."], go_tests)
    cut = out[:out.index("--- FAIL: TestPar1")]
    assert judged("go", 1, cut, go_tests).status == "could_not_run"
    assert judged("go", 1, out, go_tests).status == "findings"


@needs_go
def test_go_benchmark_failures_with_and_without_v(tmp_path):
    write_tree(tmp_path, {"go.mod": "module example.com/m\n\ngo 1.19\n",
                          "b_test.go": ('package m\n\nimport "testing"\n\nfunc TestOk(t *testing.T) { t.Log("ok") }\n\n'
                                        'func BenchmarkGood(b *testing.B) {\n\tb.Log("good bench logs")\n'
                                        '\tfor i := 0; i < b.N; i++ {\n\t}\n}\n\n'
                                        'func BenchmarkBad(b *testing.B) {\n\tb.Fatal("bench broke")\n}\n')})
    for args in (["-bench", ".", "-benchtime", "10x"], ["-bench", ".", "-benchtime", "10x", "-v"]):
        _, out = sh(["go", "test", *args, "."], tmp_path)
        got = [(d.code, d.file, d.line, d.message) for d in read("go", out, tmp_path)]
        assert got == [("example.com/m.BenchmarkBad", "b_test.go", 14, "bench broke")], f"{args}:\n{out}"


@needs_go
def test_go_build_and_vet(tmp_path):
    write_tree(tmp_path, {"go.mod": "module example.com/m\n\ngo 1.19\n",
                          "a.go": 'package m\n\nimport "fmt"\n\nfunc F() {\n\tx := 1\n\tfmt.Printf("%d\\n", "s")\n}\n'})
    _, out = sh(["go", "build", "./..."], tmp_path)
    assert [(d.file, d.line) for d in read("go", out, tmp_path)] == [("a.go", 6)], out
    write_tree(tmp_path, {"a.go": 'package m\n\nimport "fmt"\n\nfunc F() {\n\tfmt.Printf("%d\\n", "s")\n}\n'})
    _, out = sh(["go", "vet", "./..."], tmp_path)
    assert [(d.file, d.line) for d in read("go", out, tmp_path)] == [("a.go", 6)], out
    write_tree(tmp_path, {"go.mod": "module example.com/m\n\nbogus directive\n"})
    code, out = sh(["go", "build", "./..."], tmp_path)
    assert judged("go", code, out, tmp_path).status == "could_not_run", out


RUST = {"Cargo.toml": '[package]\nname = "fx"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs": ('pub fn f() -> i32 {\n    let unused = 1;\n    2\n}\n\npub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n'
                       '#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(1, 2), 3);\n    }\n\n'
                       '    #[test]\n    fn fine() {}\n}\n')}


@needs_cargo
def test_cargo_short_human_and_json_forms_agree_and_tests_fail_by_name(tmp_path):
    write_tree(tmp_path, RUST)
    _, short = sh(["cargo", "check", "--offline", "--message-format=short"], tmp_path)
    want = sorted((d.file, d.line, d.severity) for d in read("cargo", short, tmp_path))
    assert want == [("src/lib.rs", 2, "warning")], short      # lints name their rule only in the JSON form
    for args in ([], ["--message-format=json"]):
        _, out = sh(["cargo", "check", "--offline", *args], tmp_path)
        assert sorted((d.file, d.line, d.severity) for d in read("cargo", out, tmp_path)) == want, f"{args}:\n{out}"
        assert auto(out) == "cargo"
    code, out = sh(["cargo", "test", "--offline"], tmp_path)
    tests = [(d.code, d.kind, d.file, d.line) for d in read("cargo", out, tmp_path) if d.kind]
    assert code == 101 and tests == [("tests::adds", "failed", "src/lib.rs", 14)], out
    cut = out[:out.index("test result:")]
    assert judged("cargo", 1, cut, tmp_path).status == "could_not_run"
    failed = next(d for d in parse("cargo", out, "cargo", str(tmp_path)) if d.kind)
    assert failed.detail.splitlines()[:2] == ["src/lib.rs:14", "assertion `left == right` failed"], failed.detail


def windows(text: str, root) -> str:
    """A faithful transcription of a log as a Windows runner prints it: its checkout folder `D:\\a\\m\\m`,
    backslashes in relative paths (`.\\a.go`, `src\\lib.rs`), CRLF line ends."""
    text = text.replace(str(root), "D:\\a\\m\\m")
    text = __import__("re").sub(r"(?m)(^|\s|\./)([\w.]+(?:/[\w.]+)*\.(?:go|rs)):(\d+)",
                                lambda m: m[1].replace("./", ".\\") + m[2].replace("/", "\\") + ":" + m[3], text)
    return crlf(text)


@needs_go
@needs_cargo
def test_go_and_cargo_logs_of_a_windows_runner(tmp_path):
    write_tree(tmp_path, {"go.mod": "module example.com/m\n\ngo 1.19\n",
                          "pkg/a.go": "package pkg\n\nfunc F() {\n\tx := 1\n}\n"} | RUST)
    _, out = sh(["go", "vet", "./..."], tmp_path)
    win = windows(out, tmp_path)
    assert "pkg\\a.go:4:2:" in win
    assert [(d.file, d.line) for d in read("go", win, "D:\\a\\m\\m")] == [(d.file, d.line) for d in read("go", out, tmp_path)]
    _, out = sh(["cargo", "check", "--offline", "--message-format=short"], tmp_path)
    win = windows(out, tmp_path)
    assert "src\\lib.rs:2:9:" in win
    assert [(d.file, d.line) for d in read("cargo", win, "D:\\a\\m\\m")] == [("src/lib.rs", 2)]

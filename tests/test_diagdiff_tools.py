"""The new-diagnostics diff measured on real tools: each case runs a linter, type checker or test runner
on a small generated project before and after a change, and the diff must find exactly the new ones.

The last test computes recall of new diagnostics over the whole case table and requires 100%.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pytest

from rt.diagnostics.diff import diff, verdict
from tests.diagnostics_support import check_run, have, write_tree

RUFF_TOML = '[lint]\nselect = ["E", "F"]\n'
ESLINT_CONFIG = 'export default [{ rules: { "no-unused-vars": "error" } }];\n'
TSCONFIG = ('{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "esnext",'
            ' "moduleResolution": "bundler", "types": []}, "include": ["src"]}\n')
CARGO_TOML = '[package]\nname = "fx"\nversion = "0.1.0"\nedition = "2021"\n\n[lib]\npath = "src/lib.rs"\n'


@dataclass
class Case:
    name: str
    tool: str
    before: dict
    after: dict                                   # files to write; None deletes
    new: list[tuple[str, int, str]] = field(default_factory=list)   # (file, current line, code contains)
    verdict: str = "PASS"
    fixed: int | None = None
    renamed: dict | None = None
    after_path: str | None = None                 # PATH for the after run (a program missing)
    needs: str = ""


PY_INSERT_BEFORE = '"""Module."""\n\n\ndef f():\n    return undefined_a\n'
PY_INSERT_AFTER = '"""Module."""\n\nX = 1\n\n\ndef f():\n    return undefined_a\n'
TWINS = "def f():\n    return undefined_name\n\n\ndef g():\n    return undefined_name\n"
E302 = "import os\ndef a():\n    pass\ndef b():\n    pass\ndef c():\n    pass\n"
E302_ONE_FIXED = "import os\ndef a():\n    pass\n\n\ndef b():\n    pass\ndef c():\n    pass\n"
TYPED = 'def f() -> int:\n    return "x"\n\n\nY: int = "y"\n'
TESTS_OK = "def test_one():\n    assert 1 + 1 == 2\n\n\ndef test_two():\n    assert 2 + 1 == 3\n"
TESTS_TWO_FAILS = TESTS_OK.replace("== 3", "== 4")
SLOW_TEST = ('import time\n\n\ndef test_slow(tmp_path):\n    start = time.perf_counter()\n'
             '    (tmp_path / "out.txt").write_text("x")\n'
             '    assert False, f"took {time.perf_counter() - start:.6f}s writing {tmp_path / \'out.txt\'}"\n')
SLOW_TEST_PLUS = SLOW_TEST + '\n\ndef test_new(tmp_path):\n    assert (tmp_path / "missing.txt").exists()\n'
VITEST_SLOW = ('test("slow", async () => {\n  const t = Date.now();\n  await new Promise((r) => setTimeout(r, 3));\n'
               '  expect(`took ${Date.now() - t}ms`).toBe("fast");\n});\n')
VITEST_PLUS = VITEST_SLOW + 'test("adds", () => {\n  expect(1 + 1).toBe(3);\n});\n'
GO_BEFORE = "package m\n\nfunc F() int {\n\tx := 1\n\treturn 2\n}\n"
GO_TEST = ('package m\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif 2+2 != 4 {\n'
           '\t\tt.Errorf("sum is %d, took %v", 2+2, "0.01s")\n\t}\n}\n')
RUST_UNUSED = "pub fn f() -> i32 {\n    let a = 1;\n    2\n}\n"
RUST_TEST = ("pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n"
             "    fn adds() {\n        assert_eq!(super::add(1, 2), 3);\n    }\n}\n")

CASES = [
    Case("ruff: code inserted above an existing error", "ruff",
         {"ruff.toml": RUFF_TOML, "a.py": PY_INSERT_BEFORE}, {"a.py": PY_INSERT_AFTER}, fixed=0),
    Case("ruff: a new error of a kind already in the file", "ruff",
         {"ruff.toml": RUFF_TOML, "a.py": "import os\n\nprint(1)\n"},
         {"a.py": "import os\nimport sys\n\nprint(1)\n"}, new=[("a.py", 2, "F401")], verdict="FAIL"),
    Case("flake8: an identical error added below its twins, code inserted above", "flake8",
         {"a.py": TWINS}, {"a.py": "# header\n" + TWINS + "\n\ndef h():\n    return undefined_name\n"},
         new=[("a.py", 11, "F821")], verdict="FAIL", fixed=0),
    Case("flake8: one of several identical errors fixed", "flake8",
         {"a.py": E302}, {"a.py": E302_ONE_FIXED}, fixed=1),
    Case("pylint: an import inserted above an old error is the one new finding", "pylint",
         {"a.py": '"""Doc."""\n\n\ndef f():\n    """Doc."""\n    return undefined_z\n'},
         {"a.py": '"""Doc."""\nimport os\n\n\ndef f():\n    """Doc."""\n    return undefined_z\n'},
         new=[("a.py", 2, "W0611")], verdict="FAIL", fixed=0),
    Case("mypy: a renamed file keeps its old errors old", "mypy",
         {"a.py": TYPED}, {"a.py": None, "b.py": TYPED}, renamed={"a.py": "b.py"}, fixed=0),
    Case("mypy: a renamed file with a new error", "mypy",
         {"a.py": TYPED}, {"a.py": None, "b.py": TYPED + 'Z: str = 3\n'}, renamed={"a.py": "b.py"},
         new=[("b.py", 6, "assignment")], verdict="FAIL"),
    Case("mypy: a syntax error changes what the tool reports", "mypy",
         {"a.py": TYPED}, {"a.py": TYPED + "\n\ndef broken(:\n    pass\n"},
         new=[("a.py", 8, "syntax"), ("a.py", 8, "syntax")], verdict="FAIL", fixed=2),
    Case("eslint: a new error of a kind already in the file", "eslint",
         {"eslint.config.mjs": ESLINT_CONFIG, "src/a.js": "const x = 1;\n"},
         {"src/a.js": "const x = 1;\nconst y = 2;\n"}, new=[("src/a.js", 2, "no-unused-vars")], verdict="FAIL"),
    Case("eslint: the config file deleted", "eslint",
         {"eslint.config.mjs": ESLINT_CONFIG, "src/a.js": "const x = 1;\n"},
         {"eslint.config.mjs": None}, verdict="INCOMPLETE"),
    Case("eslint: a syntax error hides the old finding and is the new one", "eslint",
         {"eslint.config.mjs": ESLINT_CONFIG, "src/a.js": "const x = 1;\n"},
         {"src/a.js": "const x = 1;\nconst y = ;\n"}, new=[("src/a.js", 2, "")], verdict="FAIL", fixed=1),
    Case("tsc: tsconfig.json deleted", "tsc",
         {"tsconfig.json": TSCONFIG, "src/a.ts": 'const a: number = "x";\nexport { a };\n'},
         {"tsconfig.json": None}, verdict="INCOMPLETE"),
    Case("ruff: the program missing from PATH", "ruff",
         {"ruff.toml": RUFF_TOML, "a.py": "import os\n"}, {"a.py": "import os\nimport sys\n"},
         after_path="/nonexistent-rt-test-dir", verdict="INCOMPLETE"),
    Case("tsc: code inserted above an error and a new one of the same code", "tsc",
         {"tsconfig.json": TSCONFIG, "src/a.ts": 'const a: number = "x";\nexport { a };\n'},
         {"src/a.ts": '// one\n// two\nconst a: number = "x";\nconst b: string = 2;\nexport { a, b };\n'},
         new=[("src/a.ts", 4, "TS2322")], verdict="FAIL", fixed=0),
    Case("pytest: a failing test", "pytest",
         {"test_a.py": TESTS_OK}, {"test_a.py": TESTS_TWO_FAILS},
         new=[("test_a.py", 6, "test_a.py::test_two")], verdict="FAIL"),
    Case("pytest: a failing test starts passing", "pytest",
         {"test_a.py": TESTS_TWO_FAILS}, {"test_a.py": TESTS_OK}, fixed=1),
    Case("pytest: messages with timings and temp paths", "pytest",
         {"test_a.py": SLOW_TEST}, {"test_a.py": SLOW_TEST_PLUS},
         new=[("test_a.py", 11, "test_a.py::test_new")], verdict="FAIL", fixed=0),
    Case("vitest: a failing test beside one whose message has a timing", "vitest",
         {"src/m.test.js": VITEST_SLOW}, {"src/m.test.js": VITEST_PLUS},
         new=[("src/m.test.js", 7, "adds")], verdict="FAIL", fixed=0),
    Case("vitest: a failing test starts passing", "vitest",
         {"src/m.test.js": 'test("adds", () => {\n  expect(1 + 1).toBe(3);\n});\n'},
         {"src/m.test.js": 'test("adds", () => {\n  expect(1 + 1).toBe(2);\n});\n'}, fixed=1),
    Case("go build: code inserted above an old error and a new one", "go",
         {"go.mod": "module example.com/m\n\ngo 1.19\n", "a.go": GO_BEFORE},
         {"a.go": GO_BEFORE.replace("func F", "// F does little.\nfunc F").replace("\treturn", "\ty := 2\n\treturn")},
         new=[("a.go", 6, "")], verdict="FAIL", fixed=0, needs="go"),
    Case("go test: a failing test", "go-test",
         {"go.mod": "module example.com/m\n\ngo 1.19\n", "a_test.go": GO_TEST},
         {"a_test.go": GO_TEST.replace("2+2 != 4", "2+2 != 5")},
         new=[("a_test.go", 7, "TestAdd")], verdict="FAIL", needs="go"),
    Case("cargo check: a new warning of a kind already in the file", "cargo",
         {"Cargo.toml": CARGO_TOML, "src/lib.rs": RUST_UNUSED},
         {"src/lib.rs": RUST_UNUSED.replace("    2\n", "    let b = 3;\n    2\n")},
         new=[("src/lib.rs", 3, "")], verdict="FAIL", fixed=0, needs="cargo"),
    Case("cargo test: a failing test", "cargo-test",
         {"Cargo.toml": CARGO_TOML, "src/lib.rs": RUST_TEST}, {"src/lib.rs": RUST_TEST.replace("), 3)", "), 4)")},
         new=[("src/lib.rs", 9, "tests::adds")], verdict="FAIL", needs="cargo"),
]


@dataclass
class Played:
    case: Case
    runs: list
    new: list
    fixed: int
    verdict: str
    outputs: tuple[str, str]


def play(case: Case, root) -> Played:
    """Run the case's tool before and after its change, and diff the two runs."""
    root.mkdir()
    write_tree(root, case.before)
    before, out_before = check_run(case.tool, root)
    write_tree(root, case.after)
    after, out_after = check_run(case.tool, root, path=case.after_path)
    runs = [before, after]
    both = all(r.status in ("ok", "findings", "partial") for r in runs)
    result = diff(before.diagnostics, after.diagnostics, case.renamed) if both else None
    new = result.new if result else []
    return Played(case, runs, new, result.fixed if result else -1, verdict(runs, len(new)), (out_before, out_after))


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> dict[str, Played]:
    """Every case this machine can run, played once for the module; three at a time, since each tool
    run mostly waits on its own start-up."""
    base = tmp_path_factory.mktemp("diagcases")
    runnable = [c for c in CASES if not c.needs or have(c.needs)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        done = pool.map(lambda ic: play(ic[1], base / f"case{ic[0]}"), enumerate(runnable))
        return {p.case.name: p for p in done}


def _matched(expected: list[tuple[str, int, str]], found) -> int:
    """How many expected new diagnostics are reported, each by a different one of `found`."""
    left, hits = list(found), 0
    for file, line, code in expected:
        hit = next((d for d in left if d.file == file and d.line == line and code in d.code), None)
        if hit is not None:
            left.remove(hit)
            hits += 1
    return hits


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case, played):
    if case.name not in played:
        pytest.skip(f"{case.needs} is not installed on this machine")
    p = played[case.name]
    detail = f"outputs:\n--- before\n{p.outputs[0]}\n--- after\n{p.outputs[1]}\nnew: {p.new}"
    assert p.runs[0].status in ("ok", "findings"), detail
    assert p.verdict == case.verdict, detail
    assert len(p.new) == len(case.new), detail
    assert _matched(case.new, p.new) == len(case.new), detail
    if case.fixed is not None:
        assert p.fixed == case.fixed, detail
    if case.verdict == "INCOMPLETE":
        assert p.runs[1].status == "could_not_run" and p.runs[1].reason and p.runs[1].diagnostics == []


def test_recall_of_new_diagnostics_is_complete(played):
    """Every new diagnostic the case table expects is reported, at its current line, over all cases."""
    expected = found = cases = 0
    for p in played.values():
        case = p.case
        cases += 1
        expected += len(case.new)
        found += _matched(case.new, p.new)
    assert cases >= 19 and expected >= 13
    assert found / expected == 1.0, f"recall {found}/{expected}"

"""Fixture projects for the checks tests: small real repositories the real tools run on."""
from __future__ import annotations

from pathlib import Path

from conftest import needs

ROOT = Path(__file__).resolve().parent.parent
CI_MODULES = ROOT / ".ci" / "node_modules"

CALC = "def add(a: int, b: int) -> int:\n    return a + b\n"
CALC_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"


def python_project(project, *, tools: str = "ruff mypy pytest", old_problem: bool = True) -> None:
    """calc.py with a passing test; `old_problem` leaves one ruff finding (an unused import) from before the task."""
    needs(*(t for t in tools.split() if t != "pytest"))   # pytest runs as `python3 -m pytest`: it is here
    sections = {"ruff": "[tool.ruff.lint]\nselect = [\"F\"]\n", "mypy": "[tool.mypy]\n", "pytest": "[tool.pytest.ini_options]\n"}
    project.write("pyproject.toml", "".join(sections[t] for t in tools.split()))
    project.write("calc.py", CALC)
    project.write("legacy.py", "import os\n" if old_problem else "X = 1\n")
    if "pytest" in tools:
        project.write("tests/test_calc.py", CALC_TEST)
    project.init_git()


def node_project(project) -> None:
    """TypeScript checked by tsc, JavaScript linted by eslint, tests run by vitest, all passing."""
    needs("node", "tsc", "eslint", "vitest")
    (project.root / "node_modules").symlink_to(CI_MODULES, target_is_directory=True)
    project.write(".gitignore", "node_modules\n")
    project.write("package.json", '{"name": "fx", "private": true, "type": "module", "devDependencies": '
                                  '{"typescript": "*", "eslint": "*", "vitest": "*"}}\n')
    project.write("tsconfig.json", '{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", '
                                   '"module": "esnext", "moduleResolution": "bundler", "skipLibCheck": true}, '
                                   '"include": ["src"]}\n')
    project.write("eslint.config.js", 'export default [{ files: ["**/*.js"], rules: { "no-unused-vars": "error" } }];\n')
    project.write("src/add.ts", "export function add(a: number, b: number): number {\n  return a + b;\n}\n")
    project.write("src/add.test.ts", 'import { test, expect } from "vitest";\nimport { add } from "./add";\n\n'
                                     'test("adds", () => {\n  expect(add(1, 2)).toBe(3);\n});\n')
    project.write("src/util.js", "export function twice(x) {\n  return 2 * x;\n}\n")
    project.init_git()


def commit_config(project, toml: str) -> None:
    """An rt.toml committed before the task starts, as a project would keep it."""
    project.write("rt.toml", toml)
    project.git("add", "rt.toml")
    project.git("commit", "-qm", "rt.toml")


def verify_md(project) -> str:
    task = project.rt_json("status")["task"]["id"]
    return project.read(f".rt/tasks/{task}/verify.md")

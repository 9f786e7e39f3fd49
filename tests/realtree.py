"""A real tree of 2,000+ files for the tests that need one: the npm packages the CI installs (eslint,
typescript, vitest and their dependencies), copied and committed, without the Claude Code client."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

NODE_MODULES = Path(__file__).resolve().parent.parent / ".ci" / "node_modules"


def real_tree(dest: Path):
    """The packages copied to `dest` and committed; a `tests.conftest.Project`. Skips when not installed."""
    if not (NODE_MODULES / "eslint").is_dir():
        pytest.skip("the CI's npm packages are not installed (run `bash .ci/run`)")
    from tests.conftest import Project
    shutil.copytree(NODE_MODULES, dest, symlinks=True,
                    ignore=lambda d, names: [n for n in names if n in ("@anthropic-ai", ".bin", ".package-lock.json")])
    project = Project(dest.resolve())
    project.write(".gitignore", ".rt/\n.claude/\n")
    project.init_git()
    return project

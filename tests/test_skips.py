"""The one skip rule (README, "the contract"): without a program the tests drive, those tests are skipped
naming it and `bash .ci/run`, and the run ends with a count per missing program; never a failure."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_run_without_mypy_skips_its_tests_naming_it_and_counts_them(tmp_path):
    bin_dir = tmp_path / "bin"      # PATH holding git alone: no mypy, no ruff
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git"))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           "tests/test_tool_caches.py", "-k", "mypy_sees or ruff_sees"], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "PATH": str(bin_dir)}, check=False)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert "2 skipped" in out and "failed" not in out
    assert "needs mypy: not installed here (`bash .ci/run` installs it)" in out
    assert "needs ruff: not installed here (`bash .ci/run` installs it)" in out
    assert "missing here, so tests were skipped (`bash .ci/run` installs them)" in out
    assert "\nmypy: 1 test(s) skipped\nruff: 1 test(s) skipped\n" in out

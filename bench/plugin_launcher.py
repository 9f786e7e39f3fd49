"""The plugin's hook command before and after `hooks/rt-hook`, paired: a PreToolUse hook (a Bash `git status`,
no task) started as `PYTHONPATH=... python3 -S -P -m rt hook ...` (the old command) and as
`sh hooks/rt-hook ...` with the interpreter kept in the plugin's data folder by a first start. Where `python3`
is a version manager's shim (pyenv), the first pays the shim on every hook; the second only once.

    OUTER_PATH=$PATH python3 bench/plugin_launcher.py [--runs 25]

Run it from a shell whose PATH has the shim first: OUTER_PATH carries that PATH to the hooks (a Python started
through pyenv's shim has the real interpreter's folder put first on its own PATH). The order alternates each
round; figures are medians of CPU (user + system of the hook and its children) and wall milliseconds.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from post_edit_hook import timed  # (CPU ms, wall ms, stdout) of one run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=25)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo, data = Path(tmp, "repo"), Path(tmp, "plugin-data")
        repo.mkdir()
        (repo / "a.py").write_text("x = 1\n")
        for cmd in (["init", "-q"], ["add", "-A"], ["-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "one"]):
            subprocess.run(["git", *cmd], cwd=repo, check=True)
        payload = json.dumps({"session_id": "bench", "cwd": str(repo), "hook_event_name": "PreToolUse",
                              "tool_name": "Bash", "tool_input": {"command": "git status"}})
        env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE")}
        env.update(CLAUDE_PLUGIN_ROOT=str(ROOT), CLAUDE_PLUGIN_DATA=str(data), PATH=os.environ.get("OUTER_PATH", env["PATH"]))
        commands = {"python3": ["sh", "-c", f'PYTHONPATH="{ROOT}" python3 -S -P -m rt hook pre-tool-use'],
                    "rt-hook": ["sh", "-c", f'sh "{ROOT}/hooks/rt-hook" pre-tool-use']}
        timed(commands["rt-hook"], repo, payload, env)   # the first start keeps the interpreter
        kept = (data / "python").read_text().strip()
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
        outputs = set()
        for i in range(a.runs):
            for name in (list(commands) if i % 2 else list(reversed(commands))):
                cpu, wall, out = timed(commands[name], repo, payload, env)
                times[name].append((cpu, wall))
                outputs.add(out)
        load = os.getloadavg()[0]
    which = subprocess.run(["sh", "-c", "command -v python3"], env=env, capture_output=True, text=True,
                           check=False).stdout.strip()
    print(f"python3 on the hooks' PATH: {which}; kept: {kept}; load {load:.1f}; the same output: {len(outputs) == 1}")
    for name, rows in times.items():
        print(f"{name:8} CPU {statistics.median(c for c, _ in rows):6.1f} ms   wall {statistics.median(w for _, w in rows):6.1f} ms")


if __name__ == "__main__":
    main()

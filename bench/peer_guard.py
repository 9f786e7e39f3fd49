"""rt's git guard on a peer guard's own git cases: the commands of destructive_command_guard's test suite
(a Rust PreToolUse hook for the same job) that mention git, each sent as Claude Code sends it (JSON on stdin
to a real `rt hook pre-tool-use`, in a repository with a planned task), compared with the peer's expectation.

Cases come from the peer's corpus (tests/corpus/**/*.toml: `expected`/`expected_decision`) and from its Rust
tests (`assert_blocks*` = deny, `assert_allows*`/`assert_safe_pattern_matches` = allow). Nothing of the peer
is copied into rt; give the path of a checkout:

    git clone https://github.com/Dicklesworthstone/destructive_command_guard /tmp/dcg
    python3 bench/peer_guard.py --peer /tmp/dcg [--show]

A peer "allow" that rt refuses is told apart: `policy` when rt refuses the git command itself (its allow-list
is narrower than the peer's deny-list: a commit, a merge, an unknown option), `read` otherwise (a heredoc,
a comment, a quoted string read as a command: a reading error).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GIT_WORD = re.compile(r"(?<![\w-])git(?![\w-])|\.git\b", re.I)
CALL = re.compile(r"\b(assert_blocks\w*|assert_allows\w*|assert_safe_pattern_matches)\(\s*&?[\w.()]+\s*,\s*"
                  r"\"((?:[^\"\\]|\\.)*)\"", re.S)
RUN = re.compile(r"\b(evaluate_command|run_dcg_hook\w*|run_hook\w*|assert_allows_command|assert_denies_with_rule|"
                 r"check_allow|assert_decision)\(\s*\"((?:[^\"\\]|\\.)*)\"", re.S)
"""The peer's other ways to run one command; its expectation is the first assertion that follows."""
VERDICT = re.compile(r"(!\s*)?\w+\.is_(denied|allowed)\(\)|permissionDecision\"\]\s*,\s*\"(deny|allow)\"|"
                     r"\b(assert_denies\w*|assert_allows\w*|assert_denied|assert_allowed)\b")
RUST_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "0": "\0", "r": "\r"}


def rust_string(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: RUST_ESCAPES.get(m.group(1), m.group(0)), body)


def _verdict(after: str) -> str | None:
    """deny or allow: what the first assertion after a run expects (None when the run is not followed by one)."""
    nxt = RUN.search(after)
    m = VERDICT.search(after[:nxt.start()] if nxt else after)
    if m is None:
        return None
    if m.group(2):
        denied = m.group(2) == "denied"
        return "deny" if denied != bool(m.group(1)) else "allow"
    if m.group(3):
        return m.group(3)
    return "deny" if "denie" in m.group(4) else "allow"


def cases(peer: Path) -> dict[str, str]:
    """command -> "deny" or "allow", the peer's expectation; commands it expects both ways are dropped."""
    found: dict[str, set[str]] = {}
    for path in sorted((peer / "tests" / "corpus").rglob("*.toml")):
        for case in tomllib.loads(path.read_text()).get("case", []):
            expected = case.get("expected") or case.get("expected_decision")
            command = case.get("command")
            if isinstance(command, str) and expected in ("deny", "allow"):
                found.setdefault(command, set()).add(expected)
    for path in sorted([*(peer / "src").rglob("*.rs"), *(peer / "tests").rglob("*.rs")]):
        text = path.read_text(errors="replace")
        for name, body in CALL.findall(text):
            found.setdefault(rust_string(body), set()).add("deny" if name.startswith("assert_blocks") else "allow")
        for m in RUN.finditer(text):
            verdict = _verdict(text[m.end():m.end() + 700])
            if verdict:
                found.setdefault(rust_string(m.group(2)), set()).add(verdict)
    return {c: e.pop() for c, e in sorted(found.items()) if len(e) == 1 and GIT_WORD.search(c)}


def hook(repo: Path, command: str) -> tuple[str | None, str]:
    data = json.dumps({"session_id": "peer", "transcript_path": "/tmp/t.jsonl", "cwd": str(repo),
                       "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command},
                       "tool_use_id": "toolu_peer"})
    proc = subprocess.run([sys.executable, "-S", "-m", "rt", "hook", "pre-tool-use"], cwd=repo, input=data,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT),
                                                              "CLAUDE_PROJECT_DIR": str(repo)})
    if proc.returncode != 0:
        return "error", proc.stderr.strip()
    if not proc.stdout.strip():
        return None, ""
    spec = json.loads(proc.stdout)["hookSpecificOutput"]
    return spec["permissionDecision"], spec["permissionDecisionReason"]


def policy(reason: str) -> bool:
    """A refusal of the git command itself (not of how the command was read)."""
    return reason.startswith(("rt blocks `git", "rt: `git", "rt does not know", "rt: setting GIT"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", type=Path, required=True, help="a checkout of destructive_command_guard")
    ap.add_argument("--show", action="store_true", help="list every disagreement")
    args = ap.parse_args()
    table = cases(args.peer)
    head = subprocess.run(["git", "-C", str(args.peer), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        (repo / "a.py").write_text("x = 1\n")
        env = {**os.environ, "PYTHONPATH": str(ROOT), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
        for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "init"],
                     [sys.executable, "-m", "rt", "start", "peer cases", "--no-baseline"],
                     [sys.executable, "-m", "rt", "plan", "--edit", "a.py"]):
            subprocess.run(argv, cwd=repo, env=env, check=True, capture_output=True)
        rows = {"deny": {"refused": [], "let through": []}, "allow": {"let through": [], "policy": [], "read": []}}
        for command, expected in table.items():
            decision, reason = hook(repo, command)
            refused = decision in ("deny", "ask", "error")
            if expected == "deny":
                rows["deny"]["refused" if refused else "let through"].append((command, reason))
            elif not refused:
                rows["allow"]["let through"].append((command, reason))
            else:
                rows["allow"]["policy" if policy(reason) else "read"].append((command, reason))
    deny, allow = rows["deny"], rows["allow"]
    print(f"peer destructive_command_guard @ {head}: {len(table)} git cases "
          f"({sum(map(len, deny.values()))} to block, {sum(map(len, allow.values()))} harmless)")
    print(f"to block: rt refused {len(deny['refused'])}, let through {len(deny['let through'])}")
    print(f"harmless: rt let through {len(allow['let through'])}, refused by policy {len(allow['policy'])}, "
          f"refused as a reading error {len(allow['read'])}")
    for title, items in (("let through, the peer blocks", deny["let through"]),
                         ("refused as a reading error, the peer allows", allow["read"]),
                         *((("refused by policy, the peer allows", allow["policy"]),) if args.show else ())):
        if items:
            print(f"\n{title}:")
            for command, reason in items:
                shown = command if len(command) <= 160 else command[:157] + "..."
                print(f"  {shown!r}\n      {reason[:160]}")


if __name__ == "__main__":
    main()

"""Each bypass attempt the guard refuses would really have done harm: run with bash and a real git in a
throwaway copy of a repository with a bare remote (tests/guard_harm.py), it publishes, rewrites history,
loses uncommitted work, damages .git/ or .rt/, or runs a program named in the command."""
from __future__ import annotations

import shutil

import pytest
from guard_cases import BYPASSES, NESTED
from guard_harm import HarmRepo

PROVEN = [(cls, cmd, harm) for cls, cases in BYPASSES.items() for cmd, harm in cases if harm]
NEEDS = {"tmux": "tmux", "script": "script", "flock": "flock", "strace": "strace", "setpriv": "setpriv",
         "prlimit": "prlimit", "rbash": "rbash", "dash": "dash", "node": "node", "perl": "perl"}


@pytest.fixture(scope="module")
def harm_repo(tmp_path_factory) -> HarmRepo:
    return HarmRepo(tmp_path_factory.mktemp("harm"))


def test_the_fixture_itself_is_harmless(harm_repo):
    assert harm_repo.run("git status && git log --oneline -3 && git diff --stat") == set()
    assert harm_repo.run("git push --dry-run && git fetch origin && git stash list") == set()


@pytest.mark.parametrize("cls,command,harm", PROVEN, ids=[f"{c}:{i}" for i, (c, _, _) in enumerate(PROVEN)])
def test_refused_command_would_have_done_harm(harm_repo, cls, command, harm):
    program = command.split()[0]
    if program in NEEDS and shutil.which(NEEDS[program]) is None:
        pytest.skip(f"{NEEDS[program]} is not installed")
    assert harm in harm_repo.run(command, nested=cls == NESTED), command


def test_most_attempts_are_proven(harm_repo):
    total = sum(len(cases) for cases in BYPASSES.values())
    assert len(PROVEN) >= 0.9 * total

"""The Bash guard's reading of commands: the table of bypass attempts (tests/guard_cases.py) refused, the
harmless commands let through, git's options resolved as git resolves them, and the one-commit question
a caller can ask. The same table runs through the real hook in test_hooks_bash.py and against a real git
in test_gitguard_harm.py."""
from __future__ import annotations

import subprocess

import pytest
from guard_cases import BYPASSES, HARMLESS, NESTED
from guard_harm import write_files

from rt.claude import gitrules
from rt.claude.gitguard import check, sole_operation

ROOT = "/home/dev/repo"
CASES = [(cls, cmd) for cls, cases in BYPASSES.items() for cmd, _ in cases]


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> str:
    """A folder holding the table's files (the guard reads the shell scripts a command runs)."""
    root = tmp_path_factory.mktemp("tree") / "repo"
    write_files(root)
    (root / "vendored").mkdir()
    return str(root)


@pytest.mark.parametrize("cls,command", CASES, ids=[f"{c}:{i}" for i, (c, _) in enumerate(CASES)])
def test_bypass_is_refused(tree, cls, command):
    verdict = check(command, f"{tree}/vendored" if cls == NESTED else tree, tree)
    assert verdict is not None and verdict.decision in ("deny", "ask"), command
    assert verdict.reason.startswith("rt"), verdict.reason


@pytest.mark.parametrize("command", HARMLESS)
def test_harmless_command_passes(tree, command):
    assert check(command, tree, tree) is None


def test_every_class_has_ten_new_attempts():
    assert all(len(cases) >= 10 for cases in BYPASSES.values())


def test_reason_names_the_operation_and_the_way_out():
    v = check("cd x && git -C y push --force origin main")
    assert "git push --force origin main" in v.reason and "user" in v.reason
    v = check("git reset --har")
    assert v.decision == "deny" and "`git reset --har` (git reads it as `--hard`)" in v.reason
    v = check("git reset HEAD~2")
    assert "git reset -- <paths>" in v.reason
    v = check("git clean -fd")
    assert "git clean -n" in v.reason
    v = check("$G status")
    assert "name the program plainly" in v.reason


def test_unknown_subcommand_is_put_to_the_user_with_its_alias():
    aliases = {"st": "status", "ship": "push --force", "wip": "!git add -A && git commit -m wip"}
    v = check("git st -s", alias_of=aliases.get)
    assert v.decision == "ask" and "`status`" in v.reason and "git status" in v.reason
    v = check("git ship", alias_of=aliases.get)
    assert v.decision == "deny" and "push --force" in v.reason
    v = check("git wip", alias_of=aliases.get)
    assert v.decision == "deny" and "shell command" in v.reason
    assert check("git frobnicate").decision == "ask"
    looked = []
    check("git -C ../other st", alias_of=lambda name: looked.append(name))
    assert looked == []  # another repository's aliases apply there: not looked up here


def test_git_builtins_never_looked_up_as_alias():
    looked = []
    check("git status && git diff && git send-pack x", alias_of=lambda name: looked.append(name))
    assert looked == []


def test_deep_nesting_is_refused():
    cmd = "git status"
    for _ in range(12):
        cmd = f"bash -c {cmd!r}"
    assert check(cmd).decision == "deny"


def test_scope_add_asks_and_plan_is_flagged():
    v = check("rt scope add src/new.py")
    assert v.decision == "ask" and "src/new.py" in v.reason
    assert check("python3 -m rt scope add x.py").decision == "ask"
    assert check("rt plan --edit a.py").decision == "plan"
    assert check("rt scope add x.py && git push").decision == "deny"
    assert check('rt start "other" --force').decision == "ask"
    assert check('rt start "other"') is None


def test_overlong_command_is_refused_only_when_git_is_in_it():
    filler = "x" * 250_000
    assert check(f"echo {filler}") is None
    v = check(f"echo {filler} && git push")
    assert v.decision == "deny" and "too long" in v.reason


def test_unreadable_command_is_refused_only_when_git_is_in_it():
    assert check("echo 'unbalanced") is None
    for cmd in ('git commit -m "unbalanced', "echo 'oops; git push", "echo $(git push", "git status | (git push"):
        assert check(cmd).decision == "deny", cmd


def test_quoting_decides_what_runs():
    assert check('echo "<(git push)"') is None  # process substitution is plain text in double quotes
    assert check("echo '$(git push)'") is None
    assert check('echo "it\'s $(git push)"').decision == "deny"
    assert check("cat <<'EOF'\n$(git push)\nEOF") is None  # a quoted heredoc expands nothing


def test_repository_or_a_folder_above_it_cannot_be_removed():
    assert check("rm -rf /home/dev/repo", ROOT, ROOT).decision == "deny"
    assert check("rm -rf /home/dev", ROOT, ROOT).decision == "deny"
    assert check("rm -rf /home/*", ROOT, ROOT).decision == "deny"
    assert check("cd .. && rm -rf repo", ROOT, ROOT).decision == "deny"
    assert check("rm -rf ../other", ROOT, ROOT) is None
    assert check("rm -rf build", ROOT, ROOT) is None


# ---------------------------------------------------------------- options as git reads them

@pytest.mark.parametrize("sub,typed,meant", [
    ("reset", "har", "hard"), ("reset", "ha", "hard"), ("branch", "del", "delete"), ("rm", "forc", "force"),
    ("clean", "dry", "dry-run"), ("clean", "d", "dry-run"), ("push", "dry", "dry-run"),
    ("grep", "open-files-in-pa", "open-files-in-pager"), ("switch", "discard", "discard-changes"),
    ("restore", "sour", "source"), ("stash push", "al", "all"),
])
def test_abbreviations_resolve_as_in_git(sub, typed, meant):
    spec = gitrules.STASH["push"] if sub == "stash push" else gitrules.COMMANDS[sub][0]
    assert gitrules._long(sub, spec, typed)[0] == meant


def test_ambiguous_abbreviation_is_refused():
    assert "ambiguous" in check("git push --forc origin main").reason


def test_revision_and_diff_options_are_exact_as_in_git():
    assert check("git log --oneline") is None
    v = check("git log --onel")
    assert v.decision == "deny" and "does not know" in v.reason
    proc = subprocess.run(["git", "log", "--onel"], capture_output=True, text=True)
    assert proc.returncode != 0  # git itself does not abbreviate them


def _completion(sub: str) -> list[str]:
    proc = subprocess.run(["git", *sub.split(), "--git-completion-helper-all"], capture_output=True, text=True)
    return [w.rstrip("=") for w in proc.stdout.split() if w.startswith("--") and w != "--"]


@pytest.mark.parametrize("sub", [s for s, (spec, _) in gitrules.COMMANDS.items() if spec.abbrev]
                         + [f"stash {verb}" for verb in gitrules.STASH if gitrules.STASH[verb].abbrev])
def test_no_option_of_the_installed_git_is_read_as_another(sub):
    """Every long option the installed git knows is read by rt as itself, or refused as unknown: an
    abbreviation rt resolves is never one git would resolve differently."""
    spec = gitrules.STASH[sub.split()[1]] if sub.startswith("stash ") else gitrules.COMMANDS[sub][0]
    for option in _completion(sub):
        name = option[2:]
        try:
            canon, negated = gitrules._long(sub, spec, name)
        except gitrules.Refused:
            continue
        spelled = {f for f, target in spec.forms.items() if target == (canon, negated)}
        if spec.family:
            spelled |= {f for f, target in gitrules.FAMILY.forms.items() if target == (canon, negated)}
        assert name in spelled, f"git {sub} --{name} read as --{'no-' if negated else ''}{canon}"


# ---------------------------------------------------------------- the one commit or push a user allows

@pytest.mark.parametrize("command,op", [
    ("git commit -m 'fix the parser'", "commit"),
    ("git add -A && git commit -m x", "commit"),
    ("git commit -am x -q", "commit"),
    ("git push", "push"),
    ("git push origin main", "push"),
    ("git push -u origin HEAD:topic", "push"),
    ("git status && git push origin main", "push"),
    ("bash -c 'git commit -m x'", "commit"),
    ("cd src && git commit -m x", "commit"),
    ("cd /home/dev/repo/src && git push", "push"),
    ("timeout 60 git push", "push"),
])
def test_sole_operation_names_one_plain_commit_or_push(command, op):
    assert sole_operation(command, ROOT, ROOT) == op


@pytest.mark.parametrize("command", [
    "git commit -m x && git push", "git commit -m a; git commit -m b", "git commit --amend -m x",
    "git commit --no-verify -m x", "git push --force", "git push origin +main", "git push origin :main",
    "git push --delete origin x", "git push --mirror", "git push --all", "git push origin $BRANCH",
    "git commit -m x && git reset --hard HEAD~1", "git commit -m x && rm -rf .rt",
    "for i in 1 2; do git commit -m $i; done", "while true; do git push; done", "f() { git push; }; f",
    "echo x | xargs git commit -m", "find . -exec git commit -m x \\;", "watch git push", "git status",
    "git commit -m x | git push", "git -c core.hooksPath=/tmp git commit -m x", "GIT_DIR=/other/.git git commit -m x",
    "git -C vendored commit -m x", "git --work-tree=/tmp commit -am x", "git commit --fixup HEAD --no-verify",
    # another repository, another user or another root: not the commit of this task the user allowed
    "cd /home/dev/other && git commit -m x", "(cd .. && git push)", "pushd /srv/x; git commit -m x",
    "cd $HOME && git commit -m x", "env -C /srv/x git commit -m x", "env --chdir=/srv/x git push",
    "sudo git commit -m x", "sudo -u root git push", "doas git commit -m x", "chroot /srv/jail git commit -m x",
])
def test_sole_operation_refuses_anything_more(command):
    assert sole_operation(command, ROOT, ROOT) is None

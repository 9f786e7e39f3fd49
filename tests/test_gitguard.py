"""The Bash guard's reading of commands: a corpus of bypass attempts that must be denied, and harmless
commands that must pass. The same corpus runs through the real hook process in test_hooks_bash.py."""
from __future__ import annotations

import pytest

from rt.claude.gitguard import check

BLOCKED = [
    "git commit -m wip",
    "git commit --amend --no-edit",
    "git push",
    "git push --force origin main",
    "git push -f",
    "git push --force-with-lease",
    "git reset --hard",
    "git reset --hard HEAD~3",
    "git reset --merge",
    "git reset --soft HEAD~1",
    "git reset HEAD~2",
    "git checkout -- src/app.py",
    "git checkout HEAD~1 -- src/app.py",
    "git checkout .",
    "git checkout main",
    "git checkout -f",
    "git checkout -B main origin/main",
    "git restore src/app.py",
    "git restore --staged --worktree src/app.py",
    "git restore -SW src/app.py",
    "git clean -f",
    "git clean -fdx",
    "git clean -d --force",
    "git rebase main",
    "git rebase -i HEAD~3",
    "git branch -D feature",
    "git branch -d feature",
    "git branch --delete feature",
    "git branch -M old new",
    "git stash drop",
    "git stash clear",
    "git merge feature",
    "git cherry-pick abc123",
    "git revert HEAD",
    "git pull",
    "git am < patch.mbox",
    "git tag -d v1",
    "git rm -f src/app.py",
    "git update-ref refs/heads/main HEAD~1",
    "git filter-branch --tree-filter true",
    "git filter-repo --path src",
    "git reflog expire --expire=now --all",
    "git gc --prune=now",
    "git switch main",
    "git switch -C main",
    "git worktree remove --force ../wt",
    # global options before the subcommand
    "git -C /tmp/other push",
    "git -C .. commit -m x",
    "git -c user.name=x commit -m y",
    "git --git-dir=.git --work-tree=. push",
    "git --git-dir .git push",
    "git --no-pager -P commit -m x",
    "git --namespace foo push",
    # environment and wrappers
    "env GIT_DIR=.git git push",
    "GIT_TRACE=1 git push",
    "env -i PATH=/usr/bin git push",
    "command git push",
    "exec git push",
    "nohup git push &",
    "time git push",
    "sudo git push",
    "sudo -u dev git push",
    "nice -n 5 git commit -m x",
    "timeout 10 git push",
    "/usr/bin/git push",
    "/usr/local/bin/git reset --hard",
    "\\git push",
    "'git' push",
    'g"i"t push',
    "git.exe push",
    "git-push origin",
    "/usr/lib/git-core/git-commit -m x",
    # chains
    "git status && git push",
    "git status; git commit -m x",
    "git status || git push",
    "git log | git push",
    "git status & git push",
    "true |& git push",
    "git status\ngit push",
    "git status\r\ngit push",
    "git status \\\n && git push",
    "git pu\\\nsh",
    "echo a#b; git push",
    "echo hi # && git push",  # a real comment in bash; rt never lets `#` hide text, so this is refused too
    # subshells and substitutions
    "(git push)",
    "(cd sub && git push)",
    "{ git push; }",
    "echo $(git push)",
    'echo "$(git push)"',
    "echo `git push`",
    'echo "`git commit -m x`"',
    "x=$(git reset --hard)",
    "echo $(echo $(git push))",
    "cat <(git push)",
    "if true; then git push; fi",
    "for b in a b; do git branch -D $b; done",
    "while true; do git push; done",
    "! git push",
    "f() { git push; }; f",
    # shells and evaluators
    'bash -c "git push"',
    "bash -c 'git push'",
    'sh -c "git commit -m x"',
    'bash -lc "cd x && git push"',
    'zsh -c "git push"',
    '/bin/sh -c "git reset --hard"',
    'bash -c "bash -c \\"git push\\""',
    "su dev -c 'git push'",
    'eval "git push"',
    "eval git push",
    "watch git push",
    "env -S 'git push'",
    "bash <<EOF\ngit push\nEOF",
    "xargs git push < remotes",
    "echo origin | xargs git push",
    "xargs -I{} git branch -D {}",
    "find . -name '*.py' -exec git checkout -- {} \\;",
    "git submodule foreach 'git push'",
    "git submodule foreach git reset --hard",
    "parallel git push ::: a b",
    # aliases defined on the command line or in the same command
    "git -c alias.p=push p",
    "git -c alias.p='!git push' p",
    "git -c alias.x='!sh -c \"git push\"' x",
    "git config alias.p push && git p origin",
    "git config --global alias.wipe 'reset --hard' ; git wipe",
    # dynamic program names, when git is in sight
    "G=git; $G push",
    "$GIT push",
    "${GIT:-git} push",
    "$(which git) push",
    "`which git` push",
    "$'\\x67it' push",
    "/usr/bin/gi? push",
    "/usr/bin/g[i]t push",
    "env $G push",
    "git ${X}push",
    "git $CMD origin",
    # configuration that runs a program
    "git -c core.pager='git push' log",
    "git -c core.sshCommand='sh -c \"git push\"' fetch",
    # cannot be parsed and mentions git: fail closed
    'git commit -m "unbalanced',
    "echo 'oops; git push",
    "echo $(git push",
    # rt's own store
    "rm -rf .rt",
    "sed -i s/a/b/ .rt/tasks/1-x/task.json",
    "cat ./.rt/state.json",
    "echo '{}' > .rt/state.json",
    # help flags only count first
    "git commit -m -h",
    "git commit -m --help",
]

ALLOWED = [
    "git status",
    "git status --short",
    "git diff",
    "git diff HEAD~1 -- src/app.py",
    "git log --oneline -20",
    "git log -p --grep push",
    "git show HEAD:src/app.py",
    "git blame src/app.py",
    "git checkout -b new",
    "git checkout -b feature origin/main",
    "git checkout",
    "git switch -c topic",
    "git stash",
    "git stash list",
    "git stash show -p",
    "git stash push -m wip",
    "git branch -a",
    "git branch -vv",
    "git branch --show-current",
    "git branch new-branch",
    "git tag -l",
    "git remote -v",
    "git fetch origin",
    "git ls-files",
    "git rev-parse --show-toplevel",
    "git grep -n reset",
    "git restore --staged src/app.py",
    "git reset",
    "git reset HEAD",
    "git reset -- src/app.py",
    "git reset HEAD src/app.py",
    "git clean -n",
    "git clean -nd",
    "git push --dry-run",
    "git push --help",
    "git help commit",
    "git commit -h",
    "git config --get user.name",
    "git reflog",
    "git -C sub status",
    "git -c color.ui=never log",
    "git -c user.name='Push Commit' log",
    "git log --format=$FMT",
    "git --no-pager diff",
    "git worktree list",
    'echo "git push"',
    "echo 'git commit -m x && git push'",
    "echo 'rm -rf .rt'",
    "grep -rn 'git reset --hard' docs/",
    'rt step "ran git commit earlier"',
    'bash -c "echo \'git push\'"',
    "bash script.sh",
    "ls -la",
    "python3 -m pytest -q",
    "npm test && echo done",
    "$EDITOR notes.txt",
    "echo $HOME",
    "cat .gitignore",
    "ls .rtfiles",
    "grep -r foo --exclude-dir=.rt .",
    "echo 'unbalanced",
    "git lfs ls-files",
    "rt status",
    "rt scope remove a.py",
    "echo $((1 + 2))",
    "git log --format='%H %s' | head -5",
    "echo `date`",
]


@pytest.mark.parametrize("command", BLOCKED)
def test_blocked(command):
    verdict = check(command)
    assert verdict is not None and verdict.decision == "deny", command
    assert verdict.reason


@pytest.mark.parametrize("command", ALLOWED)
def test_allowed(command):
    assert check(command) is None, command


def test_configured_alias_is_looked_up():
    aliases = {"p": "push", "yolo": "!git commit -am wip && git push", "st": "status"}
    assert check("git p origin", aliases.get).decision == "deny"
    assert check("git yolo", aliases.get).decision == "deny"
    assert check("git st", aliases.get) is None


def test_builtin_never_looked_up_as_alias():
    looked = []
    check("git status && git diff", lambda name: looked.append(name))
    assert looked == []


def test_alias_loop_is_refused_not_followed_forever():
    aliases = {"a": "b", "b": "a"}
    assert check("git a", aliases.get).decision == "deny"


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


def test_reason_names_the_operation():
    v = check("cd x && git -C y push --force origin main")
    assert "git push --force origin main" in v.reason
    assert "user" in v.reason


def test_overlong_command_is_refused_only_when_git_is_in_it():
    filler = "x" * 250_000
    assert check(f"echo {filler}") is None
    v = check(f"echo {filler} && git push")
    assert v.decision == "deny" and "too long" in v.reason


def test_substitution_inside_double_quotes_but_not_single():
    assert check('echo "<(git push)"') is None  # process substitution is plain text in double quotes
    assert check("echo '$(git push)'") is None
    assert check('echo "it\'s $(git push)"').decision == "deny"

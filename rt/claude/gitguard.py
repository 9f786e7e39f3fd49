"""What a Bash command would do to git and to rt's scope, read before it runs (the PreToolUse Bash guard).

The guard is a tripwire for an agent's habits and the usual wrappers, not a sandbox: it finds every
`git` word in every simple command (after `&&`, `;`, `|`, newlines, subshells, `$( )`, backticks,
`bash -c`, `eval`, `xargs`, `env`, `command`, full paths) and judges the git arguments that follow it.
A program named through a variable, or a command that cannot be parsed, is refused when git is in
sight (fail closed). Text handed to another interpreter (`python -c`, `base64 -d | sh`) is not read.
"""
from __future__ import annotations

import fnmatch
import re
import shlex
from collections import namedtuple
from collections.abc import Callable

MAX_DEPTH = 8
"""Nested shells, substitutions and aliases deeper than this are refused rather than followed."""

SUBST = "$__rt_subst__"
"""Stands in the outer command for a `$( )` or backtick whose inside is judged on its own."""

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox", "su"})
"""Programs whose string arguments are shell scripts (`bash -c "..."`, `su -c "..."`)."""

WRAPPERS = frozenset({"env", "command", "builtin", "exec", "nohup", "time", "nice", "sudo", "doas", "xargs",
                      "timeout", "stdbuf", "ionice", "chronic", "then", "do", "else", "if", "while", "until", "!"})
"""Programs and keywords after which the next word is again a program name."""

JOINERS = frozenset({"eval", "watch", "parallel"})
"""Programs that join their arguments into one shell command."""

SEPARATORS = frozenset(";&|()\n")

_SPECIAL = re.compile(r"""[\\'"`]|[$<>]\(""")
"""Where `_substitutions` has something to decide: escapes, quotes, backticks and `$(`, `<(`, `>(`."""

MAX_CHARS = 200_000
"""A longer command is not read (it could outlast the hook's timeout, which lets the tool run)."""

GIT_OPTIONS_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                                    "--super-prefix", "--attr-source"})

BUILTINS = frozenset({
    "add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle", "cat-file",
    "check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout-index", "cherry",
    "cherry-pick", "citool", "clean", "clone", "commit", "commit-graph", "commit-tree", "config",
    "count-objects", "credential", "describe", "diff", "diff-files", "diff-index", "diff-tree", "difftool",
    "fast-export", "fast-import", "fetch", "fetch-pack", "filter-branch", "fmt-merge-msg", "for-each-ref",
    "for-each-repo", "format-patch", "fsck", "gc", "get-tar-commit-id", "grep", "gui", "hash-object", "help",
    "index-pack", "init", "instaweb", "interpret-trailers", "log", "ls-files", "ls-remote", "ls-tree",
    "mailinfo", "mailsplit", "maintenance", "merge", "merge-base", "merge-file", "merge-index", "merge-tree",
    "mktag", "mktree", "mv", "name-rev", "notes", "pack-objects", "pack-refs", "prune", "prune-packed", "pull",
    "push", "range-diff", "read-tree", "rebase", "reflog", "remote", "repack", "replace", "request-pull",
    "rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm", "send-email", "shortlog", "show",
    "show-branch", "show-ref", "sparse-checkout", "stash", "status", "stripspace", "submodule", "svn", "switch",
    "symbolic-ref", "tag", "unpack-objects", "update-index", "update-ref", "verify-commit", "verify-pack",
    "verify-tag", "version", "whatchanged", "worktree", "write-tree"
})
"""Git's own commands: an alias of the same name is ignored by git, so it is not looked up."""

PUBLISH = "it publishes work, which is the user's decision"
HISTORY = "it writes or rewrites the branch history, which is the user's decision"
DESTROY = "it throws away work that may not be saved anywhere else"
SWITCH = "it rewrites files under the task (switching branches or restoring paths)"

ALWAYS = {
    "push": PUBLISH, "send-email": PUBLISH, "request-pull": PUBLISH,
    "commit": HISTORY, "merge": HISTORY, "rebase": HISTORY, "cherry-pick": HISTORY, "revert": HISTORY,
    "am": HISTORY, "pull": HISTORY, "update-ref": HISTORY, "filter-branch": HISTORY, "filter-repo": HISTORY,
    "replace": HISTORY, "prune": DESTROY,
}


class Verdict(namedtuple("Verdict", "decision reason")):  # not a dataclass: the hook starts on every call
    """`deny`: a git operation rt refuses, or a command it cannot read. `ask`: the user must approve it.
    `plan`: an `rt plan`, which needs the user's approval only when the task already has a scope."""
    __slots__ = ()
    decision: str
    reason: str


AliasLookup = Callable[[str], "str | None"]


def check(command: str, alias_of: AliasLookup = lambda name: None) -> Verdict | None:
    """The verdict on a Bash command, or None when it may run. `alias_of` gives a configured git alias."""
    if len(command) > MAX_CHARS:
        if "git" in command:
            return Verdict("deny", f"rt: the command is too long to read ({len(command)} characters) and mentions git; "
                                   f"split it, or write long text with the Write tool")
        return None
    found: list[Verdict] = []
    defined = _defined_aliases(command) if "alias." in command.lower() else {}
    _Reader(alias_of, found, defined).script(command, 0)
    for decision in ("deny", "ask", "plan"):
        for v in found:
            if v.decision == decision:
                return v
    return None


def _defined_aliases(command: str) -> dict[str, str]:
    """Aliases the command itself defines (`git config alias.p push && git p`), so they are judged too."""
    out: dict[str, str] = {}
    try:
        words = shlex.split(command.replace("\\\n", ""))
    except ValueError:
        return out
    for i, word in enumerate(words[:-1]):
        if word.lower().startswith("alias.") and "config" in words[:i]:
            out[word[6:].lower()] = words[i + 1]
    return out


class _Reader:
    def __init__(self, alias_of: AliasLookup, found: list[Verdict], defined: dict[str, str]):
        self.alias_of = alias_of
        self.found = found
        self.defined = defined

    def deny(self, reason: str) -> None:
        self.found.append(Verdict("deny", reason))

    # ------------------------------------------------------------ shell text
    def script(self, text: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.deny("rt: the command nests shells, substitutions or aliases too deeply to read; run the git-free "
                      "parts as plain commands")
            return
        text = text.replace("\\\n", "")
        try:
            outer, inner = _substitutions(text)
            for part in inner:
                self.script(part, depth + 1)
            words = _split(outer)
        except ValueError:
            if "git" in text:
                self.deny("rt: the command cannot be parsed (unbalanced quotes or brackets) and mentions git, so rt "
                          "cannot tell what it does; fix the quoting")
            return
        for simple in _simple_commands(words):
            self.simple(simple, depth)

    def simple(self, words: list[str], depth: int) -> None:
        """One simple command: every git word in it, scripts handed to a shell, and `rt scope add`."""
        heads = []  # the words in program position: the first, and each one after a wrapper like `env`
        for w in words:
            if not _is_assignment(w):
                heads.append(w)
                if w.rsplit("/", 1)[-1] not in WRAPPERS:
                    break
        dynamic = next((w for w in heads if _is_dynamic(w)), None)
        if dynamic and any(_names_git(w) or w in ALWAYS for w in words):
            self.deny(f"rt: the program name {dynamic!r} is only known when the command runs, and the command "
                      f"mentions git; name the program plainly")
        after_env = False
        for i, word in enumerate(words):
            name = word.rsplit("/", 1)[-1]
            if _names_git(word):
                self.git(words[i + 1:], depth)
            elif name.startswith("git-") and name[4:] in BUILTINS:
                self.git([name[4:], *words[i + 1:]], depth)
            elif name in SHELLS:
                for arg in words[i + 1:]:
                    if not arg.startswith("-"):
                        self.script(arg, depth + 1)
            elif name in JOINERS or (after_env and word in ("-S", "--split-string")):
                self.script(" ".join(words[i + 1:]), depth + 1)
            elif name == "rt":
                self.rt(words[i + 1:])
            after_env = after_env or name == "env"
            if _is_store_path(word):
                self.deny(f"rt: {word!r} is rt's own store; use rt commands (`rt status`, `rt scope`, `rt repair`) "
                          f"instead of touching .rt/")

    def rt(self, args: list[str]) -> None:
        if args[:1] == ["start"] and "--force" in args:
            self.found.append(Verdict("ask", "rt: `rt start --force` sets the active task aside, with its approved "
                                             "scope; that is the user's decision"))
        args = [a for a in args if not a.startswith("-")]
        if args[:2] == ["scope", "add"]:
            self.found.append(Verdict("ask", "rt: extending the approved scope is the user's decision; approve "
                                             f"`rt scope add {' '.join(args[2:])}` only if you agreed to it"))
        elif args[:1] == ["allow-fix"]:
            self.found.append(Verdict("ask", "rt: more fix attempts after the limit are the user's decision; approve "
                                             "`rt allow-fix` only if you agreed to it"))
        elif args[:1] == ["plan"]:
            self.found.append(Verdict("plan", "rt: `rt plan` on a task that already has a scope replaces the approved "
                                              "scope, which is the user's decision; approve it only if you agreed"))

    # ------------------------------------------------------------ git arguments
    def git(self, args: list[str], depth: int) -> None:
        inline: dict[str, str] = {}
        i = 0
        while i < len(args) and args[i].startswith("-"):
            if args[i] in GIT_OPTIONS_WITH_VALUE:
                if args[i] == "-c" and i + 1 < len(args):
                    key, _, value = args[i + 1].partition("=")
                    if key.lower().startswith("alias."):
                        inline[key[6:].lower()] = value
                    else:  # core.pager, core.sshCommand, diff.external ... run their value through a shell
                        self.script(value, depth + 1)
                i += 2
            else:
                i += 1
        if i >= len(args):
            return
        sub, rest = args[i], args[i + 1:]
        if _is_dynamic(sub):
            self.deny(f"rt: the git command {sub!r} is only known when the command runs; name it plainly")
            return
        if sub == "help" or rest[:1] in (["-h"], ["--help"]):  # only first: `commit -m -h` commits
            return
        if sub not in BUILTINS and sub not in ALWAYS:  # git-filter-repo is no builtin, yet rewrites history
            alias = inline.get(sub.lower()) or self.defined.get(sub.lower()) or self.alias_of(sub)
            if alias:
                if alias.startswith("!"):
                    self.script(alias[1:] + " " + " ".join(shlex.quote(a) for a in rest), depth + 1)
                elif depth < MAX_DEPTH:
                    try:
                        self.git([*shlex.split(alias), *rest], depth + 1)
                    except ValueError:
                        self.deny(f"rt: the git alias {sub!r} cannot be parsed; rt cannot tell what it does")
                else:
                    self.deny(f"rt: the git alias {sub!r} expands too deeply to read")
            return
        if sub == "submodule" and "foreach" in rest:
            self.script(" ".join(rest[rest.index("foreach") + 1:]), depth + 1)
            return
        why = _dangerous(sub, rest)
        if why:
            shown = " ".join(["git", sub, *rest[:3]]) + (" ..." if len(rest) > 3 else "")
            self.deny(f"rt blocks `{shown}`: {why}. Leave commits, pushes and history to the user; rt tracks the "
                      f"task's changes without them (`rt delta`, `rt review`)")


def _dangerous(sub: str, args: list[str]) -> str | None:
    """Why `git <sub> <args>` publishes or destroys work, or None when it does neither."""
    opts = [a for a in args if a.startswith("-") and a != "-"]
    dd = args.index("--") if "--" in args else len(args)
    positional = [a for a in args[:dd] if not a.startswith("-")]

    def has(*names: str) -> bool:
        for o in opts:
            if o.split("=", 1)[0] in names:
                return True
            if not o.startswith("--") and any(f"-{c}" in names for c in o[1:]):
                return True  # a cluster of short options, like -fdx
        return False

    if sub in ALWAYS:
        if sub == "push" and has("-n", "--dry-run"):
            return None
        return ALWAYS[sub]
    if sub == "reset":
        if has("--hard", "--merge", "--keep"):
            return DESTROY
        if has("--soft") or (len(positional) == 1 and dd == len(args) and _looks_like_revision(positional[0])):
            return HISTORY
        return None
    if sub == "checkout":
        if not args:
            return None
        if has("-f", "--force", "-B", "-p", "--patch", "--ours", "--theirs", "-m", "--merge"):
            return DESTROY
        if has("-b", "--orphan") and dd == len(args):
            return None
        return SWITCH
    if sub == "switch":
        if has("-C", "--force-create", "-f", "--force", "--discard-changes", "-m", "--merge"):
            return DESTROY
        return None if has("-c", "--create", "--orphan") else SWITCH
    if sub == "restore":
        return None if has("-S", "--staged") and not has("-W", "--worktree") else DESTROY
    if sub == "clean":
        return None if has("-n", "--dry-run") else DESTROY
    if sub == "branch":
        return DESTROY if has("-d", "-D", "--delete", "-f", "--force", "-m", "-M", "--move") else None
    if sub == "tag":
        return DESTROY if has("-d", "--delete", "-f", "--force") else None
    if sub == "stash":
        return DESTROY if positional[:1] in (["drop"], ["clear"]) else None
    if sub == "rm":
        return DESTROY if has("-f", "--force") else None
    if sub == "reflog":
        return DESTROY if positional[:1] in (["expire"], ["delete"]) else None
    if sub == "gc":
        return DESTROY if any(o.startswith("--prune=") and o != "--prune=never" for o in opts) else None
    if sub == "worktree":
        return DESTROY if positional[:1] == ["remove"] and has("-f", "--force") else None
    if sub == "svn":
        return PUBLISH if positional[:1] in (["dcommit"], ["set-tree"]) else None
    return None


# ---------------------------------------------------------------- shell lexing

def _substitutions(text: str) -> tuple[str, list[str]]:
    """`text` with every `$( )`, backtick and unquoted `<( )`/`>( )` replaced by SUBST, and their insides.

    Single quotes hide them, double quotes do not (`"$(git push)"` runs git). Unbalanced -> ValueError.
    """
    out: list[str] = []
    inner: list[str] = []
    quote = ""
    i = 0
    while True:
        if quote == "'":
            end = text.find("'", i)
            if end == -1:
                raise ValueError("unclosed quote")
            out.append(text[i:end + 1])
            quote, i = "", end + 1
            continue
        m = _SPECIAL.search(text, i)
        if m is None:
            out.append(text[i:])
            break
        j, tok = m.start(), m.group()
        out.append(text[i:j])
        i = j + len(tok)
        if tok == "\\":
            out.append(text[j:j + 2])
            i = j + 2
        elif tok == "'":
            out.append(tok)
            quote = quote or "'"
        elif tok == '"':
            out.append(tok)
            quote = "" if quote else '"'
        elif tok == "`":
            end = text.find("`", i)
            while end != -1 and text[end - 1] == "\\":
                end = text.find("`", end + 1)
            if end == -1:
                raise ValueError("unclosed backtick")
            inner.append(text[i:end])
            out.append(SUBST)
            i = end + 1
        elif tok == "$(" or not quote:
            end = _closing(text, i)
            inner.append(text[i:end])
            out.append(SUBST)
            i = end + 1
        else:
            out.append(tok)  # `<(` inside double quotes is plain text
    if quote:
        raise ValueError("unclosed quote")
    return "".join(out), inner


def _closing(text: str, start: int) -> int:
    """Index of the `)` that closes a bracket opened just before `start`, skipping quoted text."""
    depth, quote, i = 1, "", start
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 1
            elif c == quote:
                quote = ""
        elif c == "\\":
            i += 1
        elif c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError("unclosed bracket")


def _split(text: str) -> list[str]:
    """Shell words and operators (`&&`, `|`, `;`, `(`, newline ...), quotes removed; no comments."""
    lex = shlex.shlex(text, posix=True, punctuation_chars="();<>|&\n")
    lex.whitespace = " \t\r"
    lex.whitespace_split = True
    lex.commenters = ""  # `a#b` is no comment in the shell; never let `#` hide what follows
    return list(lex)


def _simple_commands(tokens: list[str]) -> list[list[str]]:
    """Tokens cut at operators into simple commands. Redirection operators are dropped, their targets kept
    as words (`> .rt/state.json` still names the store)."""
    commands: list[list[str]] = [[]]
    for tok in tokens:
        if tok and set(tok) <= SEPARATORS:
            commands.append([])
        elif not (tok and set(tok) <= set("<>&|")):
            commands[-1].append(tok)
    return [c for c in commands if c]


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.isidentifier()


def _is_dynamic(word: str) -> bool:
    """A program name only known at run time: a variable, a substitution, or a glob."""
    return "$" in word or any(c in word for c in "*?[")


def _names_git(word: str) -> bool:
    name = word.rsplit("/", 1)[-1]
    if name in ("git", "git.exe"):
        return True
    return any(c in name for c in "*?[") and fnmatch.fnmatchcase("git", name)


def _looks_like_revision(word: str) -> bool:
    return word != "HEAD" and (any(c in word for c in "~^") or "@{" in word or word.endswith("HEAD"))


def _is_store_path(word: str) -> bool:
    path = word.removeprefix("./")
    return path == ".rt" or path.startswith(".rt/") or path.endswith("/.rt") or "/.rt/" in path

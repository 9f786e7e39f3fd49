"""What a Bash command would do to git, to `.git/` and to `.rt/`, read before it runs (the PreToolUse Bash guard).

The command is read as bash reads it (`rt/claude/shell.py`: quotes, escapes, comments, redirections,
heredocs, substitutions), cut into simple commands, and each program is judged:

- git runs only what `rt/claude/gitrules.py` lets through (an allow-list of subcommands and options,
  abbreviations resolved as git resolves them); `-c` settings, `GIT_*` and other variables that make
  git run a program or read another configuration are refused; an unknown subcommand (an alias, an
  external command) is put to the user.
- git is found behind wrappers (`env`, `sudo`, `timeout`, `xargs` ...), in `bash -c`, `eval`, heredocs
  and text fed to a shell, in `find -exec`, and as an argument of programs rt does not know.
- Nothing may write to `.git/` or `.rt/` (redirections, `rm`, `mv`, `cp`, `tee`, globs like `.r?`),
  delete the repository around them, or copy git's program under another name.
- When git, `.git` or `.rt` is in sight, a program, git subcommand or argument that is only known at run
  time (a variable, a substitution, `$'...'`, a glob) is refused: name it plainly.

What it cannot see: programs that run git themselves (a script file, `make`, a test suite), text an
interpreter builds at run time, and configuration or environment set outside the command.
"""
from __future__ import annotations

import os
import re

from rt.claude import gitrules
from rt.claude.gitrules import DESTROY, HISTORY, PUBLISH, RUNS, Refused, Unknown
from rt.claude.shell import DYN, REDIRECTS, Script, Word, expand_braces, find_bare, parse, unescape

MAX_DEPTH = 8
"""Nested shells and substitutions deeper than this are refused rather than followed."""

MAX_CHARS = 200_000
"""A longer command is not read (it could outlast the hook's timeout, which lets the tool run)."""

TAIL = ". Leave commits, pushes and history to the user; rt tracks the task's changes without them (`rt delta`, `rt review`)"


class Verdict:
    """`deny`: refused, the reason says what to do instead. `ask`: the user decides. `plan`: an `rt plan`,
    which needs the user only when the task already has a scope. `op` is `commit` or `push` when the
    refused git command is one plain commit or push, run once."""
    __slots__ = ("decision", "reason", "op")

    def __init__(self, decision: str, reason: str, op: str = ""):
        self.decision, self.reason, self.op = decision, reason, op

    def __repr__(self) -> str:
        return f"Verdict({self.decision!r}, {self.reason!r}, {self.op!r})"


def check(command: str, cwd: str | None = None, root: str | None = None, alias_of=None) -> Verdict | None:
    """The verdict on a Bash command, or None when it may run. `cwd` and `root` (the task's repository)
    let rt tell when a path is the repository itself; `alias_of(name)` names a git alias in refusals."""
    found = _read(command, cwd, root, alias_of).found
    for decision in ("deny", "ask", "plan"):
        for v in found:
            if v.decision == decision:
                return v
    return None


def sole_operation(command: str, cwd: str | None = None, root: str | None = None) -> str | None:
    """`commit` or `push` when the command is exactly one plain `git commit` (or one plain `git push`), run
    once, and nothing else in it is refused; None otherwise. For a caller that may let that one through."""
    found = _read(command, cwd, root, None).found
    if len(found) == 1 and found[0].op:
        return found[0].op
    return None


def _read(command: str, cwd, root, alias_of) -> "_Reader":
    reader = _Reader(command, cwd, root, alias_of)
    if len(command) > MAX_CHARS:
        if reader.sight:
            reader.refuse(f"rt: the command is too long to read ({len(command)} characters) and mentions git; "
                          f"split it, or write long text with the Write tool")
        return reader
    reader.text(command, 0, False)
    if reader.defines_functions:
        for v in reader.found:
            v.op = ""
    return reader


# ---------------------------------------------------------------- what rt knows of programs

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "rbash", "tcsh", "csh", "yash",
                    "posh", "oksh", "loksh", "pdksh", "at", "batch"})
"""Programs that run their `-c` argument or their stdin as shell commands."""

INTERPRETERS = {"python": "c", "pypy": "c", "perl": "eE", "ruby": "e", "node": "ep", "nodejs": "ep", "bun": "ep",
                "deno": "", "php": "r", "lua": "e", "luajit": "e", "Rscript": "e", "osascript": "e", "pwsh": "c",
                "powershell": "c", "expect": "c", "tclsh": "", "wish": "", "julia": "e", "guile": "c",
                "racket": "e", "groovy": "e", "irb": "", "ipython": "c", "awk": "", "gawk": "", "mawk": "",
                "nawk": ""}
"""Interpreters and the short options that take code (awk's program is its first argument)."""

DATA = frozenset("""echo printf cat tac head tail less more most wc uniq cut tr nl fold fmt column paste join
comm diff cmp grep egrep fgrep rg ag ack ls tree stat file du df which whereis type info apropos whatis help
realpath readlink basename dirname pwd date true false test [ [[ expr seq yes jq yq od hexdump strings md5sum
sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum base64 base32 sleep printenv id whoami uname hostname
tput clear wait cd pushd popd dirs shopt set unset read let getopts rt ps kill""".split())
"""Programs whose arguments are never run as commands."""

READS = frozenset("""cat tac head tail less more most wc nl cut grep egrep fgrep rg ag ack ls tree stat file du df
diff cmp realpath readlink basename dirname md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum od
hexdump strings jq echo printf test [ [[ which type""".split())
"""Programs that only read the files they are given: they may name `.git/` and `.rt/`."""

DELETERS = frozenset({"rm", "rmdir", "unlink", "shred", "mv", "trash", "trash-put", "gio", "rsync", "srm", "wipe"})
"""Programs that can remove a folder given to them: refused on the repository or a folder holding it."""

COPIERS = frozenset({"cp", "ln", "install", "rsync", "dd", "cat", "tee", "mv", "hash", "scp", "busybox"})
"""Programs that could put git's program under another name."""

ASSIGNERS = frozenset({"export", "declare", "typeset", "local", "readonly"})

KEYWORDS = frozenset({"if", "then", "elif", "else", "fi", "do", "done", "while", "until", "!", "{", "}", "coproc",
                      "esac", "[[", "]]"})
LOOPS = frozenset({"for", "select", "while", "until"})

SAFE_CONFIG = ("color.", "core.quotepath", "core.abbrev", "user.name", "user.email", "log.", "format.pretty",
               "diff.noprefix", "diff.mnemonicprefix", "diff.renames", "diff.algorithm", "diff.context",
               "diff.interhunkcontext", "diff.relative", "diff.colormoved", "status.", "advice.", "i18n.",
               "column.", "grep.", "init.defaultbranch", "safe.directory", "blame.", "merge.conflictstyle",
               "pager.", "core.commentchar", "gc.auto", "maintenance.auto", "core.longpaths", "fetch.prune")
"""`git -c` settings that change only how git prints or names things (`pager.<cmd>` only to `false`)."""

SAFE_GIT_ENV = frozenset({"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME",
                          "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS",
                          "GIT_NO_REPLACE_OBJECTS", "GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS",
                          "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS", "GIT_CEILING_DIRECTORIES",
                          "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_FLUSH", "GIT_PROGRESS_DELAY",
                          "GIT_MERGE_VERBOSITY", "GIT_ADVICE", "GIT_DEFAULT_HASH", "GIT_DIR", "GIT_WORK_TREE",
                          "GIT_NAMESPACE", "GIT_REDACT_COOKIES"})
"""`GIT_*` variables that change neither which programs git runs, nor which configuration it reads."""

RISKY_ENV = frozenset({"PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PAGER",
                       "LESSOPEN", "LESSCLOSE", "EDITOR", "VISUAL", "SSH_ASKPASS", "BROWSER", "HOME",
                       "XDG_CONFIG_HOME", "PROMPT_COMMAND", "LESS", "LESSKEY", "MORE", "MANPAGER"})
"""Other variables that change which program git (or the shell) runs, or which configuration git reads."""

RELOCATE = frozenset({"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_NAMESPACE", "GIT_OBJECT_DIRECTORY",
                      "GIT_COMMON_DIR"})
"""Variables that point git at another repository, index or namespace."""

SAFE_PAGERS = frozenset({"", "cat", "less", "more", "less -R", "less -FRX"})

GLOBAL_FLAGS = frozenset({"-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--no-lazy-fetch",
                          "--no-optional-locks", "--no-advice", "--bare", "--literal-pathspecs",
                          "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs"})
PRINTS = frozenset({"-v", "--version", "-h", "--help", "--exec-path", "--html-path", "--man-path", "--info-path"})

BUILTINS = frozenset("""
add am annotate apply archimport archive backfill bisect blame branch bugreport bundle cat-file check-attr
check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column
commit commit-graph commit-tree config count-objects credential credential-cache credential-store cvsexportcommit
cvsimport cvsserver daemon describe diagnose diff diff-files diff-index diff-tree difftool fast-export fast-import
fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects
fsmonitor--daemon gc get-tar-commit-id grep gui hash-object help hook http-backend http-fetch http-push
imap-send index-pack init init-db instaweb interpret-trailers last-modified log ls-files ls-remote ls-tree mailinfo
mailsplit maintenance merge merge-base merge-file merge-index merge-one-file merge-tree mergetool mktag mktree
multi-pack-index mv name-rev notes p4 pack-objects pack-redundant pack-refs patch-id prune prune-packed pull push
quiltimport range-diff read-tree rebase receive-pack reflog refs remote repack replace replay repo request-pull
rerere reset restore rev-list rev-parse revert rm scalar send-email send-pack shell shortlog show show-branch
show-index show-ref sparse-checkout stage stash status stripspace submodule svn switch symbolic-ref tag
unpack-file unpack-objects update-index update-ref update-server-info upload-archive upload-pack var verify-commit
verify-pack verify-tag version web--browse whatchanged worktree write-tree filter-repo
""".split())
"""git's own commands: an alias of the same name is ignored by git; what is not in gitrules is refused."""

WHY_NOT = {"send-pack": PUBLISH, "http-push": PUBLISH, "send-email": PUBLISH, "request-pull": PUBLISH,
           "merge": HISTORY, "rebase": HISTORY, "cherry-pick": HISTORY, "revert": HISTORY, "am": HISTORY,
           "pull": HISTORY, "update-ref": HISTORY, "filter-branch": HISTORY, "filter-repo": HISTORY,
           "replace": HISTORY, "commit-tree": HISTORY, "fast-import": HISTORY,
           "replay": HISTORY, "read-tree": DESTROY, "checkout-index": DESTROY, "update-index": DESTROY,
           "prune": DESTROY, "gc": DESTROY, "repack": DESTROY, "prune-packed": DESTROY, "pack-refs": DESTROY,
           "maintenance": DESTROY, "difftool": RUNS, "mergetool": RUNS, "daemon": RUNS, "instaweb": RUNS,
           "credential": "it hands out stored passwords", "receive-pack": PUBLISH, "upload-pack": RUNS}

STORE_NAMES = (".git", ".rt", "HEAD", "config", "index", "description", "packed-refs", "ORIG_HEAD", "FETCH_HEAD",
               "COMMIT_EDITMSG", "pre-commit", "pre-push.sample", "exclude", "main", "master", "objects", "refs",
               "hooks", "info", "logs", "heads", "tags", "pack", "pack-0a1b.pack", "pack-0a1b.idx", "pack-0a1b.rev",
               "index.lock", "0123456789abcdef0123456789abcdef012345", "0a", "state.json", "task.json",
               "snapshot.json", "snapshot-id.json", "statcache.json", "lastscan", "history.json", "hookserver", "lock", "tasks", "blobs",
               ".gitignore", "manifest.md", "pack.md", "1-task")
"""Names found inside `.git/` and `.rt/`: a `find -name` pattern matching none of them stays out of both."""

_SIGHT = re.compile(r"git|\.rt\b", re.I)
_STORE_SIGHT = re.compile(r"\.git\b|\.rt\b|git-dir|git-path|git-common-dir|GIT_DIR", re.I)
_ESCAPES = re.compile(r"\\(x[0-9a-fA-F]|[0-7]{3}|u[0-9a-fA-F]{4})")
_ESCAPE = re.compile(r"^\s*(?::?!|shell\s+|system\s+|call\s+system\s*\(\s*['\"])")
"""How a program's own command line reaches a shell: vim's and ed's `!`, gdb's `shell`, `system`."""
_MENTIONS = re.compile(r"(?<![\w-])git(?![\w-])|\.git\b|(?<![\w.])\.rt\b", re.I)
_SETS = re.compile(r"(^|[\s;&|(])[A-Za-z_]\w*(\[[^]]*\])?\+?=|\b(read|mapfile|readarray|for|select|declare|typeset|local|getopts|set\s+--|"
                   r"printf\s+-v)\b")
_RT_WORD = re.compile(r"\b(git|rt)\b", re.I)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")


def _in_sight(text: str) -> bool:
    """Whether git, `.git` or `.rt` shows in the command, however quoted or escaped."""
    plain = text.replace("\\", "").replace("'", "").replace('"', "")
    return bool(_SIGHT.search(plain) or _ESCAPES.search(text))


# ---------------------------------------------------------------- simple commands

class _Simple:
    __slots__ = ("words", "redirects", "piped", "repeat")

    def __init__(self, piped: bool, repeat: bool):
        self.words: list[Word] = []
        self.redirects: list[tuple[str, Word]] = []
        self.piped, self.repeat = piped, repeat


def _commands(tokens: list, loose: list[Word]) -> tuple[list[_Simple], bool]:
    """Tokens cut into simple commands, case patterns set aside (into `loose`, for their substitutions);
    also whether the text defines a function."""
    out: list[_Simple] = []
    loops = 0
    cur = _Simple(False, False)
    case: list[str] = []  # "pattern" or "body", one per open `case`
    functions = False
    i = 0

    def flush(piped: bool) -> _Simple:
        if cur.words or cur.redirects:
            out.append(cur)
        return _Simple(piped, loops > 0)

    while i < len(tokens):
        t = tokens[i]
        if isinstance(t, str) and t in REDIRECTS:
            if i + 1 >= len(tokens) or not isinstance(tokens[i + 1], Word):
                raise ValueError(f"redirection {t!r} without a target")
            cur.redirects.append((t, tokens[i + 1]))
            i += 2
            continue
        if case and case[-1] == "pattern":
            if isinstance(t, Word):
                if t.text == "esac":
                    case.pop()
                else:
                    loose.append(t)
            elif t == ")":
                case[-1] = "body"
            i += 1
            continue
        if isinstance(t, str):
            if t == "(" and i + 1 < len(tokens) and tokens[i + 1] == ")" and cur.words:
                functions = True
                cur = flush(False)
                i += 2
                continue
            cur = flush(t in ("|", "|&"))
            if t in (";;", ";&", ";;&") and case:
                case[-1] = "pattern"
            i += 1
            continue
        first = cur.words[0].text if cur.words else None
        if first is None and t.static:
            if t.text == "do":
                loops += 1
                cur.repeat = True
            elif t.text == "done":
                loops = max(loops - 1, 0)
            elif t.text == "esac" and case:
                case.pop()
                i += 1
                continue
            elif t.text == "function":
                functions = True
        cur.words.append(t)
        if first == "case" and len(cur.words) == 3 and t.static and t.text == "in":
            cur = flush(False)
            case.append("pattern")
        i += 1
    flush(False)
    return out, functions


# ---------------------------------------------------------------- the reader

class _Reader:
    def __init__(self, command: str, cwd: str | None, root: str | None, alias_of):
        self.found: list[Verdict] = []
        self.sight = _in_sight(command)
        self.store_sight = bool(_STORE_SIGHT.search(command))  # .git or .rt in sight, or git naming its folder
        self.command_text = command
        self.assigns = bool(_SETS.search(command))  # the command sets variables it may run as a program
        self.scripts: dict[str, str | None] = {}  # files this command writes: their text when known
        self.dotglob = "dotglob" in command or "GLOBIGNORE" in command or "globstar" in command
        self.cwd = cwd
        self.root = os.path.normpath(root) if root else None
        self.alias_of = alias_of
        self.defines_functions = False
        self.relocated = False  # git on another repository (GIT_DIR ..., `env -C`) or as another user (sudo ...)
        self.embedded = 0  # > 0 while reading an argument of an unknown program as a command
        self.upstream: _Simple | None = None  # the command whose output the current one reads, in a pipeline

    def refuse(self, reason: str, decision: str = "deny", op: str = "") -> None:
        reason = reason.replace("\n", " ")  # one line, short: the model reads it
        self.found.append(Verdict(decision, reason if len(reason) <= 1000 else reason[:997] + "...", op))

    # ------------------------------------------------------------ shell text
    def text(self, text: str, depth: int, repeat: bool) -> None:
        try:
            script = parse(text)
        except ValueError:
            if self.sight:
                self.refuse("rt: the command cannot be read (unbalanced quotes or brackets) and mentions git, so rt "
                            "cannot tell what it does; fix the quoting")
            return
        self.script(script, depth, repeat)

    def script(self, script: Script, depth: int, repeat: bool) -> None:
        if depth > MAX_DEPTH:
            self.refuse("rt: the command nests shells or substitutions too deeply to read; run the parts as plain "
                        "commands")
            return
        loose: list[Word] = []
        try:
            commands, functions = _commands(script.tokens, loose)
        except ValueError:
            if self.sight:
                self.refuse("rt: the command cannot be read (a redirection without its target) and mentions git; "
                            "fix it")
            return
        self.defines_functions |= functions
        for w in loose:
            self.substitutions(w, depth, repeat)
        previous = None
        for cmd in commands:
            self.upstream = previous if cmd.piped else None
            self.command(cmd, depth, repeat or cmd.repeat)
            previous = cmd

    def substitutions(self, w: Word, depth: int, repeat: bool) -> None:
        for sub in w.subs:
            self.script(sub, depth + 1, repeat)

    def command(self, cmd: _Simple, depth: int, repeat: bool) -> None:
        for w in cmd.words:
            self.substitutions(w, depth, repeat)
        stdin: Word | str | None = "pipe" if cmd.piped else None
        outputs = []
        for op, target in cmd.redirects:
            self.substitutions(target, depth, repeat)
            if op in (">", ">>", ">|", "&>", "&>>", "<>"):
                self.written(target, "a redirection")
                outputs.append((op, target))
            elif op in ("<<", "<<-", "<<<"):
                stdin = target
            elif op == "<":
                stdin = "file"
        words = [v for w in cmd.words for v in _braced(w)]
        i = 0
        while i < len(words) and _ASSIGNMENT.match(words[i].text):
            self.assign(words[i])
            i += 1
        for op, target in outputs:
            self.remember(target, op == ">>", _printed(words[i:], stdin))
        name = words[i].text.rsplit("/", 1)[-1] if i < len(words) else ""
        if name in COPIERS or name == "sed":
            append = any(w.text in ("-a", "--append") for w in words[i + 1:])
            text = _printed(words[i:i + 1], stdin) if name == "tee" else None
            for w in words[i + 1:]:
                if not w.text.startswith("-"):
                    self.remember(w, append, text)
        self.run(words[i:], stdin, depth, repeat)

    def remember(self, w: Word, append: bool, text: str | None) -> None:
        """A file this command writes, with its text when that is known (`echo ... > f`, `cat <<EOF > f`),
        so that running it later in the same command reads what it will hold."""
        if not w.static:
            return
        key = os.path.normpath(w.text)
        before = (self.scripts[key] if key in self.scripts else _script_text(key, self.cwd)) if append else ""
        self.scripts[key] = None if text is None or before is None else before + text

    # ------------------------------------------------------------ one program and its arguments
    def run(self, argv: list[Word], stdin, depth: int, repeat: bool) -> None:
        while argv:
            prog = argv[0]
            if not prog.static:
                if (self.sight or self.assigns or prog.subs or _could_be_git(prog)
                        or argv[1:2] and argv[1].text in BUILTINS):
                    self.refuse(f"rt: the program {_shown(prog)} is only known when the command runs; name the "
                                f"program plainly")
                return
            name = prog.text.rsplit("/", 1)[-1]
            if name in KEYWORDS:
                argv = argv[1:]
                continue
            if name == "function":
                argv = argv[2:]  # `function name {`: the body follows
                continue
            if name in LOOPS or name == "case":
                return  # a header: its words' substitutions are already read
            wrapper = WRAPPERS.get(name)
            if wrapper is None:
                break
            argv, stdin, repeat = wrapper(self, argv, stdin, repeat)
            if argv is None:
                return
        if not argv:
            return
        name = argv[0].text.rsplit("/", 1)[-1]
        if name in ("git", "git.exe") and "/" in argv[0].text and not _names_git_program(argv[0]):
            self.refuse(f"rt: {_shown(argv[0])} is not the installed git (a file named git, run by its path); run "
                        f"`git` itself")
        elif name in ("git", "git.exe"):
            self.git(argv[1:], depth, repeat)
        elif name.startswith("git-") and name[4:] in BUILTINS:
            self.git([_word(name[4:]), *argv[1:]], depth, repeat)
        elif name in SHELLS:
            self.shell(argv, stdin, depth, repeat)
        elif _interpreter(name) is not None:
            self.interpreter(name, argv, stdin, depth, repeat)
        elif name == "rt":
            self.rt([w.text for w in argv[1:]])
        elif _hook_client(argv[0].text):
            self.rt(["hook"])
        elif name == "find":
            self.find(argv, depth, repeat)
        elif name in ("eval", "trap", "watch"):
            self.joined(name, argv[1:2] if name == "trap" else _operands(argv[1:], "nq"), depth,
                        repeat or name == "watch")
        elif name in ASSIGNERS:
            for w in argv[1:]:
                if "=" in w.text and _ASSIGNMENT.match(w.text):
                    self.assign(w)
        elif name in ("source", "."):
            if argv[1:]:
                self.script_file(name, argv[1], stdin, depth, repeat)
        elif "/" in argv[0].text and (os.path.normpath(argv[0].text) in self.scripts
                                      or _shell_script(argv[0].text, self.cwd)):
            self.script_file(argv[0].text, argv[0], stdin, depth, repeat)
        elif name in ("cd", "pushd"):
            self.change_dir(argv[1:])
        elif name == "alias" and any(_MENTIONS.search(w.text) or not w.static for w in argv[1:]):
            self.refuse("rt: a shell alias that runs git hides it from rt; write git out plainly")
        elif name == "hash" and self.sight and any(w.text.startswith("-p") for w in argv[1:]):
            self.refuse("rt: `hash -p` gives git's program another name; run git plainly")
        elif name == "sed":
            self.sed(argv)
        else:
            self.program(name, argv, depth, repeat)

    def program(self, name: str, argv: list[Word], depth: int, repeat: bool) -> None:
        """Any other program: what it may write, git's program copied, git commands in its arguments."""
        args = argv[1:]
        if name in COPIERS:
            for w in args:
                if _names_git_program(w) or (not w.static and self.sight):
                    self.refuse(f"rt: `{name}` with {_shown(w)} could put git's program under another name, "
                                f"which hides it from rt; run git by its name")
                    return
        if name not in READS:
            for w in _cp_targets(args) if name == "cp" else args:
                if w.text.startswith("-") and "=" not in w.text:
                    continue
                self.written(w, f"`{name}`")
        if name in DELETERS:
            for w in args:
                if not w.text.startswith("-"):
                    self.deleted(name, w)
                if w.subs and _RT_WORD.search(self.command_text):
                    self.refuse(f"rt: `{name}` is given names only known when it runs, from text that mentions git "
                                f"or rt; name what to remove plainly")
                    break
        if name in DATA or self.embedded:
            return
        self.embedded += 1
        if name == "parallel":   # `parallel git ::: push`: the command and the arguments it is given, as one
            args = [w for w in args if w.text not in (":::", "::::", ":::+", "::::+")]
        try:
            for j, w in enumerate(args):
                if not w.static:
                    continue
                if w.text.rsplit("/", 1)[-1] in ("git", "git.exe"):
                    self.guest(name, args[j:], depth, repeat)
                for part in (w.text, w.text.partition("=")[2]):
                    if " " in part.strip() and _MENTIONS.search(part):
                        self.guest_text(name, part, depth, repeat)
        finally:
            self.embedded -= 1

    def guest(self, host: str, argv: list[Word], depth: int, repeat: bool) -> None:
        """`git ...` among the arguments of a program rt does not know (`flock f git push`)."""
        inner = _Reader("git", self.cwd, self.root, None)
        inner.embedded = 1
        inner.run(argv, None, depth + 1, repeat)
        self.adopt(host, inner, " ".join(w.text for w in argv[:4]))

    def guest_text(self, host: str, text: str, depth: int, repeat: bool) -> None:
        text = _ESCAPE.sub("", text)   # an editor's or debugger's way to a shell: `!git push`, `shell git push`
        inner = _Reader(text, self.cwd, self.root, None)
        inner.embedded = 1
        inner.text(text, depth + 1, repeat)
        self.adopt(host, inner, text)

    def adopt(self, host: str, inner: "_Reader", shown: str) -> None:
        """Refuse what a guest reading found, unless only unknown git subcommands (prose like `git and push`)."""
        real = [v for v in inner.found if v.decision == "deny"]
        if real:
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            self.refuse(f"rt: `{host}` may run `{shown}` as a command, which rt refuses: "
                        f"{real[0].reason.removesuffix(TAIL).removeprefix('rt blocks ')}")

    # ------------------------------------------------------------ shells, interpreters, text run as commands
    def shell(self, argv: list[Word], stdin, depth: int, repeat: bool) -> None:
        if argv[0].text.rsplit("/", 1)[-1] in ("at", "batch"):   # the job: `-f FILE`, else stdin; the rest is a time
            named = [w for k, w in enumerate(argv[1:]) if k and argv[k].text == "-f"]
            if named:
                self.script_file(argv[0].text, named[0], stdin, depth, repeat)
            else:
                self.stdin(argv[0].text, stdin, depth, repeat, shell=True)
            return
        args, i, command_flag, reads_stdin = argv[1:], 0, False, False
        while i < len(args):
            t = args[i].text
            if t in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                i += 2
                continue
            if t == "--" or t == "-":
                reads_stdin = reads_stdin or t == "-"
                i += 1
                break
            if not t.startswith(("-", "+")) or not args[i].static:
                break
            if not t.startswith("--"):
                command_flag = command_flag or "c" in t
                reads_stdin = reads_stdin or "s" in t
            i += 1
        rest = args[i:]
        if command_flag:
            if not rest:
                return
            if rest[0].static or DYN not in rest[0].pat:
                self.text(rest[0].text, depth + 1, repeat)
            else:
                self.refuse(f"rt: `{argv[0].text} -c` runs {_shown(rest[0])}, text only known when it runs; run the "
                            f"commands themselves")
            return
        if rest and not reads_stdin:
            self.script_file(argv[0].text, rest[0], stdin, depth, repeat)
            return
        self.stdin(argv[0].text, stdin, depth, repeat, shell=True)

    def script_file(self, name: str, w: Word, stdin, depth: int, repeat: bool) -> None:
        """A shell running a file: read as commands, from what this command writes into it or from disk."""
        if w.text in ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0") and stdin == "pipe" or w.subs or (
                not w.static and self.sight):
            self.refuse(f"rt: `{name}` runs text this command makes, which rt cannot read; run the commands "
                        f"themselves")
            return
        if not w.static:
            return
        if _hook_client(w.text):
            self.rt(["hook"])
            return
        key = os.path.normpath(w.text)
        text = self.scripts[key] if key in self.scripts else _script_text(key, self.cwd)
        if text is None:
            self.refuse(f"rt: `{name} {w.text}` runs a file this command writes, which rt cannot read; write the "
                        f"file first, then run it")
        elif text:
            self.text(text, depth + 1, repeat)

    def stdin(self, name: str, source, depth: int, repeat: bool, shell: bool) -> None:
        """What a shell or interpreter reads as its program from stdin."""
        if isinstance(source, Word):
            body = source.heredoc if source.heredoc is not None else source.text
            if shell and (source.heredoc is not None or source.static):
                self.text(body, depth + 1, repeat)
            elif shell and self.sight:
                self.refuse(f"rt: `{name}` runs text only known when it runs; run the commands themselves")
            elif not shell and _MENTIONS.search(body):
                self.refuse(f"rt: `{name}` runs a program that mentions git, .git or .rt, which rt cannot read; run "
                            f"git itself in the shell")
        elif source == "pipe" and (shell or self.sight):
            self.refuse(f"rt: text piped into `{name}` runs as commands rt cannot read; run the commands themselves")

    def interpreter(self, name: str, argv: list[Word], stdin, depth: int, repeat: bool) -> None:
        """Code given to an interpreter is not read, so code that mentions git, .git or .rt is refused."""
        flags = _interpreter(name) or ""
        awk = not flags and name.rstrip("0123456789.") in ("awk", "gawk", "mawk", "nawk")
        args = argv[1:]
        codes: list[Word] = []
        operands: list[Word] = []
        i = 0
        while i < len(args):
            t = args[i].text
            if t == "-m" and i + 1 < len(args) and args[i + 1].text == "rt":
                self.rt([w.text for w in args[i + 2:]])
                return
            takes = t.startswith("-") and len(t) > 1 and not t.startswith("--") and t[1] in flags
            if takes or t in ("--eval", "--print", "-Command", "-EncodedCommand") or (name == "deno" and t == "eval"):
                if takes and len(t) > 2:
                    codes.append(_word(t[2:]))
                elif i + 1 < len(args):
                    codes.append(args[i + 1])
                    i += 1
            elif awk and t in ("-f", "-v", "-F"):
                operands.append(_word("-f")) if t == "-f" else None
                i += 1
            elif not t.startswith("-") or t == "-":
                operands.append(args[i])
            i += 1
        if awk and operands and operands[0].text != "-f":
            codes.append(operands[0])
        for code in codes:
            if _MENTIONS.search(code.text) or (not code.static and self.sight):
                self.refuse(f"rt: `{name}` runs code that mentions git, .git or .rt, which rt cannot read; run git "
                            f"itself in the shell")
                return
        if not codes and (not operands or operands[0].text == "-"):
            self.stdin(name, stdin, depth, repeat, shell=False)
        self.program(name, argv, depth, repeat)

    def joined(self, name: str, args: list[Word], depth: int, repeat: bool) -> None:
        """`eval`, `watch`, `trap`: their arguments are joined into one shell command."""
        if any(DYN in w.pat for w in args):
            self.refuse(f"rt: `{name}` runs text only known when it runs; run the commands themselves")
            return
        self.text(" ".join(w.text for w in args), depth + 1, repeat)

    def sed(self, argv: list[Word]) -> None:
        scripts = [w.text for w in argv[1:] if not w.text.startswith("-")][:1]
        if any(_MENTIONS.search(s) and re.search(r"(^|[;\n/])\s*e\b|/e\b", s) for s in scripts):
            self.refuse("rt: this sed script runs a command that mentions git; run git itself in the shell")
        self.program("sed", argv, 0, False)

    # ------------------------------------------------------------ files
    def at_home(self) -> bool:
        """Whether git runs in the task's repository as far as this command shows (a `cd` out of it, or to
        a folder only known when it runs, and it may not)."""
        if self.root is None:
            return True
        return self.cwd is not None and (os.path.realpath(self.cwd) + os.sep).startswith(os.path.realpath(self.root) + os.sep)

    def written(self, w: Word, by: str) -> None:
        """`w` names a file the command writes (or may write): never in `.git/` or `.rt/`."""
        store = _store_path(w, self.dotglob)
        if store:
            what = "git's own store" if store == ".git" else "rt's own store" if store == ".rt" else "git's configuration"
            self.refuse(f"rt: {by} would write to {store} ({what}) through {_shown(w)}; git and rt commands "
                        f"change it, nothing else does")
        elif not w.static and DYN in w.pat and self.store_sight:
            self.refuse(f"rt: {by} writes to {_shown(w)}, only known when it runs, while .git or .rt is in sight; "
                        f"name the file plainly")

    def deleted(self, name: str, w: Word) -> None:
        """Refuse removing the repository, or a folder that holds it."""
        if not self.root or DYN in w.pat:
            return
        for pat in expand_braces(w.pat):
            parts = _absolute_parts(pat, self.cwd)
            if parts is not None and _may_hold(parts, self.root, self.dotglob):
                self.refuse(f"rt: `{name} {w.text}` would remove the repository with its .git/ and .rt/; remove the "
                            f"files inside it by name")
                return

    def change_dir(self, args: list[Word]) -> None:
        target = next((w for w in args if not w.text.startswith("-")), None)
        if target is None:
            self.cwd = None
            return
        if _store_path(target, self.dotglob) in (".git", ".rt") or not target.static and self.store_sight:
            self.refuse(f"rt: `cd {_shown(target)[1:-1]}` may enter git's or rt's own store, where the next "
                        f"commands would change it; stay in the working tree and name folders plainly")
        searched = not target.text.startswith(("/", ".", "~")) and ("CDPATH" in self.command_text or os.environ.get("CDPATH"))
        if target.static and self.cwd and not searched:   # with CDPATH, `cd name` may land in any folder it lists
            self.cwd = os.path.normpath(os.path.join(self.cwd, os.path.expanduser(target.text)))
        else:
            self.cwd = None

    def find(self, argv: list[Word], depth: int, repeat: bool) -> None:
        args = argv[1:]
        i = 0
        while i < len(args) and args[i].text in ("-H", "-L", "-P", "-D") or i < len(args) and args[i].text.startswith("-O"):
            i += 2 if args[i].text == "-D" else 1
        starts = []
        while i < len(args) and not args[i].text.startswith(("-", "(", "!", ")", ",")):
            starts.append(args[i])
            i += 1
        expr = args[i:]
        texts = [w.text for w in expr]
        reaches = self.find_reaches(starts or [_word(".")], texts)
        j = 0
        while j < len(expr):
            t = texts[j]
            if t == "-delete" and reaches:
                self.refuse("rt: `find -delete` here also reaches .git/ and .rt/; narrow it with `-name '<pattern>'` "
                            "or `-not -path './.git/*' -not -path './.rt/*'`")
            elif t in ("-fprint", "-fprint0", "-fprintf", "-fls") and j + 1 < len(expr):
                self.written(expr[j + 1], "`find`")
            elif t in ("-exec", "-execdir", "-ok", "-okdir"):
                end = j + 1
                while end < len(expr) and texts[end] not in (";", "+"):
                    end += 1
                inner = [_placeholder() if w.text == "{}" else w for w in expr[j + 1:end]]
                if inner:
                    prog = inner[0].text.rsplit("/", 1)[-1]
                    if reaches and prog not in READS and prog not in ("git", "git.exe") and prog not in DATA:
                        self.refuse(f"rt: `find -exec {prog}` here also reaches .git/ and .rt/; narrow it with "
                                    f"`-name '<pattern>'` or `-not -path './.git/*' -not -path './.rt/*'`")
                    self.run(inner, None, depth + 1, True)
                j = end
            j += 1

    def lists_stores(self, cmd: _Simple) -> bool:
        """Whether a command's output (paths) may include `.git/` or `.rt/` ones: `find` over them, `ls -a`,
        `git ls-files --others` with ignored files."""
        words = cmd.words
        name = words[0].text.rsplit("/", 1)[-1] if words else ""
        flags = [w.text for w in words[1:] if w.text.startswith("-")]
        if name == "find":
            args = words[1:]
            k = next((j for j, w in enumerate(args) if w.text.startswith(("-", "(", "!"))), len(args))
            return self.find_reaches(args[:k] or [_word(".")], [w.text for w in args[k:]])
        if name == "ls":
            return any(f.startswith("-") and not f.startswith("--") and ("a" in f or "A" in f) for f in flags) or \
                any(f in ("--all", "--almost-all") for f in flags)
        if name == "git" and [w.text for w in words[1:2]] == ["ls-files"]:
            return any(f in ("-o", "--others") for f in flags) and not any(
                f.startswith(("--exclude", "-x", "-X")) for f in flags)
        return False

    def find_reaches(self, starts: list[Word], expr: list[str]) -> bool:
        """Whether the files `find` visits may include `.git/` or `.rt/` ones."""
        if _find_excludes(expr):
            return False
        for w in starts:
            if _store_path(w, self.dotglob) or DYN in w.pat:
                return True
            parts = _absolute_parts(w.pat, self.cwd)
            if parts is None or self.root is None or _may_hold(parts, self.root, self.dotglob):
                return True
        return False

    # ------------------------------------------------------------ variables
    def assign(self, w: Word) -> None:
        name, _, value = w.text.partition("=")
        name = name.rstrip("+").split("[", 1)[0]
        self.relocated |= name in RELOCATE
        if not self.sight:
            return
        if name in ("PAGER", "GIT_PAGER") and w.static and value.strip() in SAFE_PAGERS:
            return
        if name.startswith("GIT_TRACE") and w.static and value in ("", "0", "1", "2", "true", "false"):
            return
        if name in RISKY_ENV or (name.startswith("GIT_") and name not in SAFE_GIT_ENV) or name.startswith("BASH_FUNC"):
            self.refuse(f"rt: setting {name} changes which program git runs or which configuration it reads; run "
                        f"git without it")

    # ------------------------------------------------------------ git
    def git(self, args: list[Word], depth: int, repeat: bool) -> None:
        i, elsewhere = 0, False  # elsewhere: -C or --git-dir, where another repository's aliases apply
        while i < len(args):
            w = args[i]
            t = w.text
            if gitrules._may_be_option(w):
                self.refuse(f"rt: `git {_shown(w)}` is only known when it runs; write the git command out in plain "
                            f"words")
                return
            if not t.startswith("-"):
                break
            if t in PRINTS:
                return
            if t in GLOBAL_FLAGS or t.startswith(("--git-dir=", "--work-tree=", "--namespace=", "--attr-source=",
                                                  "--list-cmds=")):
                elsewhere = elsewhere or t.startswith(("--git-dir=", "--work-tree="))
                if t.startswith("--work-tree="):
                    self.written(w, "`git --work-tree`")
                i += 1
            elif t in ("-C", "--git-dir", "--work-tree", "--namespace", "--attr-source"):
                elsewhere = elsewhere or t != "--namespace"
                if t == "--work-tree" and i + 1 < len(args):
                    self.written(args[i + 1], "`git --work-tree`")
                i += 2
            elif t == "-c" and i + 1 < len(args):
                if not self.setting(args[i + 1]):
                    return
                i += 2
            else:
                why = ("it reads a setting from a variable" if t.startswith("--config-env") else
                       "it makes git run programs from another folder" if t.startswith("--exec-path") else
                       "rt does not know it")
                self.refuse(f"rt blocks git's option `{t}`: {why}; run git without it")
                return
        if i >= len(args):
            return
        sub_word, rest = args[i], args[i + 1:]
        if not sub_word.static:
            self.refuse(f"rt: the git command {_shown(sub_word)} is only known when it runs; name it plainly")
            return
        sub = sub_word.text
        if [w.text for w in rest[:1]] in (["-h"], ["--help"]) and sub in BUILTINS:
            return
        try:
            parsed = gitrules.judge(sub, rest, lambda words: self.joined("git submodule foreach", words, depth, True))
        except Unknown:
            self.unknown(sub, rest, elsewhere, depth, repeat)
            return
        except Refused as e:
            reason = e.reason
            if any(why in reason for why in (PUBLISH, HISTORY, DESTROY)):
                reason += TAIL
            sole = e.op and not (repeat or elsewhere or self.relocated) and self.at_home()
            self.refuse(reason, op=e.op if sole else "")
            return
        if parsed is not None:
            for name, value, negated in parsed.options:
                if name in gitrules.WRITES and value is not None and not negated:
                    self.written(_word(value), f"`git {sub} --{name}`")
            if sub in ("init", "clone") and parsed.positional:
                self.written(parsed.positional[-1], f"`git {sub}`")
            elif sub == "worktree" and parsed.words()[:1] == ["add"] and len(parsed.positional) > 1:
                self.written(parsed.positional[1], "`git worktree add`")

    def setting(self, w: Word) -> bool:
        """`git -c key=value`: only settings that change how git prints."""
        key, _, value = w.text.partition("=")
        key = key.lower()
        ok = w.static and any(key == s or (s.endswith(".") and key.startswith(s)) for s in SAFE_CONFIG)
        if ok and key.startswith("pager.") and value.lower() not in ("false", "0", "no", "off", ""):
            ok = False
        if not ok:
            self.refuse(f"rt blocks `git -c {key}`: rt lets through only settings that change how git prints "
                        f"(color, log, diff, status ...); others can make git run a program or read other settings")
        return ok

    def unknown(self, sub: str, rest: list[Word], elsewhere: bool, depth: int, repeat: bool) -> None:
        """A subcommand git does not have: an alias or an external `git-<sub>`. The alias (looked up in the
        session's repository) names what to run instead; what it stands for is refused as itself."""
        if sub in BUILTINS:
            why = WHY_NOT.get(sub, "rt lets through only the git commands it knows to be read-only or safe")
            self.refuse(f"rt blocks `git {sub}`: {why}" + (TAIL if why in (PUBLISH, HISTORY, DESTROY) else ""))
            return
        alias = None if elsewhere or self.alias_of is None else self.alias_of(sub)
        if not alias:
            self.refuse(f"rt: `git {sub}` is not a git command rt knows; it may be an alias or an external command, "
                        f"which rt cannot read. Run the git command it stands for, or approve it only if you know "
                        f"what it does", "ask")
            return
        if alias.startswith("!"):
            self.refuse(f"rt: `git {sub}` is an alias that runs the shell command `{alias[1:]}`; run what you mean "
                        f"plainly")
            return
        inner = _Reader(alias, self.cwd, self.root, None)
        try:
            words = [w for w in parse(alias).tokens if isinstance(w, Word)]
        except ValueError:
            words = []
        inner.git(words + rest, depth + 1, repeat)
        refused = [v for v in inner.found if v.decision == "deny"]
        if refused or not words:
            why = refused[0].reason if refused else "rt cannot read it"
            self.refuse(f"rt: `git {sub}` is an alias for `{alias}`; {why}")
        else:
            self.refuse(f"rt: `git {sub}` is an alias for `{alias}`, which rt reads only when it is written out; run "
                        f"`git {alias}` instead", "ask")

    # ------------------------------------------------------------ rt itself
    def rt(self, args: list[str]) -> None:
        if [a for a in args if not a.startswith("-")][:1] == ["hook"]:
            self.refuse("rt: `rt hook` answers Claude Code's own hooks; run from the shell, its payload would be the "
                        "agent's word for what the user typed (a /commit, a /go) or for a tool call. Refused")
            return
        if args[:1] == ["start"] and "--force" in args:
            self.refuse("rt: `rt start --force` sets the active task aside, with its approved scope; that is the "
                        "user's decision", "ask")
        words = [a for a in args if not a.startswith("-")]
        if words[:2] == ["scope", "add"]:
            self.refuse("rt: extending the approved scope is the user's decision; approve "
                        f"`rt scope add {' '.join(words[2:])}` only if you agreed to it", "ask")
        elif words[:1] == ["allow-fix"]:
            self.refuse("rt: more fix attempts after the limit are the user's decision; approve `rt allow-fix` only "
                        "if you agreed to it", "ask")
        elif words[:2] in (["intent", "off"], ["intent", "on"]):
            self.refuse("rt: switching intent mode is the user's decision (it decides when edits are allowed); "
                        "approve it only if the user asked for it", "ask")
        elif words[:1] == ["plan"]:
            self.refuse("rt: `rt plan` on a task that already has a scope replaces the approved scope, which is the "
                        "user's decision; approve it only if you agreed", "plan")


def _hook_client(path: str) -> bool:
    """Whether `path` runs rt's hook client: the plugin's `hooks/rt-hook`, or `rt/claude/hook.sh` as install writes it."""
    return path.rsplit("/", 1)[-1] == "rt-hook" or path.endswith("claude/hook.sh")


# ---------------------------------------------------------------- wrappers: the program they run

def _skip(argv: list[Word], values: str, longs: tuple[str, ...] = (), positionals: int = 0) -> list[Word] | None:
    """The command a wrapper runs: its options skipped (`values` are short options taking a value, `longs`
    long ones taking a separate value), then `positionals` words of its own (a duration, a file)."""
    i = 1
    while i < len(argv):
        t = argv[i].text
        if t == "--":
            i += 1
            break
        if not t.startswith("-") or t == "-":
            break
        if t.startswith("--"):
            i += 2 if t in longs else 1
            continue
        letters = t[1:]
        k = next((n for n, c in enumerate(letters) if c in values), None)
        i += 2 if k is not None and k == len(letters) - 1 else 1
    i += positionals
    return argv[i:] if i < len(argv) else None


def _w_plain(values: str = "", longs: tuple[str, ...] = (), positionals: int = 0):
    def wrapper(reader: _Reader, argv, stdin, repeat):
        return _skip(argv, values, longs, positionals), stdin, repeat
    return wrapper


def _w_env(reader: _Reader, argv, stdin, repeat):
    i = 1
    while i < len(argv):
        w = argv[i]
        t = w.text
        if t in ("-C", "--chdir") or t.startswith("--chdir="):
            reader.relocated = True   # git in another folder: never the one commit intent mode allows
        if t in ("-u", "-C", "--unset", "--chdir"):
            i += 2
        elif t in ("-S", "--split-string") or t.startswith(("-S", "--split-string=")):
            text = t.partition("=")[2] if t.startswith("--") else (t[2:] or (argv[i + 1].text if i + 1 < len(argv) else ""))
            step = 1 if t.startswith("--") or len(t) > 2 else 2
            rest = " ".join(x.text for x in argv[i + step:])
            reader.text(f"{text} {rest}", 1, repeat)
            return None, stdin, repeat
        elif t.startswith("-") and t != "-":
            i += 1
        elif _ASSIGNMENT.match(t):
            reader.assign(w)
            i += 1
        else:
            return argv[i:], stdin, repeat
    return None, stdin, repeat


def _w_command(reader: _Reader, argv, stdin, repeat):
    if any(w.text in ("-v", "-V") for w in argv[1:2]):
        return None, stdin, repeat  # a look-up, runs nothing
    return _skip(argv, ""), stdin, repeat


def _w_sudo(reader: _Reader, argv, stdin, repeat):
    reader.relocated = True   # as another user (its HOME, its git config, files it owns): never the one commit
    if any(w.text in ("-e", "--edit") for w in argv[1:]):
        for w in argv[1:]:
            if not w.text.startswith("-"):
                reader.written(w, "`sudo -e`")
        return None, stdin, repeat
    return _skip(argv, "ugChprtTUD", ("--user", "--group", "--host", "--prompt", "--role", "--type",
                                        "--close-from", "--chdir", "--other-user")), stdin, repeat


def _w_time(reader: _Reader, argv, stdin, repeat):
    for k, w in enumerate(argv[1:-1], 1):
        if w.text in ("-o", "--output"):
            reader.written(argv[k + 1], "`time -o`")
    return _skip(argv, "fo", ("--format", "--output")), stdin, repeat


def _w_xargs(reader: _Reader, argv, stdin, repeat):
    """xargs runs its command with words from stdin added (or put where `-I` says): words only known then."""
    rest = _skip(argv, "IadELnPs", ("--arg-file", "--delimiter", "--eof", "--max-lines", "--max-args",
                                    "--max-procs", "--max-chars", "--process-slot-var")) or []
    options = argv[1:len(argv) - len(rest)]
    replace = None
    for k, w in enumerate(options):
        t = w.text
        if t == "-I" and k + 1 < len(options):
            replace = options[k + 1].text
        elif t.startswith("--replace"):
            replace = t.partition("=")[2] or "{}"
        elif t.startswith(("-i", "-I")) and not t.startswith("--"):
            replace = t[2:] or "{}"
    inner = rest or [_word("echo")]
    program = inner[0].text.rsplit("/", 1)[-1]
    if reader.upstream and program not in READS and program not in DATA and reader.lists_stores(reader.upstream):
        reader.refuse(f"rt: `xargs {program}` is given paths that include .git/ or .rt/ ones; narrow what is "
                      f"listed (`-name '<pattern>'`, `-not -path './.git/*'`)")
    if replace:
        inner = [_placeholder(w.text.startswith(replace)) if replace in w.text else w for w in inner]
    else:
        inner = [*inner, _placeholder(False)]
    return inner, None, True


def _w_other_user(options: str = "", long: tuple[str, ...] = (), operands: int = 0):
    """doas and chroot: git as another user or in another root, so never the one commit intent mode allows."""
    plain = _w_plain(options, long, operands)

    def wrapper(reader: _Reader, argv, stdin, repeat):
        reader.relocated = True
        return plain(reader, argv, stdin, repeat)
    return wrapper


def _w_exec(reader: _Reader, argv, stdin, repeat):
    return _skip(argv, "a"), stdin, repeat


WRAPPERS = {
    "env": _w_env, "command": _w_command, "builtin": _w_plain(), "exec": _w_exec, "nohup": _w_plain(),
    "sudo": _w_sudo, "doas": _w_other_user("uC"), "nice": _w_plain("n", ("--adjustment",)), "time": _w_time,
    "timeout": _w_plain("sk", ("--signal", "--kill-after"), 1), "stdbuf": _w_plain("ioe"),
    "ionice": _w_plain("cnp"), "setsid": _w_plain(), "chronic": _w_plain(), "unbuffer": _w_plain(),
    "xargs": _w_xargs, "chrt": _w_plain("", (), 1), "taskset": _w_plain("", (), 1), "chroot": _w_other_user("", (), 1),
    "fakeroot": _w_plain(), "catchsegv": _w_plain(), "dbus-run-session": _w_plain(), "caffeinate": _w_plain(),
    "busybox": _w_plain(),
}
"""Programs that run the command after their own options (and `positionals` words) with the same stdin."""


# ---------------------------------------------------------------- words and paths

def _word(text: str) -> Word:
    w = Word()
    w.pat = "".join("\\" + c for c in text)
    return w


def _placeholder(path_like: bool = True) -> Word:
    """A word filled in when the command runs: a path found by `find` (never an option), or stdin words."""
    w = Word()
    w.pat = "\\./" + DYN if path_like else DYN
    w.split = not path_like
    return w


def _braced(w: Word) -> list[Word]:
    if "{" not in w.pat:
        return [w]
    pats = expand_braces(w.pat)
    if len(pats) == 1 and pats[0] == w.pat:
        return [w]
    out = []
    for pat in pats:
        v = Word()
        v.pat, v.split, v.ansi, v.subs = pat, w.split or pat == DYN, w.ansi, w.subs
        out.append(v)
    return out


def _shown(w: Word) -> str:
    text = w.text.replace(DYN, "$…")
    return "`" + (text if len(text) <= 40 else text[:37] + "...") + "`"


def _interpreter(name: str) -> str | None:
    base = name.rstrip("0123456789.").removesuffix("-")
    return INTERPRETERS.get(base)


def _operands(args: list[Word], values: str) -> list[Word]:
    return _skip([_word("x"), *args], values) or []


def _cp_targets(args: list[Word]) -> list[Word]:
    """What `cp` writes: its destination (the last operand, or `-t`'s folder), and a copy named like a
    source whose last part is `.git` or `.rt` (`cp -r x/.git .` writes `./.git`)."""
    operands = [w for w in args if not w.text.startswith("-")]
    for k, w in enumerate(args):
        if w.text in ("-t", "--target-directory") and k + 1 < len(args):
            return [args[k + 1], *(v for v in operands if v is not args[k + 1] and _last_part(v))]
        if w.text.startswith("--target-directory="):
            return [w, *(v for v in operands if _last_part(v))]
    return [*(v for v in operands[:-1] if _last_part(v)), *operands[-1:]]


def _last_part(w: Word) -> Word | None:
    """The word's last path part as a word of its own."""
    parts = _split_pat(w.pat.rstrip("/"))
    v = Word()
    v.pat = parts[-1]
    return v if _store_path(v, True) else None


def _names_git_program(w: Word) -> bool:
    """An absolute path to an installed git (`/usr/bin/git`, `.../libexec/git-core/git`)."""
    text = w.text
    return w.static and text.startswith("/") and text.rsplit("/", 1)[-1] in ("git", "git.exe") and (
        "/bin/" in text or "/git-core/" in text)


MAX_SCRIPT = 256 * 1024
"""A shell script file larger than this is not read (and so refused when run)."""


def _script_text(path: str, cwd: str | None) -> str | None:
    """The text of a shell script file on disk ("" when there is none to read), None when unreadable."""
    full = os.path.join(cwd or "", os.path.expanduser(path))
    if not os.path.isfile(full):
        return ""
    try:
        if os.path.getsize(full) > MAX_SCRIPT:
            return None
        with open(full, "rb") as f:
            return f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _shell_script(path: str, cwd: str | None) -> bool:
    """Whether running `path` directly runs a shell script: `#!` naming a shell, or no `#!` (bash runs it)."""
    full = os.path.join(cwd or "", os.path.expanduser(path))
    try:
        with open(full, "rb") as f:
            head = f.read(128)
    except OSError:
        return False
    if not head.startswith(b"#!"):
        return b"\0" not in head
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    names = [w.rsplit("/", 1)[-1] for w in words[:2]]
    return bool(names) and (names[0] in SHELLS or names[0] == "env" and len(names) > 1 and names[1] in SHELLS)


def _printed(argv: list[Word], stdin) -> str | None:
    """What `echo`, `printf`, `cat` or `tee` print, when it is static text; else None."""
    if not argv:
        return None
    name = argv[0].text.rsplit("/", 1)[-1]
    if any(not w.static for w in argv[1:]):
        return None
    if name == "echo":
        return " ".join(w.text for w in argv[1:] if w.text not in ("-e", "-n")) + "\n"
    if name == "printf":
        return "".join(w.text for w in argv[1:]).replace("\\n", "\n")
    if name in ("cat", "tee") and isinstance(stdin, Word) and len(argv) == 1 and stdin.static:
        return stdin.heredoc if stdin.heredoc is not None else stdin.text + "\n"
    return None


def _could_be_git(w: Word) -> bool:
    if DYN in w.pat:
        return False
    last = _split_pat(w.pat)[-1]
    return any(_component_matches(p, name, False) for p in expand_braces(last) for name in ("git", "git.exe"))


def _split_pat(pat: str) -> list[str]:
    """A word pattern cut at its bare slashes."""
    parts, cur, i = [], [], 0
    while i < len(pat):
        c = pat[i]
        if c == "\\" and i + 1 < len(pat):
            if pat[i + 1] == "/":
                parts.append("".join(cur))
                cur = []
            else:
                cur.append(pat[i:i + 2])
            i += 2
            continue
        if c == "/":
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return parts


_COMPONENT_CACHE: dict[tuple[str, bool], re.Pattern] = {}


def _component_matches(pat: str, name: str, dotglob: bool) -> bool:
    """Whether one path component pattern (bash glob, escapes kept) can match `name`."""
    if find_bare(pat, "*?[(" + DYN) == -1:
        return unescape(pat) == name
    key = (pat, dotglob)
    rx = _COMPONENT_CACHE.get(key)
    if rx is None:
        rx = re.compile(_glob_regex(pat), re.S)
        _COMPONENT_CACHE[key] = rx
    if name.startswith(".") and not dotglob and pat[:1] != DYN and unescape(pat[:2] if pat.startswith("\\") else pat[:1]) != ".":
        return False  # a glob matches a leading dot only when it spells it (a variable may hold one)
    return rx.fullmatch(name) is not None


def _glob_regex(pat: str) -> str:
    out, i, n = [], 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "\\" and i + 1 < n:
            out.append(re.escape(pat[i + 1]))
            i += 2
        elif c == "*" or c == DYN:
            out.append(".*")
            i += 1
        elif c == "?":
            out.append(".")
            i += 1
        elif c == "[":
            end = pat.find("]", i + 2)
            if end == -1:
                out.append(re.escape(c))
                i += 1
                continue
            body = unescape(pat[i + 1:end])
            neg = body[:1] in ("!", "^")
            body = body[1:] if neg else body
            out.append("[" + ("^" if neg else "") + body.replace("\\", "\\\\") + "]")
            i = end + 1
        elif c in "@+!" and pat[i + 1:i + 2] == "(":   # extglob's @(...) +(...) !(...): any text, to be safe
            i += 1
        elif c in "()|":
            out.append(".*" if c == "(" else "")
            i = pat.find(")", i) + 1 if c == "(" and pat.find(")", i) != -1 else i + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _store_path(w: Word, dotglob: bool) -> str:
    """`.git`, `.rt` or `git config` when the word (or its value after `=`) may name a path in them."""
    for pat in expand_braces(w.pat):
        for candidate in (pat, _after_equals(pat)):
            if not candidate:
                continue
            parts = _split_pat(candidate)
            for k, part in enumerate(parts):
                if DYN in part and not part.replace(DYN, ""):
                    continue
                if _component_matches(part, ".git", dotglob) or _component_matches(part.lower(), ".git", dotglob):
                    return ".git"
                if _component_matches(part, ".rt", dotglob):
                    return ".rt"
                if unescape(part) == ".gitconfig" or (unescape(part) == "git" and k and unescape(parts[k - 1]) == ".config"):
                    return "git config"
    return ""


def _after_equals(pat: str) -> str:
    k = find_bare(pat, "=")
    return pat[k + 1:] if k != -1 else ""


def _absolute_parts(pat: str, cwd: str | None) -> list[str] | None:
    """The components of a path word made absolute (patterns kept), or None when the folder is unknown."""
    parts = _split_pat(pat)
    if parts[0] == "":
        base: list[str] = []
        parts = parts[1:]
    elif unescape(parts[0]) == "~" and parts[0] == "~":
        base = [p for p in os.path.expanduser("~").split("/") if p]
        parts = parts[1:]
    else:
        if not cwd:
            return None
        base = [p for p in cwd.split("/") if p]
    out = list(base)
    for p in parts:
        if p in ("", ".", "\\."):
            continue
        if p in ("..", "\\.\\."):
            if out:
                out.pop()
            continue
        out.append(p)
    return out


def _may_hold(parts: list[str], root: str, dotglob: bool) -> bool:
    """Whether the path (components, possibly patterns) can be the repository root or a folder above it."""
    root_parts = [p for p in root.split("/") if p]
    if len(parts) > len(root_parts):
        return False
    return all(_component_matches(p, r, dotglob) for p, r in zip(parts, root_parts))


def _find_excludes(expr: list[str]) -> bool:
    """A find expression that stays out of `.git/` and `.rt/`: a `-name` test matching none of their files
    (and no `-o`), or both folders pruned or excluded by path."""
    if not any(t in ("-o", "-or", ",") for t in expr):
        names = [expr[k + 1] for k, t in enumerate(expr[:-1]) if t in ("-name", "-iname")
                 and (k == 0 or expr[k - 1] not in ("!", "-not"))]
        if names and all(not any(_component_matches(_escape_glob(n), s, True) for s in STORE_NAMES) for n in names):
            return True
    excluded = set()
    for k, t in enumerate(expr[:-1]):
        if t in ("-path", "-wholename", "-ipath", "-name", "-iname"):
            pattern = expr[k + 1]
            negated = k > 0 and expr[k - 1] in ("!", "-not")
            pruned = k + 2 < len(expr) and expr[k + 2] == "-prune"
            if negated or pruned:
                for store in (".git", ".rt"):
                    if store in pattern:
                        excluded.add(store)
    return excluded == {".git", ".rt"}


def _escape_glob(text: str) -> str:
    """A find pattern (already unquoted) as a word pattern: its glob characters bare, the rest literal."""
    return "".join(c if c in "*?[]!" else "\\" + c for c in text)

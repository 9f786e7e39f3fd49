"""Which git commands may run: an allow-list of git subcommands and their options, with long options
resolved as git resolves them (an exact name first, then a unique abbreviation: `reset --har` is
`--hard`), and the reason for everything else.

Options are written `[!][s,]long[=|?]`: `s` a short letter, `=` takes a value (attached or the next
word), `?` an optional value (attached only), `!` known to git but refused. Commands whose options go
through git's revision and diff parser (log, show, diff ...) take those options only by their exact
names, as git does (`git log --onel` is an error in git), so FAMILY lists them without abbreviations.
"""
from __future__ import annotations

from rt.claude.shell import DYN, Word

PUBLISH = "it publishes work, which is the user's decision"
HISTORY = "it writes or rewrites the branch history, which is the user's decision"
DESTROY = "it throws away work that may not be saved anywhere else"
SWITCH = "it rewrites files under the task (switching branches or restoring paths)"
CONFIG = "it changes git's configuration, where a setting can make git run any program"
INTERACTIVE = "it waits for an editor or a terminal, which this session does not have"
RUNS = "it makes git run a program named in the command"
HOUSEKEEPING = "it rewrites or prunes git's own store, which is the user's decision"
UNSTAGE = "with a revision it moves the branch; to unstage files write `git reset -- <paths>`"

FAMILY_LONG = frozenset("""
abbrev abbrev-commit add-header after all all-match alternate-refs always ancestry-path anchored attach author
author-date-order base basic-regexp before binary bisect bisect-all bisect-vars boundary branches break-rewrites
cached cc check cherry cherry-mark cherry-pick children clear-decorations color color-moved color-moved-ws
color-words combined-all-paths commit-header committer compact-summary count cover-from-description cover-letter
creation-factor cumulative date date-order decorate decorate-refs decorate-refs-exclude default default-prefix
dense diff-algorithm diff-filter diff-merges dirstat dirstat-by-file disk-usage do-walk dst-prefix dual-color
early-output email encode-email-headers encoding exclude exclude-first-parent-only exclude-hidden
exclude-promisor-objects exit-code expand-tabs ext-diff extended-regexp filter filter-print-omitted
filter-provided-objects find-copies find-copies-harder find-object find-renames first-parent fixed-strings follow
format from full-diff full-history full-index function-context glob graph grep grep-reflog group header histogram
ignore-all-space ignore-blank-lines ignore-cr-at-eol ignore-if-in-upstream ignore-matching-lines ignore-missing
ignore-space-at-eol ignore-space-change ignore-submodules in-commit-order in-reply-to indent-heuristic
indexed-objects inline inter-hunk-context interdiff invert-grep irreversible-delete ita-invisible-in-index
ita-visible-in-index keep-subject left-only left-right line-prefix log-size mailmap max-age max-count max-parents
merge merge-base merges min-age min-parents minimal missing name-only name-status no-index notes numbered
numbered-files numstat object-names objects objects-edge objects-edge-aggressive oneline ours output=
output-indicator-context output-indicator-new output-indicator-old parents patch patch-with-raw patch-with-stat
patience perl-regexp pickaxe-all pickaxe-regex pretty progress quiet range-diff raw reflog regexp-ignore-case
relative relative-date remerge-diff remotes remove-empty rename-empty reroll-count reverse rfc right-only root
rotate-to shortstat show-linear-break show-notes show-notes-by-default show-pulls show-signature signature
signature-file signoff simplify-by-decoration simplify-merges since since-as-filter single-worktree skip skip-to
source sparse src-prefix staged standard-notes start-number stat stat-count stat-graph-width stat-name-width
stat-width stdin stdout subject-prefix submodule suffix summary tags text textconv theirs thread timestamp to
topo-order unified unpacked until use-mailmap verify-objects walk-reflogs word-diff word-diff-regex
ws-error-highlight zero-commit base-commit track-renames no-track-renames
""".split())
"""Long options of git's revision walk and diff output (revision.c, diff.c, builtin/log.c, builtin/diff.c,
builtin/rev-list.c, range-diff, git 2.39 to 2.5x). None writes or runs anything but `--output`, whose
target is checked like any written path (the rest run only programs the user configured: textconv,
external diff). Each also has its `--no-` form."""

FAMILY_SHORT = "BCDEFGILMNOPRSUWXabceghiklmnopqrstuvwz"
FAMILY_SHORT_VALUE = "BCMXnSGOLUIl"
"""Short options of the same parsers; these take a value (`-n5`, `-S foo`, `-M50%`)."""


class Spec:
    """One git subcommand's options: `forms` maps every accepted spelling (`dry-run`, `no-dry-run`) to
    (canonical name, negated); `short` maps a letter to its canonical name; `values` the canonical names
    taking a value (`=`) or an optional attached one (`?`); `refused` the ones rt refuses. The option text
    is read on first use: a hook judges one or two subcommands, not all of them."""
    __slots__ = ("text", "family", "abbrev", "_tables")

    def __init__(self, options: str, family: bool = False, abbrev: bool = True):
        self.text, self.family, self.abbrev = options, family, abbrev
        self._tables: tuple | None = None

    @property
    def forms(self) -> dict[str, tuple[str, bool]]:
        return self._read()[0]

    @property
    def short(self) -> dict[str, str]:
        return self._read()[1]

    @property
    def values(self) -> dict[str, str]:
        return self._read()[2]

    @property
    def refused(self) -> set[str]:
        return self._read()[3]

    def _read(self) -> tuple:
        if self._tables is None:
            forms: dict[str, tuple[str, bool]] = {}
            short: dict[str, str] = {}
            values: dict[str, str] = {}
            refused: set[str] = set()
            for token in self.text.split():
                refuse = token.startswith("!")
                token = token.lstrip("!")
                kind = token[-1] if token[-1] in "=?" else ""
                token = token.rstrip("=?")
                letter, _, long = token.rpartition(",") if "," in token else ("", "", token)
                if len(long) == 1 and not letter:
                    letter, long = long, ""
                name = long or letter
                if letter:
                    short[letter] = name
                if long:
                    forms[long] = (name, False)
                    forms.setdefault(long[3:] if long.startswith("no-") else "no-" + long, (name, True))
                if kind:
                    values[name] = kind
                if refuse:
                    refused.add(name)
            self._tables = (forms, short, values, refused)
        return self._tables


class Parsed:
    """A git command's arguments read against its Spec: options in order (name, value, negated) and
    positional words (`dashdash`: the index where `--` put an end to options)."""
    __slots__ = ("options", "positional", "dashdash", "typed")

    def __init__(self) -> None:
        self.options: list[tuple[str, str | None, bool]] = []
        self.positional: list[Word] = []
        self.dashdash: int | None = None
        self.typed: dict[str, str] = {}  # canonical name -> as written (`--har`)

    def has(self, *names: str) -> bool:
        """Whether any of `names` is in effect (its last mention was not negated)."""
        state: dict[str, bool] = {}
        for name, _, negated in self.options:
            state[name] = not negated
        return any(state.get(n) for n in names)

    def words(self) -> list[str]:
        return [w.text for w in self.positional]


class Refused(Exception):
    """A git command rt does not let through: `reason` says why and what to do instead; `op` names a
    plain commit or push (for the caller that may let exactly one through)."""

    def __init__(self, reason: str, op: str = ""):
        super().__init__(reason)
        self.reason, self.op = reason, op


FAMILY = Spec(" ".join(FAMILY_LONG) + " " + " ".join(c + "=" * (c in FAMILY_SHORT_VALUE) for c in FAMILY_SHORT),
              abbrev=False)
"""The revision and diff options, as one Spec (read on first use)."""


def parse(sub: str, spec: Spec, args: list[Word]) -> Parsed:
    """Read `args` as git would, against `spec` (and the revision/diff family when it has one)."""
    out = Parsed()
    i = 0
    while i < len(args):
        w = args[i]
        text = w.text
        if out.dashdash is not None:
            out.positional.append(w)
            i += 1
            continue
        if _may_be_option(w):
            raise Refused(f"rt: `git {sub}` has an argument only known when it runs ({_shown(w)}), which could be an "
                          f"option; write the git command out in plain words")
        if text in ("--", "--end-of-options"):
            out.dashdash = len(out.positional)
            i += 1
            continue
        if text.startswith("--"):
            name, eq, value = text[2:].partition("=")
            canon, negated = _long(sub, spec, name)
            kind = "" if negated else _values(spec, canon)
            val: str | None = value if eq else None
            if kind == "=" and not eq:
                if i + 1 >= len(args):
                    raise Refused(f"rt: `git {sub} --{name}` lacks its value")
                i += 1
                val = args[i].text
            out.options.append((canon, val, negated))
            out.typed.setdefault(canon, "--" + name)
        elif text.startswith("-") and text != "-":
            j = 1
            while j < len(text):
                letter = text[j]
                if letter.isdigit() and spec.family:
                    out.options.append(("n", text[j:], False))
                    break
                canon = spec.short.get(letter) or (FAMILY.short.get(letter) if spec.family else None)
                if canon is None:
                    raise Refused(f"rt does not know `-{letter}` as an option of `git {sub}`; rt lets through only "
                                  f"the options it knows to be safe")
                kind = _values(spec, canon)
                out.typed.setdefault(canon, "-" + letter)
                if kind and j + 1 < len(text):
                    out.options.append((canon, text[j + 1:], False))
                    break
                if kind == "=":
                    if i + 1 >= len(args):
                        raise Refused(f"rt: `git {sub} -{letter}` lacks its value")
                    i += 1
                    out.options.append((canon, args[i].text, False))
                    break
                out.options.append((canon, None, False))
                j += 1
        else:
            out.positional.append(w)
        i += 1
    for name, _, negated in out.options:
        if name in spec.refused and not negated:
            raise Refused(_option_reason(sub, out.typed[name], name))
    return out


def _may_be_option(w: Word) -> bool:
    """A word only known at run time that could become an option: an unquoted expansion (it splits), or
    one at the start of the word, or one in an option's name (`--$X`, not `--format="$X"`)."""
    if DYN not in w.pat:
        return False
    if w.split or w.pat[0] == DYN:
        return True
    head = w.pat[:w.pat.index(DYN)]
    return head.startswith("-") and "=" not in head


def _values(spec: Spec, canon: str) -> str:
    if canon in spec.values:
        return spec.values[canon]
    return FAMILY.values.get(canon, "") if spec.family else ""


def _long(sub: str, spec: Spec, name: str) -> tuple[str, bool]:
    """The option `--name` stands for: exact, then a unique abbreviation of the command's own options
    (as git's parse-options does), then an exact name of the revision/diff family."""
    if name in spec.forms:
        return spec.forms[name]
    if spec.abbrev and name:
        hits = {spec.forms[f] for f in spec.forms if f.startswith(name)}
        if len(hits) == 1:
            return hits.pop()
        if len(hits) > 1:
            raise Refused(f"rt: `--{name}` is ambiguous for `git {sub}`; spell the option out")
    if spec.family and name in FAMILY.forms:
        return FAMILY.forms[name]
    raise Refused(f"rt does not know `--{name}` as an option of `git {sub}`; rt lets through only the options "
                  f"it knows to be safe")


def _option_reason(sub: str, typed: str, name: str) -> str:
    meant = f"--{name}" if len(name) > 1 else f"-{name}"
    read = "" if typed == meant or not typed.startswith("--") else f" (git reads it as `{meant}`)"
    why = OPTION_REASONS.get(name, DESTROY)
    return f"rt blocks `git {sub} {typed}`{read}: {why}{HINTS.get(sub, '')}"


HINTS = {"clean": "; only `git clean -n`, a dry run, is let through",
         "reset": "; to unstage files write `git reset -- <paths>`",
         "push": "; `git push --dry-run` is let through", "branch": "; listing and creating branches is let through",
         "checkout": "; to start a branch write `git checkout -b <new>`"}


OPTION_REASONS = {
    "force": DESTROY, "hard": DESTROY, "merge": DESTROY, "keep": DESTROY, "soft": HISTORY, "patch": INTERACTIVE,
    "interactive": INTERACTIVE, "edit": INTERACTIVE, "edit-description": INTERACTIVE, "amend": HISTORY,
    "upload-pack": RUNS, "receive-pack": RUNS, "exec": RUNS, "open-files-in-pager": RUNS, "ext-grep": RUNS,
    "template": "it copies hook programs into the repository", "separate-git-dir": "it moves git's store",
    "config": CONFIG, "update-head-ok": DESTROY, "refmap": DESTROY, "prune-tags": DESTROY,
    "stdin": "it takes its arguments from stdin, which rt cannot read", "in-place": "it rewrites a file in place",
    "lost-found": HOUSEKEEPING, "unsafe-paths": "it writes outside the repository",
    "all": "it also stashes and removes ignored files, rt's .rt/ among them",
    "delete": DESTROY, "D": DESTROY, "move": DESTROY, "M": DESTROY, "C": DESTROY, "B": DESTROY,
    "d": DESTROY, "f": DESTROY, "ours": DESTROY, "theirs": DESTROY, "2": DESTROY, "3": DESTROY,
    "detach": SWITCH, "orphan": SWITCH, "discard-changes": DESTROY, "force-create": DESTROY,
    "replace-all": CONFIG, "add": CONFIG, "unset": CONFIG, "unset-all": CONFIG, "rename-section": CONFIG,
    "remove-section": CONFIG, "shared": CONFIG,
}


def _shown(w: Word) -> str:
    text = w.text.replace(DYN, "$…")
    return repr(text if len(text) <= 40 else text[:37] + "...")


# ---------------------------------------------------------------- the commands rt lets through

def _any(sub: str, p: Parsed) -> str | None:
    return None


def _head(p: Parsed) -> list[Word]:
    """Positional words before `--`."""
    return p.positional[:len(p.positional) if p.dashdash is None else p.dashdash]


def _reset(sub: str, p: Parsed) -> str | None:
    """Only `git reset <commit>` moves the branch: one word before `--`, no path after it (with paths,
    the first word names the tree the index entries are taken from)."""
    head, paths = _head(p), p.positional[len(_head(p)):]
    if len(head) == 1 and not paths and not p.has("pathspec-from-file"):
        return None if head[0].static and head[0].text in ("HEAD", "@") else UNSTAGE
    return None


def _clean(sub: str, p: Parsed) -> str | None:
    return None if p.has("dry-run") else DESTROY + " (only `git clean -n`, a dry run, is let through)"


def _checkout(sub: str, p: Parsed) -> str | None:
    if p.has("b"):
        return SWITCH if len(p.positional) > 1 or p.dashdash is not None or p.has("pathspec-from-file") else None
    if p.positional or p.dashdash is not None or any(n not in ("q", "progress") for n, _, _ in p.options):
        return SWITCH + "; to start a branch write `git checkout -b <new>`"
    return None


def _switch(sub: str, p: Parsed) -> str | None:
    if not p.has("create"):
        return SWITCH + "; to start a branch write `git switch -c <new>`"
    return SWITCH if len(p.positional) > 1 or p.dashdash is not None else None


def _restore(sub: str, p: Parsed) -> str | None:
    if p.has("staged") and not p.has("worktree"):
        return None
    return DESTROY + " (only `git restore --staged`, which leaves the files, is let through)"


def _fetch(sub: str, p: Parsed) -> str | None:
    if p.has("multiple"):
        return None  # every positional names a remote
    for w in _head(p)[1:]:
        if not w.static or ":" in w.text or w.text.startswith("+"):
            return "a refspec with `:` or `+` writes into local branches; fetch without one (`git fetch origin`)"
    return None


def _tag(sub: str, p: Parsed) -> str | None:
    if p.has("annotate", "sign", "local-user") and not p.has("message", "file"):
        return INTERACTIVE + "; give the message with -m"
    return None


def _symbolic_ref(sub: str, p: Parsed) -> str | None:
    return None if len(p.positional) <= 1 and not p.has("m") else HISTORY


def _config(sub: str, p: Parsed) -> str | None:
    if p.has("get", "get-all", "get-regexp", "get-urlmatch", "list", "get-color", "get-colorbool"):
        return None
    words = p.words()
    if words[:1] in (["get"], ["list"]):
        return None
    if len(words) == 1 and words[0] not in ("set", "unset", "edit", "rename-section", "remove-section"):
        return None  # `git config user.name` reads it
    return CONFIG + "; reading is let through (`git config --get <name>`, `git config --list`)"


def _verbs(allowed: tuple[str, ...], reason: str, bare: bool = True):
    """A rule for commands named by a verb (`git remote show`): these verbs, or none when `bare`."""
    def rule(sub: str, p: Parsed) -> str | None:
        if not p.positional:
            return None if bare else f"`git {sub}` without a verb " + reason
        verb = p.positional[0]
        if not verb.static:
            return f"`git {sub}` with a verb only known when it runs"
        return None if verb.text in allowed else f"`git {sub} {verb.text}`: {reason}"
    return rule


PLAIN_PUSH = frozenset({"verbose", "quiet", "set-upstream", "porcelain", "progress", "atomic", "follow-tags", "tags",
                        "ipv4", "ipv6", "thin", "push-option", "repo"})
PLAIN_COMMIT = frozenset({"quiet", "verbose", "file", "author", "date", "message", "reuse-message", "fixup", "squash",
                          "reset-author", "trailer", "signoff", "template", "cleanup", "status", "gpg-sign", "all",
                          "include", "only", "allow-empty", "allow-empty-message", "pathspec-from-file",
                          "pathspec-file-nul", "untracked-files", "no-edit"})


def _plain_push(p: Parsed) -> bool:
    """One push that only adds: no force, deletion, mirror or prune, every refspec static and additive."""
    if any(n not in PLAIN_PUSH for n, _, negated in p.options if not negated):
        return False
    return all(w.static and not w.text.startswith(("+", ":")) for w in p.positional)


def _plain_commit(p: Parsed) -> bool:
    """One new commit: no amend, no hooks skipped, nothing interactive."""
    return all(n in PLAIN_COMMIT for n, _, negated in p.options if not negated)


def _commit(sub: str, p: Parsed) -> str | None:
    return None if p.has("dry-run") else HISTORY


def _push(sub: str, p: Parsed) -> str | None:
    return None if p.has("dry-run") else PUBLISH


FAMILY_COMMANDS = ("log", "show", "diff", "whatchanged", "diff-tree", "diff-index", "diff-files", "rev-list",
                   "range-diff", "cherry")

COMMANDS: dict = {
    "status": (Spec("v,verbose s,short b,branch show-stash ahead-behind porcelain? long z,null u,untracked-files? "
                    "ignored? ignore-submodules? column? no-renames M,find-renames? renames"), _any),
    "reset": (Spec("q,quiet no-refresh refresh mixed !soft !hard !merge !keep recurse-submodules? !p,patch "
                   "N,intent-to-add pathspec-from-file= pathspec-file-nul"), _reset),
    "clean": (Spec("q,quiet n,dry-run !f,force !i,interactive d e,exclude= x X"), _clean),
    "branch": (Spec("v,verbose q,quiet t,track? u,set-upstream-to= set-upstream unset-upstream color? r,remotes contains= "
                    "no-contains= abbrev? a,all !d,delete !D !m,move !M c,copy !C l,list show-current create-reflog "
                    "!edit-description !f,force merged= no-merged= column? sort= points-at= i,ignore-case "
                    "recurse-submodules format= omit-empty"), _any),
    "tag": (Spec("l,list n? !d,delete v,verify a,annotate m,message= F,file= !e,edit s,sign cleanup= u,local-user= "
                 "!f,force create-reflog column? contains= no-contains= merged= no-merged= sort= points-at= format= "
                 "color? i,ignore-case omit-empty trailer="), _tag),
    "symbolic-ref": (Spec("q,quiet short no-recurse !d,delete m="), _symbolic_ref),
    "checkout": (Spec("b= !B= l guess overlay q,quiet recurse-submodules? progress !m,merge conflict= !d,detach "
                      "t,track? !f,force !orphan= overwrite-ignore ignore-other-worktrees !2,ours !3,theirs !p,patch "
                      "ignore-skip-worktree-bits pathspec-from-file= pathspec-file-nul"), _checkout),
    "switch": (Spec("c,create= !C,force-create= guess !discard-changes q,quiet recurse-submodules? progress "
                    "!m,merge conflict= !d,detach t,track? !f,force !orphan= overwrite-ignore "
                    "ignore-other-worktrees"), _switch),
    "restore": (Spec("s,source= S,staged W,worktree ignore-unmerged overlay q,quiet recurse-submodules? progress "
                     "!m,merge conflict= !2,ours !3,theirs !p,patch ignore-skip-worktree-bits pathspec-from-file= "
                     "pathspec-file-nul"), _restore),
    "fetch": (Spec("v,verbose q,quiet all set-upstream a,append atomic !upload-pack= !f,force m,multiple t,tags n "
                   "j,jobs= prefetch p,prune !P,prune-tags recurse-submodules? dry-run write-fetch-head k,keep "
                   "!u,update-head-ok progress depth= shallow-since= shallow-exclude= deepen= unshallow refetch "
                   "update-shallow !refmap= o,server-option= 4,ipv4 6,ipv6 negotiation-tip= negotiate-only filter= "
                   "auto-maintenance auto-gc show-forced-updates write-commit-graph !stdin porcelain "
                   "recurse-submodules-default="), _fetch),
    "push": (Spec("v,verbose q,quiet repo= all branches mirror d,delete tags n,dry-run porcelain f,force "
                  "force-with-lease? force-if-includes recurse-submodules= thin !receive-pack= !exec= "
                  "u,set-upstream progress prune no-verify follow-tags signed? atomic o,push-option= 4,ipv4 "
                  "6,ipv6"), _push),
    "commit": (Spec("q,quiet v,verbose F,file= author= date= m,message= c,reedit-message= C,reuse-message= "
                    "fixup= squash= reset-author trailer= s,signoff t,template= e,edit cleanup= status "
                    "S,gpg-sign? a,all i,include interactive p,patch o,only n,no-verify dry-run short branch "
                    "ahead-behind porcelain long z,null amend no-post-rewrite u,untracked-files? "
                    "pathspec-from-file= pathspec-file-nul allow-empty allow-empty-message no-edit"), _commit),
    "add": (Spec("n,dry-run v,verbose !i,interactive !p,patch !e,edit !f,force u,update renormalize "
                 "N,intent-to-add A,all ignore-removal refresh ignore-errors ignore-missing sparse chmod= "
                 "pathspec-from-file= pathspec-file-nul"), _any),
    "mv": (Spec("v,verbose n,dry-run !f,force k sparse"), _any),
    "rm": (Spec("n,dry-run q,quiet cached !f,force r ignore-unmatch sparse pathspec-from-file= pathspec-file-nul"),
           _any),
    "grep": (Spec("cached no-index untracked exclude-standard recurse-submodules v,invert-match i,ignore-case "
                  "w,word-regexp a,text I textconv r,recursive max-depth= E,extended-regexp G,basic-regexp "
                  "F,fixed-strings P,perl-regexp n,line-number column h H full-name l,files-with-matches name-only "
                  "L,files-without-match z,null o,only-matching c,count color? break heading C,context= "
                  "B,before-context= A,after-context= threads= N= p,show-function W,function-context f= e= and or "
                  "not q,quiet all-match !O,open-files-in-pager? !ext-grep m,max-count="), _any),
    "blame": (Spec("incremental b root show-stats progress score-debug f,show-name n,show-number p,porcelain "
                   "line-porcelain c t l s e,show-email w ignore-rev= ignore-revs-file= color-lines color-by-age "
                   "minimal S= contents= C? M? L= abbrev?", family=True), _any),
    "annotate": (Spec("", family=True), _any),
    "config": (Spec("global system local worktree f,file= blob= get get-all get-regexp get-urlmatch !replace-all "
                    "!add !unset !unset-all !rename-section !remove-section l,list fixed-value !e,edit get-color "
                    "get-colorbool t,type= bool int bool-or-int bool-or-str path expiry-date z,null name-only "
                    "includes show-origin show-scope default= all regexp value= url= show-names"), _config),
    "remote": (Spec("v,verbose n push all"), _verbs(("show", "get-url", "update"), CONFIG)),
    "worktree": (Spec("porcelain v,verbose expire= z !f,force b= !B= d,detach checkout lock reason= q,quiet track "
                      "guess-remote orphan relative-paths"),
                 _verbs(("list", "add", "lock", "unlock"), DESTROY + " (worktree remove/prune/move are the user's)",
                        bare=False)),
    "notes": (Spec("ref="), _verbs(("list", "show"), HISTORY, bare=True)),
    "reflog": (Spec("", family=True), _verbs(("show", "exists"), DESTROY)),
    "init": (Spec("!template= bare !shared? q,quiet !separate-git-dir= b,initial-branch= object-format= "
                  "ref-format="), _any),
    "clone": (Spec("v,verbose q,quiet progress reject-shallow n,no-checkout bare mirror l,local no-hardlinks "
                   "s,shared recurse-submodules? recursive? j,jobs= !template= reference= reference-if-able= "
                   "dissociate o,origin= b,branch= !u,upload-pack= depth= shallow-since= shallow-exclude= "
                   "single-branch no-tags shallow-submodules !separate-git-dir= !c,config= server-option= 4,ipv4 "
                   "6,ipv6 filter= also-filter-submodules remote-submodules sparse bundle-uri= revision= "
                   "ref-format="), _any),
    "apply": (Spec("exclude= include= p= no-add stat numstat summary check index N,intent-to-add cached "
                   "!unsafe-paths apply 3,3way build-fake-ancestor= z C= whitespace= ignore-space-change "
                   "ignore-whitespace R,reverse unidiff-zero reject allow-overlap v,verbose q,quiet "
                   "inaccurate-eof recount directory= allow-empty"), _any),
    "bisect": (Spec(""), _verbs(("log", "visualize", "view", "terms"), SWITCH, bare=False)),
    "sparse-checkout": (Spec("cone no-cone sparse-index"), _verbs(("list",), SWITCH, bare=False)),
    "rerere": (Spec("rerere-autoupdate"), _verbs(("status", "diff", "remaining"), HOUSEKEEPING, bare=False)),
    "ls-files": (Spec("z t v f c,cached d,deleted m,modified o,others i,ignored s,stage k,killed directory eol "
                      "empty-directory u,unmerged resolve-undo x,exclude= X,exclude-from= exclude-per-directory= "
                      "exclude-standard full-name recurse-submodules error-unmatch with-tree= abbrev? debug "
                      "deduplicate sparse format="), _any),
    "ls-tree": (Spec("d r t z l,long name-only name-status object-only full-name full-tree format= abbrev?"), _any),
    "cat-file": (Spec("e p t s allow-unknown-type use-mailmap mailmap batch? batch-check? z Z batch-command? "
                      "batch-all-objects buffer follow-symlinks unordered textconv filters path= filter="), _any),
    "describe": (Spec("contains debug all tags long first-parent abbrev? exact-match candidates= match= exclude= "
                      "always dirty? broken?"), _any),
    "for-each-ref": (Spec("s,shell p,perl python tcl count= format= color? sort= points-at= merged= no-merged= "
                          "contains= no-contains= ignore-case omit-empty exclude= include-root-refs start-after="),
                     _any),
    "show-ref": (Spec("tags heads branches verify head d,dereference s,hash? abbrev? q,quiet exclude-existing? "
                      "exists"), _any),
    "name-rev": (Spec("name-only tags refs= exclude= all annotate-stdin undefined always"), _any),
    "merge-base": (Spec("a,all octopus independent is-ancestor fork-point"), _any),
    "check-ignore": (Spec("q,quiet v,verbose stdin z n,non-matching no-index"), _any),
    "check-attr": (Spec("a,all cached stdin z source="), _any),
    "shortlog": (Spec("c,committer n,numbered s,summary e,email w? group= format=", family=True), _any),
    "ls-remote": (Spec("q,quiet !upload-pack= t,tags b,branches h,heads refs get-url sort= exit-code symref "
                       "o,server-option="), _any),
    "show-branch": (Spec("a,all r,remotes color? more? list merge-base independent no-name current sha1-name "
                         "sparse topo-order date-order g,reflog? reflog-message"), _any),
    "hash-object": (Spec("t= w stdin stdin-paths no-filters literally path="), _any),
    "interpret-trailers": (Spec("!in-place trim-empty where= if-exists= if-missing= only-trailers only-input unfold "
                                "parse no-divider trailer="), _any),
    "count-objects": (Spec("v,verbose H,human-readable"), _any),
    "fsck": (Spec("v,verbose unreachable dangling tags root cache reflogs full connectivity-only strict "
                  "!lost-found progress name-objects references"), _any),
    "verify-commit": (Spec("v,verbose raw"), _any),
    "verify-tag": (Spec("v,verbose raw format="), _any),
    "check-ref-format": (Spec("normalize allow-onelevel no-allow-onelevel refspec-pattern branch"), _any),
    "check-mailmap": (Spec("stdin mailmap-file= mailmap-blob="), _any),
    "stripspace": (Spec("s,strip-comments c,comment-lines"), _any),
    "patch-id": (Spec("stable unstable verbatim"), _any),
    "var": (Spec("l"), _any),
    "version": (Spec("build-options"), _any),
}
for _name in FAMILY_COMMANDS:
    COMMANDS[_name] = (Spec("!stdin", family=True, abbrev=False), _any)
COMMANDS["format-patch"] = (Spec("o,output-directory= !stdin", family=True, abbrev=False), _any)
"""git subcommand -> (its options, the rule judging its arguments). Not here: refused."""

ANY_OPTIONS = frozenset({"rev-parse", "help"})
"""Commands that only print, whatever their options."""

LFS_VERBS = frozenset({"ls-files", "status", "env", "version", "track", "logs", "fsck", "pointer", "fetch"})
"""`git lfs` (an external command) verbs that only read or download."""

STASH = {
    "list": Spec("", family=True, abbrev=False),
    "show": Spec("u,include-untracked only-untracked", family=True),
    "push": Spec("k,keep-index S,staged !p,patch q,quiet u,include-untracked !a,all m,message= "
                 "pathspec-from-file= pathspec-file-nul"),
    "save": Spec("k,keep-index S,staged !p,patch q,quiet u,include-untracked !a,all"),
    "pop": Spec("q,quiet index"),
    "apply": Spec("q,quiet index"),
}
"""`git stash <verb>`: the verbs let through (drop, clear, branch, store and create are not)."""

WRITES = frozenset({"output", "output-directory", "build-fake-ancestor"})
"""Options whose value is a file git writes: checked like any other written path."""


class Unknown(Refused):
    """A subcommand rt does not know: an alias, an external `git-<name>`, or a typo."""


def judge(sub: str, args: list[Word], foreach=None) -> Parsed | None:
    """Read `git <sub> <args>`: the parsed arguments (None for commands judged by verb alone) when rt lets
    it through; Refused when not. `foreach` judges `git submodule foreach`'s command."""
    if sub in ANY_OPTIONS:
        return None
    if sub == "lfs":
        verb = args[0].text if args and args[0].static else "…"
        if verb not in LFS_VERBS:
            raise Refused(f"rt blocks `git lfs {verb}`: rt lets through only lfs's read-only verbs")
        return None
    if sub == "stash":
        return _stash(args)
    if sub == "submodule":
        return _submodule(args, foreach)
    entry = COMMANDS.get(sub)
    if entry is None:
        raise Unknown(sub)
    spec, rule = entry
    parsed = parse(sub, spec, args)
    why = rule(sub, parsed)
    if why:
        shown = " ".join([sub, *(w.text.replace(DYN, "$…") for w in args[:4])]) + (" ..." if len(args) > 4 else "")
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        op = sub if sub == "commit" and _plain_commit(parsed) or sub == "push" and _plain_push(parsed) else ""
        raise Refused(f"rt blocks `git {shown}`: {why}", op)
    return parsed


def _stash(args: list[Word]) -> Parsed:
    verb = "push"
    if args and not args[0].text.startswith("-"):
        if not args[0].static:
            raise Refused("rt blocks `git stash` with a verb only known when it runs; name the verb plainly")
        verb, args = args[0].text, args[1:]
    if verb not in STASH:
        why = {"drop": DESTROY, "clear": DESTROY, "branch": SWITCH}.get(verb, HISTORY)
        raise Refused(f"rt blocks `git stash {verb}`: {why}")
    return parse(f"stash {verb}", STASH[verb], args)


def _submodule(args: list[Word], foreach) -> None:
    words = [w for w in args if not w.text.startswith("-")]
    if words and not words[0].static:
        raise Refused("rt blocks `git submodule` with a verb only known when it runs; name the verb plainly")
    verb = words[0].text if words else "status"
    if verb == "foreach":
        if foreach is not None:
            foreach([w for w in args[args.index(words[0]) + 1:] if w.text not in ("--recursive", "-q", "--quiet")])
        return None
    if verb == "update" and {w.text for w in args} & {"--force", "-f", "--rebase", "--merge", "--remote"}:
        raise Refused(f"rt blocks `git submodule update` with that option: {DESTROY}")
    if verb not in ("status", "summary", "init", "sync", "update"):
        raise Refused(f"rt blocks `git submodule {verb}`: {CONFIG}")
    return None

"""Ranking a repository's files for a task, from the index's ranking postings (`rt/index/terms.py`).

The task's words become weighted keys: identifiers as written (`snake_case`, `camelCase`, `Class.method`,
paths) weigh most and are kept whole; plain words are stemmed lightly and stop words dropped unless the
repository defines a name equal to one; words of URLs and quoted data weigh little, and so do plain words said only
below the task's first paragraph, which says the goal (the pack's lines weigh them as any word). Only the files the
keys' posting lists name are scored, so the cost follows the matches, not the tree. A file scores BM25F:
per key, its occurrences in the text (gently normalised by length) plus a match in its file name, its
folders or its definitions' names, saturating together, times the key's rarity (a path match also
times its rarity among paths); the sum over keys rewards each distinct word matched. Then its kind
weighs it: tests, prose, data, vendored code and other languages' translations less (a regional English
file beside the plain English one is one), the source locale file more on a task quoting text or naming
interface words, less on any other.
The source locale file holding a quoted UI text and the code using its key get a bounded share of the
best score. The files of the recent commits whose messages read most like the task gain a share of it too
(`like_commits`), and the files the recent commits changed with the three best ones then follow them
(`changed_with`; both over `rt/index/history.py`). What `rt install` writes is never ranked. Tried on the
benchmark's tuning set and left out for changing nothing or less: a share of a top file's score for its
import neighbours (even only for neighbours matching words themselves), and a factor for the share of the
task's words matched.
"""
from __future__ import annotations

import heapq
import math
import re
from functools import lru_cache

from rt.core import is_test
from rt.index.langs import TOKENIZED, language
from rt.index.tags import TAGGED
from rt.index.terms import KINDS, keys_of_word, word_keys

STOPWORDS = frozenset("""
a an the and or but of to in on at by for from with without into onto as is are be been being was were it its
this that these those there here we you they he she i me my our your their them us so if then else when while
do does did done has have had having not no yes can could should would will shall may might must also just only
very too all any some each every more most less few many much other such same than via per about after before again against
between during over under up down out off new now how what which who whom whose why where need needs needed want
please make makes made get gets got let lets use used uses using fix fixes fixed fixing bug bugs issue issues
add adds added adding update updates updated remove removes removed change changes changed support supports
allow allows improve improves improved handle handles handled instead correctly properly case cases work
works working broken wrong error errors
""".split())
"""Words that say what kind of task it is, not where it lives: dropped unless the repository defines a
name equal to one (`add`, `get`, `update` can be the function a task is about)."""

W = {
    "ident": 2.0,     # an identifier written in the task, kept whole
    "word": 1.0,      # a plain word
    "quoted": 0.5,    # a word inside quotes: example data, or UI text (which has its own channel)
    "url": 0.2,       # a word of a URL
    "stop": 0.5,      # a stop word that is also a defined name
    "body": 0.4,      # a plain word said only below the task's first paragraph: details, not the goal
}
"""Weight of a task word by where it stands in the task."""
B = 0.5
"""BM25's length normalisation of a file's text: lower than the usual 0.75, and over the square root of
the length ratio (LENGTH), so a long central file is not sunk by its length."""
LENGTH = 0.5
K1 = 2.0
W_NAME = 2.0
W_FOLDER = 0.7
W_DEFS = 1.5
"""BM25F: a word in the file's name, in one of its folders, in a definition's name counts as this many
occurrences in the text; all saturate together, so a word weighs at most its rarity once."""
NAME_RARITY = 1.0
"""The name and folder channels are scaled by (the word's rarity among paths / its rarity in text) to
this power: a word in every path (the project's name, `src`, `views`) adds nothing by being there."""
PATH_IDF = 1.0
PATH_IDF_FROM = 0.5
"""A word in more than PATH_IDF_FROM of the files' text, too common there to choose a file (a language's
`export`, `import`), but in few paths chooses by its path: a file named or foldered by it gains PATH_IDF
times the difference of the two rarities."""
TRANSLATION = 0.5
"""Share of the best score given, once, to the source locale file holding a quoted UI text and to the code
using its key."""
KIND = {"test": 0.3, "prose": 0.25, "data": 0.3, "locale": 0.1, "source-locale": 1.5, "vendored": 0.3, "migration": 0.3,
        "code": 1.0}
"""A file's kind weighs its score: tests and prose are context, translations of other languages copies,
vendored code another project's (Go's `vendor/`: large, saying every word, rarely what a task edits), a
migration a step taken once (a lock file, a package manager's output, is never ranked: `unranked`); the source
locale file holds every text a user sees, which a change to the interface often edits too."""
UI_WORDS = """label message text translation translate wording string i18n l10n typo title tooltip placeholder
caption spelling language toast notice hint description add new feat feature option implement allow support
show display button setting dialog menu page preference provider"""
"""Words of a task that changes what a user reads or adds to the interface, which is when a change edits the
source locale file: with none of them and no quoted text, that file weighs LOCALE_ELSE, not KIND's 1.5."""
LOCALE_ELSE = 1.0
"""As code: it holds most English words of an interface, so at 1.5 it led TS web apps' tasks about logic.
Lower (0.7) measured better on those but lost locale tasks whose message names no text."""
SCOPE = 1.3
"""What a file gains from lying right in the folder the task's scope names (`caddyhttp: ...` and
`modules/caddyhttp/server.go`, not `modules/caddyhttp/push/handler.go`: a Go package is one folder)."""
PHRASE_FILES = 5
"""A quoted text of several words written run together in a name (`smtpIgnoreTLSError` for "Ignore TLS Error",
`actionToggleGridMode` for "toggle grid") in at most this many files lifts them by TRANSLATION of the best score:
the setting or action the interface calls so. In more, the name is everywhere and chooses nothing."""
NAMED_LOCALE = 0.5
"""Share of the best score given to each source locale file when the task names the translations themselves
(LOCALE_WORDS: "extract translations", "Improvements for SMSC i18n"): such a task edits that file, though
it may share no other word with it."""
NAMED_PATHS = 20
"""The paths (and quoted texts) a task names that are looked for in the tree and its translations, the first ones:
each is compared with every path or every entry (a task naming thousands is a list pasted in)."""
NAMED_FILES = 3
"""At most this many source locale files gain NAMED_LOCALE: a Django project keeps one per app."""
LIST_LANGUAGES = 4
"""A file naming at least this many of the project's languages (and half of them) lists them (`_add_language_lists`)."""
LIST_READS = 40
"""`_add_language_lists` reads at most this many files, those holding the most languages' words."""
FAMILY = 5
"""A folder of at least this many code files is a family, and a file importing this many of them, and half, its
registry (`_add_registries`)."""
FAMILIES = 3
"""A folder name the task says that more folders than this have chooses no family."""
EXTRACTED = 0.2
"""A source locale file changed with code in under this share of its recent commits is a tool's output
(`extracted_apart`): wagtail's `locale/en/LC_MESSAGES/django.po` files 1 commit of 500, none with code,
paperless-ngx's 26 with none, documenso's lingui catalogue 33 with one; a hand-kept one changes with its
component (excalidraw's `en.json` 30 of 31, Kavita's 19 of 19, gogs' `locale_en-US.ini` 8 of 8)."""
LOCALE_WORDS = frozenset({"i18n", "l10n", "translation", "localization", "localisation"})
"""Ranking keys of the words naming translations (`locale` is left out: its key is `local`'s)."""
TRANSLATING = LOCALE_WORDS | {"translat", "languag", "weblat", "crowdin", "transifex"}
"""Ranking keys of the words that make a language's name in the task the translation's ("Translated using Weblate
(German)"), not an adjective ("Last Polish before Stable") or the users' ("dates for German users")."""
RANKED = 200
"""The ranking holds at least the best this many files: past them no file can move up by its kind."""
PATH_HIT = 1.0
"""A file whose path the task names gets this share of the best score."""
FOLDER_FILES = 3
"""At most this many files right in a folder the task names gain PATH_HIT, those scoring best."""
RUN_WORD = 48
"""The longest task word looked at as two run together (every split of it is tried): Kavita's is 18 letters."""
RUN_PIECE = 4
"""The shortest word a task word run together from two is split into (`widthoverride`: `width`, `override`)."""
RUN_FILES = 20
"""The most files holding both pieces read for the two side by side."""
LEADS = 3
TOGETHER = 0.2
"""Each of the LEADS best files gives the files that changed with it in the recent commits this share of its
score, times the share of its commits that changed them too: a feature's files change together, and the
task's words often name only some of them."""
LIKE = 0.4
"""Share of the best score lent to the files of the past commits whose messages read most like the task
(`like_commits`), times how like: the place a kind of change was made before."""
LIKE_COMMITS = 20
"""The most like commits that lend."""

RECENT_FILES = 8
"""A task whose words pick out no files ("Fix", "minor fix", "bug fixed") ranks this many files of the work going on,
uncommitted first, then the last commits', newest first (`recent_work`): where such a task most likely is."""

CODE_LANGS = frozenset({"python"}) | TOKENIZED | TAGGED
"""Languages of code: those rt reads, and those whose definitions come from ctags (`tags.TAGGED`, words only
without it)."""
MARKUP = frozenset({"html", "css"})
_CODE_EXT = re.compile(r"\.(graphql|gql|scss|sass|less|styl|hbs|ejs|erb|eex|heex|leex|jinja2?|j2|twig|sql|proto|tf)$",
                       re.IGNORECASE)
_VENDORED = re.compile(r"(^|/)(vendor|third_party|third-party|thirdparty|3rdparty|extern|bundled|googletest|googlemock"
                       r"|gtest|gmock)/|^deps/|(^|/)(public|static|assets|wwwroot)/((js|scripts)/)?libs?/")
"""Another project's code kept in this one: Go's `vendor/`, C's `third_party/` and `extern/`, redis's and Node's top
`deps/`, spdlog's `fmt/bundled/`, the copy of GoogleTest a C++ project keeps beside its tests (fmt's
`test/gtest/`, 12,399 lines of `gtest.h` shown as the code to change), and the browser libraries a web app serves
from its web root (BookStack's `public/libs/tinymce/`, whose `tinymce.d.ts` was in the first five places of 5 of its
last 20 tasks; gogs' `public/js/libs/`, ASP.NET's `wwwroot/lib/`)."""
_MIGRATION = re.compile(r"(^|/)(migrations?|migrate|alembic/versions)/([^/]+/)*?(\d{2,}|V\d+__)", re.IGNORECASE)
"""A database migration, numbered or dated in its own file or folder (Django's `migrations/0003_x.py`, Rails'
`db/migrate/20240101_x.rb`, EF Core's `Migrations/20201224155621_MiscCleanup.cs`, Prisma's
`migrations/20240113060555_minor_fix/migration.sql`, Alembic's): written once and left as it was, a new step
being a new file, though its name and its SQL say the task's words ("Misc Stuff", "add ... columns"). The
model snapshot and the migrating code beside them are code."""
_LOCK = re.compile(r"(^|/)([^/]+\.lock|[^/]+-lock\.(json|ya?ml)|bun\.lockb|go\.sum|npm-shrinkwrap\.json|Package\.resolved"
                   r"|gradle\.lockfile|packages\.lock\.json)$")
"""A package manager's lock file (`yarn.lock`, `Cargo.lock`, `go.sum` ...): written by the tool after the manifest
changes, never by hand; it names every dependency (bat's "Use once_cell instead of lazy_static" put `Cargo.lock`
fourth). A task naming it finds it by its path (`PATH_HIT`): `unranked` otherwise."""
_LOCK_ENDS = (".lock", "-lock.json", "-lock.yaml", "-lock.yml", "bun.lockb", "go.sum", "npm-shrinkwrap.json",
              "Package.resolved", "gradle.lockfile", "packages.lock.json")
"""How every path `_LOCK` matches ends (`unranked` asks `str.endswith` first, in C, and the pattern only then): a
form added to `_LOCK` is added here too."""
_RT_OWN = re.compile(r"^\.claude/(skills/runtask/|agents/rt-[^/]*\.md$|rt-install\.json$|settings\.json\.rt-backup$)")
"""What `rt install` writes (rt/claude/install.py): never ranked or packed."""


def is_rt_own(path: str) -> bool:
    return path.startswith(".claude/") and bool(_RT_OWN.match(path))


def unranked(path: str) -> bool:
    """Whether a file never gets a score by its words nor a share lent: rt's own, and a lock file (`yarn.lock`
    changes with every `package.json`). Asked of every file a task's words hit: a path not ending as a lock file
    can end (`_LOCK_ENDS`, a test in C) is no lock file, with no look at its kind."""
    return is_rt_own(path) or path.endswith(_LOCK_ENDS) and kind_of(path) == "lock"


_MARKERS = ("test", "spec", "locale", "i18n", "lang", "translation", "message", "l10n", "intl", "lproj")
"""A code file whose path holds none of these is neither a test nor a translation: no pattern to run."""


@lru_cache(maxsize=1 << 16)
def kind_of(path: str) -> str:
    """test, source-locale, locale, prose, data, vendored, migration, lock or code: what a file is, for the weight of
    its score."""
    from rt.index import i18n
    from rt.index.langs import PROSE, language
    if _VENDORED.search(path):
        return "vendored"
    if _MIGRATION.search(path) and not is_test(path):
        return "migration"
    if _LOCK.search(path):
        return "lock"
    lang = language(path)
    if lang in CODE_LANGS and not any(m in path.lower() for m in _MARKERS):
        return "code"
    if i18n.is_locale(path):   # XLIFF is extracted by a tool, apart from the change (paperless-ngx: in 26 of 300
        # commits, never with its app's code): a translation's weight, not the source's. A form's own `.resx` holds
        # its layout with its texts, and a project's `Resources.resx` every message: as the source locale file they
        # led 6 of 15 ShareX tasks away from the code (`MainForm.resx` first for "Removed news button"); data
        if not i18n.is_source_locale(path):
            return "locale"
        return "data" if path.endswith(".resx") else "locale" if path.endswith((".xlf", ".xliff")) else "source-locale"
    if is_test(path):
        return "test"
    if lang in CODE_LANGS or lang in MARKUP or _CODE_EXT.search(path):
        return "code"
    return "prose" if lang in PROSE else "data"


# ---------------------------------------------------------------- the task's words

class Query:
    """The task's words: ranking key -> weight (`keys`) and -> the task's word it came from (`shown`),
    the path-like words (`paths`), quoted texts of several words a locale file may hold (`phrases`),
    the scope its first line names (`caddyhttp: ...`, `fix(tsdb): ...`), folded as `_folded` folds names, and
    the dependencies it bumps with the folder it names for them ("" the top, None where it names none: `bumps`), the
    languages it names with their region or script (`pt`, `br`: `languages`), and the keys said only below its first
    paragraph, weighed less (`details`)."""

    __slots__ = ("keys", "shown", "paths", "phrases", "scope", "bumps", "languages", "details")

    def __init__(self, keys: dict[str, float], shown: dict[str, str], paths: list[str], phrases: list[str],
                 scope: str = "", bumps: list[tuple[str, str | None]] | None = None,
                 languages: list[tuple[str, str]] | None = None, details: frozenset[str] = frozenset()):
        self.keys, self.shown, self.paths, self.phrases, self.scope = keys, shown, paths, phrases, scope
        self.bumps, self.languages, self.details = bumps or [], languages or [], details

    @property
    def words(self) -> list[str]:
        """The task's words looked for, in first-seen order, each once."""
        return list(dict.fromkeys(self.shown.values()))


_KIND_PREFIX = re.compile(r"^[ \t]*(?:feat|fix|chore|refactor|perf|docs|style|test|tests|build|ci|revert|wip)(?:\(([^)\n]*)\))?!?:",
                          re.IGNORECASE | re.MULTILINE)
_SCOPE = re.compile(r"^\s*([A-Za-z][\w./-]*):\s")
"""A first line naming where the change is (`caddyhttp: fix ...`, `tsdb/wlog: ...`): Go's and others' habit."""
_URL = re.compile(r"\b(?:https?://|www\.)\S+|(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b")
"""An address: a URL, or an e-mail's (`jane@example.com`, not `react@18.2.0`). An e-mail is looked for from where
its run of name characters starts only (the same matches: from inside the run the same `@` ends the name), so a
long word is read once, not once from each of its letters."""
_IMAGE = re.compile(r"!\[[^\]\n]{0,500}\]\([^)\n]{0,2000}\)|<img\b[^>]{0,2000}>", re.IGNORECASE)
"""A picture in Markdown or HTML (`![image.png](https://...)`, `<img src=...>`): what the model cannot see
either; its alt text is mostly a file name (`CleanShot 2024-08-23 at 12 05 12@2x`) and its address a store's."""
_TRAILER = re.compile(r"^[A-Za-z]+(?:-[A-Za-z]+)*-by:[ \t].*$|^Change-Id:[ \t].*$", re.MULTILINE | re.IGNORECASE)
"""A commit message's trailer (`Co-authored-by: Jane <jane@users.noreply.github.com>`): who, not what."""
_ISSUE_LINK = re.compile(r"(?:\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?|refs?|see)\s+)?(?<![\w/.-])(?:[\w.-]+/[\w.-]+)?#\d+\b",
                         re.IGNORECASE)
"""A reference to an issue (`Closes #123`, `fixes org/repo#4`): GitHub's link, no word of the task."""
_HASH = re.compile(r"(?<![\w$])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,64}(?![\w$])")
"""A commit id or another hash (`Original-merge: 5cc91f2ee0...`, "since a1b2c3d"): no word of the task, nor are
its pieces (`cc`, `eda`), which a font's `unicode-range` or a lock file holds by the hundred."""
_BACKTICK = re.compile(r"`([^`\n]{1,200})`")
_LITERAL = re.compile(r"([\"'])([^\"'\n]*)\1")
_QUOTED = re.compile(r"(?<![\w])[\"\u201c\u2018']((?:[^\"'\u201d\u2019\n]|(?<=[^\W\d_])['\u2019](?=[^\W\d_])){1,200})"
                     r"[\"'\u201d\u2019](?![\w])")
"""Quoted text; an apostrophe inside it (`"Can't save"`) ends nothing."""
_TOKEN = re.compile(r"(?:[\w.$-]{0,255}/){1,64}[\w.$-]{0,255}\w|[\w$]{1,255}(?:-[\w$]{1,255}){1,64}(?:\.[\w$-]{0,255}\w){1,16}"
                    r"|[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*(?:\(\))?|\w+")
"""A path; a kebab-case name with dots (`cancel-envelope.types.ts`: a file, if its ending is one); a dotted or
qualified name; a word. The first two are bounded (no name is 255 characters long, no path 64 folders deep):
tried from each letter of a long hyphenated or dotted run, unbounded they read the rest of it every time."""
_CONTRACTED = re.compile(r"[A-Za-z]+n['\u2019]t\b|(?<=[A-Za-z]['\u2019])(?:ll|ve|re)\b")
"""A negation (`can't`, `doesn't`, `won't`: a `can` the repository defines is not meant) and the end of a
contraction (`we'll`, `they've`): no place in the code."""
_KEBAB = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?![\w-])")
_IDENT = re.compile(r"[a-z0-9][A-Z]|[A-Za-z0-9]_[A-Za-z0-9]|\(\)$|^_|[A-Z][a-z0-9]+[A-Z]")
_RELEASE = re.compile(r"(?<![\d.])(?:(?<![^\W\dv_])v\d+\.\d+(?:\.\d+)?|\d+\.\d+\.\d+)(?![\d.]|\w)")
"""A release number (`v1.8`, `v1.8.42`, `0.23.0`; not `1.5` or an address): a release commit ("v1.8.42",
"Changelog for 4.13.0") edits the file keeping the project's version, a word such a task never says."""
_BUMP = re.compile(r"\b(?:bump|update|upgrade)s?\s+(?:(?:[\w-]+\s+)?(?:dependency|module|package|gem|crate)\s+)?"
                   r"(@?[A-Za-z0-9][\w.-]*(?:/[\w.-]+)*)\s+(?:action\s+)?(?:from\s+v?\d\S*\s+)?to\s+[>=^~]*v?\d", re.IGNORECASE)
"""A dependency bump, as Dependabot and Renovate word it and people do: "Bump @sveltejs/kit from 2.42.1 to 2.60.1",
"update module golang.org/x/net to v0.17.0", "Update rust crate serde to 1.0.190", "Bump django-ninja to >=1.6.3"."""
_NO_DEPENDENCY = frozenset({"version", "versions", "deps", "dependencies", "packages", "all", "it", "them"})
"""What a bump names that is no dependency: "bump version to v3.5.0" is a release (`_RELEASE` finds its file)."""
_BUMP_IN = re.compile(r"\bin\s+/([\w./-]*)")
"""The folder Dependabot names for the manifest ("... in /repro"; "in /" the top)."""
_REGIONS = {"united kingdom": "gb", "uk": "gb", "great britain": "gb", "united states": "us", "us": "us", "usa": "us",
            "brazil": "br", "portugal": "pt", "simplified": "hans", "traditional": "hant", "taiwan": "tw", "hong kong": "hk",
            "china": "cn", "canada": "ca", "australia": "au", "mexico": "mx", "spain": "es", "switzerland": "ch",
            "austria": "at", "belgium": "be", "france": "fr", "germany": "de", "india": "in", "latin america": "419",
            "british": "gb", "american": "us", "brazilian": "br", "canadian": "ca", "australian": "au", "swiss": "ch"}
"""A region or script as a translation service names it ("English (United Kingdom)", "Chinese (Simplified Han script)",
"Brazilian Portuguese"), by its code in locale files' names."""
_LANGUAGE = re.compile(r"\b(?:(british|american|brazilian|canadian|australian|swiss|simplified|traditional)\s+)?([A-Za-z]+)\b"
                       r"(?=\s*\(\s*([A-Za-z][A-Za-z ]*)|)", re.IGNORECASE)
_CODE = re.compile(r"(?<![\w/.-])([a-z]{2,3})[-_]([A-Za-z]{2,4}|419)(?![\w/-])")
"""A language code with its region or script (`zh-Hans`, `pt_BR`, `en-GB`): alone (`de`, `it`) it is a word."""
_QUOTED_CODE = re.compile(r"[\"'`]([A-Za-z]{2,3})[-_]([A-Za-z]{2,4})[\"'`]")
"""A quoted language code with its region or script, as a list of languages holds it (`"pt-BR"`, `'zh_Hans'`)."""
_CODE_RUN = re.compile(r"\b([A-Za-z]{2,3}(?:\s*(?:,|&|\band\b)\s*[A-Za-z]{2,3}){0,20})\s+(?:locale|translation|language)s?\b")
"""Bare language codes said right before a word of translating ("add fa locale", "add nl and tr translations")."""
_CODE_WORDS = frozenset({"be", "he", "hi", "id", "is", "it", "my", "ms", "uk"})
"""Codes that are English words (or a region: "UK"), never taken bare."""
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
"""Where a task's first paragraph ends (a commit message's subject line, a request's opening ask)."""
_MERGE = re.compile(r"\s*(?:merge|backport)\s+(?:pull\s+request|branch)\b", re.IGNORECASE)
"""A first line saying only what was merged ("Merge pull request #12 from jane/fix-search"): the task is below it."""
_EXT = re.compile(r"\.(py|pyi|js|jsx|ts|tsx|mjs|cjs|go|rs|java|c|h|cc|cpp|hpp|cs|kt|swift|rb|php|vue|svelte|html|css|"
                  r"scss|less|json|ya?ml|toml|md|sql|graphql|proto|sh|lock)$")


def parse_task(text: str, defined=None) -> Query:
    """The task's words as weighted ranking keys. `defined(word)` says whether the repository defines a
    name equal to a stop word, which then counts."""
    keys: dict[str, float] = {}
    shown: dict[str, str] = {}
    paths: list[str] = []
    phrases: list[str] = []

    def add(key: str, weight: float, word: str) -> None:
        if weight > keys.get(key, 0.0):
            keys[key] = weight
        shown.setdefault(key, word)

    def words(span: str, weight: float, code: bool, url: bool = False) -> None:
        for m in _TOKEN.finditer(span):
            if not code and _CONTRACTED.match(span, m.start()):   # `doesn't`, `we'll`: no word of the task
                continue
            tok = m.group(0).strip(".-/")
            pathlike = "/" in tok or bool(_EXT.search(tok)) and "(" not in tok
            if pathlike and not url:
                paths.append(tok)
            if pathlike:       # each folder or file name on its own, the extension left out
                segments = _EXT.sub("", tok).split("/")
            else:              # Class.method, mod::item, obj->field: each part is a name
                segments = re.split(r"\.|::|->", tok.rstrip("()"))
            dotted = len(segments) > 1 and not pathlike or tok.endswith("()")
            for seg in segments:   # a URL's part is never a name the task says (`T2klNLEk0wxLh4NRDzhk`)
                ident = not url and (code or dotted or bool(_IDENT.search(seg)))
                for word in re.findall(r"[A-Za-z0-9_$]+", seg):
                    _word(word, weight, ident, add, defined)
        for m in _KEBAB.finditer(span):   # `edit-monitor`, a file or component name: whole, as the path keys have it
            add(m.group(0).replace("-", "").lower(), W["ident"] if code else weight, m.group(0))

    text = _HASH.sub(" ", _ISSUE_LINK.sub(" ", _TRAILER.sub(" ", _IMAGE.sub(" ", text))))
    rest = _KIND_PREFIX.sub(r"\1 ", text)   # `feat(editor): ...` says the kind of change, `editor` where
    for m in _URL.finditer(text):
        words(m.group(0), W["url"], False, url=True)
    rest = _URL.sub(" ", rest)
    for m in _BACKTICK.finditer(rest):   # its string literals are example data, the rest code
        for lit in _LITERAL.finditer(m.group(1)):
            words(lit.group(2), W["quoted"], False)
        words(_LITERAL.sub(" ", m.group(1)), W["ident"], True)
    rest = _BACKTICK.sub(" ", rest)
    for m in _QUOTED.finditer(rest):
        quoted = m.group(1).strip()
        if len(quoted.split()) >= 2:
            phrases.append(quoted)
        words(quoted, W["quoted"], False)
    rest = _QUOTED.sub(" ", rest)
    words(rest, W["word"], False)
    if _RELEASE.search(_URL.sub(" ", text)):
        add("version", W["word"], "version")
    kind, scoped = _KIND_PREFIX.match(text.lstrip()), _SCOPE.match(text)
    scope = kind.group(1) if kind else scoped.group(1) if scoped else None
    folder = _BUMP_IN.search(text)
    bumps = [(m.group(1), folder.group(1).strip("/") if folder else None) for m in _BUMP.finditer(text)
             if m.group(1).lower() not in _NO_DEPENDENCY]
    details = _details(text, keys)
    for key in details:
        keys[key] *= W["body"]
    return Query(keys, shown, list(dict.fromkeys(paths)), sorted(set(phrases)), _folded(scope.rsplit("/", 1)[-1]) if scope else "",
                 bumps, _languages(text), details)


def _details(text: str, keys: dict[str, float]) -> frozenset[str]:
    """The keys of plain words said only below the task's first paragraph (a commit's body, a request's details),
    which says the goal; none where the first line says only what was merged."""
    first = _PARAGRAPH.split(text.strip(), 1)
    if len(first) < 2 or not first[1].strip() or _MERGE.match(first[0]):
        return frozenset()
    said = parse_task(first[0], lambda word: True).keys   # its stop words too, and no look-up made again
    return frozenset(k for k, weight in keys.items() if k not in said and weight <= W["word"])


def _languages(text: str) -> list[tuple[str, str]]:
    """The languages a task names, by their English name (with a region: "English (United Kingdom)", "Brazilian
    Portuguese"), by a code with a region or script (`zh-Hans`), or by bare codes right before a word of translating
    ("add nl and tr translations"), as (language, region or ""), in order, each once."""
    from rt.index.i18n import LANGUAGES
    found = []
    for m in _LANGUAGE.finditer(text):
        lang = LANGUAGES.get(m.group(2).lower())
        if lang:
            inner = (m.group(3) or "").lower()
            region = _REGIONS.get((m.group(1) or "").lower()) or next((c for r, c in _REGIONS.items()
                                                                        if inner == r or inner.startswith(r + " ")), "")
            found.append((lang, region))
    codes = set(LANGUAGES.values())
    for m in _CODE_RUN.finditer(text):
        found += [(c, "") for c in re.split(r"\s*(?:,|&|\band\b)\s*", m.group(1).lower()) if c in codes - _CODE_WORDS]
    for m in _CODE.finditer(text):
        lang, region = m.group(1), m.group(2).lower()
        if lang in codes and (region in _REGIONS.values() or region == lang):
            found.append((lang, region))
    return list(dict.fromkeys(found))


def _split_run_together(index, query: Query, read) -> None:
    """A task word no file holds, written as two words run together (Kavita's "widthoverride label", for
    `widthOverrideLabel$`), looks for its two words too, at its weight: the most even split into two
    pieces of RUN_PIECE letters or more that some file holds side by side in a name (`width_override`,
    `widthOverride`), which two pieces of an English word never are (`immed` and `iate`)."""
    if read is None:
        return
    for key, weight in list(query.keys.items()):
        word = query.shown[key].lower()
        if not 2 * RUN_PIECE <= len(word) <= RUN_WORD or not word.isalpha() or any(index.postings(k, key) for k in KINDS):
            continue
        middle = len(word) // 2
        for i in sorted(range(RUN_PIECE, len(word) - RUN_PIECE + 1), key=lambda i: (abs(i - middle), i)):
            keys = [keys_of_word(piece) for piece in (word[:i], word[i:])]
            if not all(len(k) == 1 for k in keys):
                continue
            held = [_holding(index, k) for k in keys]
            both = sorted(held[0] & held[1])[:RUN_FILES]
            if any(word in re.sub(r"[-_]", "", read(index.path_of(fid)).lower()) for fid in both):
                for piece, (k,) in zip((word[:i], word[i:]), keys):
                    query.keys.setdefault(k, weight)
                    query.shown.setdefault(k, piece)
                break


def _holding(index, keys) -> set[int]:
    """The files whose text holds one of the ranking keys `keys`, by number."""
    return {v if type(v) is int else v[0] for k in keys for v in index.postings("terms", k)}


def _folded(name: str) -> str:
    """A folder's or scope's name as they are compared: lower-case, without `-`, `_` and `.`."""
    return re.sub(r"[-_.]", "", name.lower())


def _word(word: str, weight: float, ident: bool, add, defined) -> None:
    """The keys of one word: an identifier's whole form weighs most, its pieces like plain words; a
    stop word counts only when it is a defined name."""
    word = word.strip("_$")
    if len(word) < 2 or word.isdigit():
        return
    pieces, whole = word_keys(word)
    if whole:   # an identifier, or a word with digits (`utf8`, `oauth2`): kept whole too
        add(whole, W["ident"] if ident else weight, word)
    elif ident and len(pieces) == 1:
        add(pieces[0][1], W["ident"], word)
        return
    for shown, key in pieces:
        if shown in STOPWORDS:
            if defined is not None and defined(shown):
                add(key, min(weight, W["stop"]), shown)
            continue
        add(key, min(weight, W["word"]), shown)


# ---------------------------------------------------------------- ranking

class Ranked:
    __slots__ = ("path", "score", "why")

    def __init__(self, path: str, score: float, why: list[str] | None = None):
        self.path, self.score, self.why = path, score, why or []


class Ranking:
    """The ranked files, the task's words looked for (`terms`), those found in a few files only, which can
    choose (`informative`), and each ranking key's weight, for `fragments()` (`weights`).

    Plain classes here and in the pack: `dataclasses` costs more start-up than a warm `rt pack` spends ranking."""

    __slots__ = ("files", "terms", "informative", "weights", "recent")

    def __init__(self, files: list[Ranked], terms: list[str], informative: list[str], weights: dict[str, float],
                 recent: int = 0):
        self.files, self.terms, self.informative, self.weights = files, terms, informative, weights
        self.recent = recent   # how many of the first files lead as the work going on (`recent_work`), not by words

    @property
    def vague(self) -> bool:
        return not self.informative


def few(n: int) -> int:
    """The most files of `n` a word may be found in and still choose: a quarter."""
    return max(3, n // 4)


def _idf(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def rank(index, text: str, pinned: list[str] = (), read=None, *, whole: bool = False, extracted=None) -> Ranking:
    """The files that match the task, best first (the RANKED best at least; every one with `whole`);
    pinned files (and files under pinned folders) lead.

    With `read` (path -> text), a quoted UI text that the source locale file holds lifts that file and
    the code using its key. `extracted` (path -> bool, `extracted_apart`) tells a source locale file a tool
    writes apart from the change, weighed as a translation.
    """
    query = parse_task(text, lambda w: bool(index.definitions(w) or index.definitions(w.lower())))
    _split_run_together(index, query, read)
    n = max(1, len(index.paths))
    mean_words = index.mean_words
    raw: dict[int, float] = {}
    matched: dict[int, dict[str, str]] = {}      # file number -> key -> where it matched: path, name, text
    informative: list[str] = []
    limit = few(n)
    weights: dict[str, float] = {}
    stats: dict[int, tuple | None] = {}          # file number -> its stats, None when it is not ranked

    def usable(fids) -> None:
        for fid in fids:
            if fid not in stats:
                st = index.stats(fid)
                stats[fid] = st if st[0] and not unranked(index.path_of(fid)) else None

    for key, weight in query.keys.items():
        lists = [[(v, 1) if type(v) is int else v for v in index.postings(kind, key)] for kind in ("terms", "pterms", "nterms")]
        body, where, names = lists
        if not (body or where or names):
            continue
        usable(fid for lst in lists for fid, _ in lst)
        idf = weight * _idf(n, max(map(len, lists)))
        weights[key] = idf / W["body"] if key in query.details else idf   # the pack's lines: a detail weighs as any word
        rarity = min(1.0, _idf(n, len(where)) / (idf / weight)) ** NAME_RARITY if where else 0.0
        w_name, w_folder = W_NAME * rarity, W_FOLDER * rarity
        if any(0 < len(p) <= limit for p in lists):
            informative.append(query.shown[key])
        tf: dict[int, float] = {}
        hit: dict[int, str] = {}
        for fid, count in body:
            st = stats[fid]
            if st is not None:
                tf[fid] = count / (1 - B + B * (st[1] / (mean_words or 1)) ** LENGTH)
                hit[fid] = "text"
        for fid, place in where:
            if stats[fid] is not None:
                tf[fid] = tf.get(fid, 0.0) + (w_name if place == 2 else w_folder)
                hit[fid] = "path"
        for fid, count in names:   # a definition's name is not diluted by the file's other definitions
            if stats[fid] is not None:
                tf[fid] = tf.get(fid, 0.0) + W_DEFS * count
                if hit.get(fid) != "path":
                    hit[fid] = "name"
        for fid, t in tf.items():
            raw[fid] = raw.get(fid, 0.0) + idf * t * (K1 + 1) / (t + K1)
            matched.setdefault(fid, {})[key] = hit[fid]
        if PATH_IDF and len(body) > PATH_IDF_FROM * n and 0 < len(where) <= limit:
            extra = PATH_IDF * (weight * _idf(n, len(where)) - idf)
            for fid, place in where:
                if stats[fid] is not None:
                    w = W_NAME if place == 2 else W_FOLDER
                    raw[fid] += extra * w * (K1 + 1) / (w + K1)
    about_text = is_about_text(text, query)
    scores: dict[str, float] = {}
    kept: list[float] = []                       # the best RANKED scores so far, smallest first
    most = max(KIND.values()) * (SCOPE if query.scope else 1.0)
    for fid in sorted(raw, key=lambda f: -raw[f]):   # by kind and scope a file gains at most `most`: the rest cannot reach these
        if not whole and len(kept) >= RANKED and raw[fid] * most < kept[0]:
            break
        path = index.path_of(fid)
        kind = weighed_kind(path, index.paths)
        if kind == "source-locale" and extracted is not None and extracted(path):
            kind = "locale"
        scores[path] = raw[fid] * (LOCALE_ELSE if kind == "source-locale" and not about_text else KIND[kind])
        if query.scope and _folded(path.rpartition("/")[0].rpartition("/")[2]) == query.scope:
            scores[path] *= SCOPE
        heapq.heappush(kept, scores[path])
        if len(kept) > RANKED:
            heapq.heappop(kept)
    why: dict[str, list[str]] = {}
    _add_named_paths(index, query, scores, why)
    _add_named_translations(index, query, scores, why)
    locales = _locales(index) if _names_translation(query) else []
    _add_named_languages(index, query, locales, scores, why)
    _add_registries(index, text, query, scores, why)
    if scores and read is not None:
        _add_translations(index, read, query, scores, why)
        _add_language_lists(index, read, query, locales, scores, why)
        _add_run_together(index, read, query, scores, why)
        _add_bumped(index, read, query, scores, why)
    paths = index.paths
    pins = _expand_pins(paths, pinned, scores)
    ordered = [Ranked(p, float("inf"), ["pinned"]) for p in pins]
    rest = sorted((p for p in scores if p not in set(pins)), key=lambda p: (-scores[p], p))
    ids = {index.path_of(f): f for f in matched}
    for i, p in enumerate(rest):
        reasons = _reasons(index, query, matched.get(ids.get(p), {}), p) if i < 15 else []
        ordered.append(Ranked(p, round(scores[p], 4), reasons + why.get(p, [])))
    return Ranking(ordered, query.words, list(dict.fromkeys(informative)), weights)


def settle(index, text: str, pinned: list[str] = (), read=None, *, extracted=None) -> Ranking:
    """`rank` on an index that parses files on demand (`rt/index/partial.py`), whose definition-name
    postings hold only the files parsed so far: its RANKED best files are those of the full index, in
    the same order, with the same scores.

    A file not parsed yet scores at least as ranked without its definitions' names, and at most as
    ranked with every occurrence of a key in its text where a name may be defined taken for a
    definition's name (`Partial.at_most`): a definition's name is a word of its text. While a file's
    most could reach the RANKED-th best least, the files that can, and whose most is above their
    least, are parsed and all ranked again; the last ranking is `rank`'s. A file's
    most moves with the others only by the share of the best score a named path, a quoted text, the named
    translations or a bumped dependency give: without those, one round settles it.
    """
    query = parse_task(text, lambda w: bool(index.definitions(w) or index.definitions(w.lower())))
    shares = bool(query.paths or (query.phrases or query.bumps) and read is not None or LOCALE_WORDS & query.keys.keys()
                  or _names_translation(query))
    settled = False
    while not settled:
        least = rank(index, text, pinned, read, whole=True, extracted=extracted)
        with index.at_most():
            most = {f.path: f.score for f in rank(index, text, pinned, read, whole=True, extracted=extracted).files}
        scores = sorted((f.score for f in least.files if f.why != ["pinned"]), reverse=True)
        floor = scores[RANKED - 1] if len(scores) >= RANKED else 0.0
        now = {f.path: f.score for f in least.files}
        todo = [fid for fid in index.unparsed(least.weights)   # those whose definitions can lift them there
                if floor <= most.get(path := index.path_of(fid), 0.0) > now.get(path, 0.0)]
        index.parse(todo)
        settled = not todo or not shares
    todo = _unsure(index, least.weights)
    while todo:
        index.parse(todo)
        todo = _unsure(index, least.weights)
    return rank(index, text, pinned, read, extracted=extracted)


def _unsure(index, keys) -> list[int]:
    """When no key is sure to choose (`Ranking.informative`) whatever the unparsed files' definitions,
    the unparsed files holding the keys whose definition-name count could decide it: [] when it is sure."""
    limit = few(len(index.paths))
    unsure = []
    for key in keys:
        if any(0 < len(index.postings(kind, key)) <= limit for kind in ("terms", "pterms")):
            return []
        least = len(index.postings("nterms", key))
        if least > limit:
            continue
        with index.at_most():
            most = len(index.postings("nterms", key))
        if least and most <= limit:
            return []
        if most:
            unsure.append(key)
    return index.unparsed(unsure)


_UI_KEYS = frozenset(k for w in UI_WORDS.split() for k in keys_of_word(w))


def is_about_text(text: str, query: Query) -> bool:
    """Whether the task quotes text or names interface words (UI_WORDS, in any form: `labels`, `added`) outside a
    path, whose words name a file (gogs' "user/setting: check for IsErrEmailAlreadyUsed ..." is no setting's label)."""
    if query.phrases or _QUOTED.search(text):
        return True
    return any(k in _UI_KEYS for m in _TOKEN.finditer(text) if "/" not in m.group(0) and not _EXT.search(m.group(0))
               for w in re.findall(r"[A-Za-z0-9]+", m.group(0)) for k in keys_of_word(w))


def weighed_kind(path: str, paths) -> str:
    """`kind_of`, but "locale" for a source locale file that is a regional English copy of another (`i18n.regional_copy`)."""
    kind = kind_of(path)
    if kind != "source-locale":
        return kind
    from rt.index.i18n import regional_copy
    return "locale" if regional_copy(path, paths) else kind


def _reasons(index, query: Query, hits: dict[str, str], path: str) -> list[str]:
    """Why a file ranks: the task's words in its path, its definitions' names, its text."""
    out = []
    in_path = [query.shown[k] for k, w in hits.items() if w == "path"]
    if in_path:
        out.append("path: " + ", ".join(dict.fromkeys(in_path)))
    named = {k for k, w in hits.items() if w == "name"}
    if named:
        entry = index.entry(path)
        found = sorted({d.name for d in (entry.defs if entry else []) if named & set(keys_of_names([d.name]))})
        if found:
            out.append("defines: " + ", ".join(found[:4]))
    in_text = [query.shown[k] for k, w in hits.items() if w == "text"]
    if in_text:
        out.append("text: " + ", ".join(dict.fromkeys(in_text)))
    return out


def keys_of_names(names: list[str]) -> list[str]:
    return [k for name in names for w in re.findall(r"[A-Za-z0-9_]+", name) for k in keys_of_word(w)]


def _add_named_paths(index, query: Query, scores: dict[str, float], why: dict[str, list[str]]) -> None:
    """A path the task names (whole, or its last parts; without its ending too: gogs' scope "user/profile: ..."
    is `routers/user/profile.go`) leads."""
    if not query.paths:
        return
    top = max(scores.values(), default=1.0)
    for named in query.paths[:NAMED_PATHS]:   # each is compared with every path of the tree
        tail = "/" + named.lstrip("./")
        bare = not _EXT.search(named)
        hits = [p for p in index.paths if (("/" + p).endswith(tail) or bare and ("/" + p).rpartition(".")[0].endswith(tail))
                and not is_rt_own(p)]
        if 0 < len(hits) <= 3:
            for p in hits:
                scores[p] = scores.get(p, 0.0) + PATH_HIT * top
                why.setdefault(p, []).append(f"named in the task as {named}")
        if bare:
            _add_named_folder(index, named, tail, top, scores, why)


def _add_named_folder(index, named: str, tail: str, top: float, scores: dict[str, float],
                      why: dict[str, list[str]]) -> None:
    """A folder the task names (`feat(middleware/proxy): ...`, "vendor: update github.com/gogs/git-module") holds the
    change: the best FOLDER_FILES files right in it (code, or vendored code: naming its path is what a task updating
    it does) gain PATH_HIT of the best score, where at most three folders end so."""
    inside: dict[str, list[str]] = {}
    for p in index.paths:
        folder = p.rpartition("/")[0]
        if not ("/" + folder).endswith(tail) or unranked(p):
            continue
        kind = kind_of(p)
        if kind == "code" or kind == "vendored" and language(p) in CODE_LANGS:
            inside.setdefault(folder, []).append(p)
    if not 0 < len(inside) <= 3:
        return
    for files in inside.values():
        for p in sorted(files, key=lambda f: (-scores.get(f, 0.0), f))[:FOLDER_FILES]:
            scores[p] = scores.get(p, 0.0) + PATH_HIT * top
            why.setdefault(p, []).append(f"in the folder the task names, {named}")


def _add_named_translations(index, query: Query, scores: dict[str, float], why: dict[str, list[str]]) -> None:
    """A task naming the translations (LOCALE_WORDS) lifts the source locale files by NAMED_LOCALE of the best score:
    all of them when there are at most NAMED_FILES, else the NAMED_FILES that the task's other words already chose
    (wagtail keeps a `locale/en/LC_MESSAGES/django.po` per app: its "Check edit permission on source page in
    "copy page for translation" action" put 19 of them before the one code file it changed)."""
    if not LOCALE_WORDS & query.keys.keys():
        return
    sources = [p for p in index.paths if weighed_kind(p, index.paths) == "source-locale" and not is_rt_own(p)]
    if len(sources) > NAMED_FILES:
        sources = sorted((p for p in sources if scores.get(p)), key=lambda p: (-scores[p], p))[:NAMED_FILES]
    gain = NAMED_LOCALE * max(scores.values(), default=1.0)
    for path in sources:
        scores[path] = scores.get(path, 0.0) + gain
        why.setdefault(path, []).append("the task names the translations")


def _add_named_languages(index, query: Query, locales: list[tuple[str, tuple[str, str]]], scores: dict[str, float],
                         why: dict[str, list[str]]) -> None:
    """A language the task names, where it names translations too (TRANSLATING), lifts its locale files, at most
    NAMED_FILES, those the task's words chose first: by NAMED_LOCALE of the best score, or by PATH_HIT, as a named file,
    those of the region or script it names (`en-gb.json` for "Translated using Weblate (English (United Kingdom))", not
    `en-us.json`) and those whose path it names (BookStack's Crowdin commits "New translations entities.php (Spanish)":
    `lang/es/entities.php`, one of 40 `entities.php`, too many for the name alone). A translation of another language
    weighs little (KIND's "locale"): jellyfin-web's `en-gb.json` was 63rd to 338th for such tasks. `locales` are
    `_locales`' where the task names such a language (`_names_translation`), else none."""
    from rt.index.i18n import same_language
    top = max(scores.values(), default=1.0)
    tails = ["/" + p.lstrip("./") for p in query.paths]
    for named in query.languages:
        files = [(p, lang) for p, lang in locales if same_language(lang, named)]
        regional = [p for p, (_, region) in files if region] if named[1] else []
        chosen = regional or [p for p, _ in files]
        by_name = {p for p in chosen if any(("/" + p).endswith(t) for t in tails)}
        for path in sorted(chosen, key=lambda p: (p not in by_name, -scores.get(p, 0.0), p.count("/"), p))[:NAMED_FILES]:
            scores[path] = scores.get(path, 0.0) + (PATH_HIT if regional or path in by_name else NAMED_LOCALE) * top
            why.setdefault(path, []).append("the task names its language")


def _names_translation(query: Query) -> bool:
    """Whether the task names a language and a word of translating (TRANSLATING): the language is the translation's."""
    return bool(query.languages and TRANSLATING & query.keys.keys())


def _locales(index) -> list[tuple[str, tuple[str, str]]]:
    """The locale files (translations and the source's) with their language and region (`i18n.language_of`)."""
    from rt.index.i18n import language_of
    return [(p, language_of(p)) for p in index.paths if kind_of(p) in ("locale", "source-locale") and not is_rt_own(p)]


def _add_language_lists(index, read, query: Query, locales: list[tuple[str, tuple[str, str]]], scores: dict[str, float],
                        why: dict[str, list[str]]) -> None:
    """Where the task names a language and translations (as `_add_named_languages`), the files listing the project's
    languages (its language picker, the locales an i18n set-up loads: `src/i18n.js`, `shared/i18n/index.ts`,
    `languages.json`) but not that one gain NAMED_LOCALE of the best score, the NAMED_FILES listing most: "Add Hebrew
    language support" registers the language there; "Translated using Weblate (English (United Kingdom))" edits the
    translation of a language listed already. Such a file says the English name or the quoted code (`"pt-BR"`) of at
    least LIST_LANGUAGES, and half, of the languages its locale files are in; a generated file's base64 holds every
    two letters, but not in quotes. `locales` as `_add_named_languages` takes them."""
    from rt.index.i18n import LANGUAGES
    languages = {lang for _, (lang, _) in locales} - {""}
    if len(languages) < LIST_LANGUAGES:
        return
    least = max(LIST_LANGUAGES, len(languages) / 2)
    asked = languages | {lang for lang, _ in query.languages}
    names = {lang: [n for n, code in LANGUAGES.items() if code == lang] for lang in asked}
    held: dict[int, int] = {}
    for lang in languages:
        for fid in _holding(index, {k for n in names[lang] for k in keys_of_word(n)} | set(keys_of_word(lang))):
            held[fid] = held.get(fid, 0) + 1
    said = {lang: re.compile(r"[\"'`]%s(?:[-_][A-Za-z0-9]+)?[\"'`]|\b(?:%s)\b" % (lang, "|".join(names[lang]) or "$^"),
                             re.IGNORECASE) for lang in asked}
    lists = []
    for fid in sorted(held, key=lambda f: (-held[f], f))[:LIST_READS]:
        path = index.path_of(fid)
        if held[fid] < least or kind_of(path) not in ("code", "data") or "." not in path[path.rfind("/") + 1:] \
                or is_rt_own(path):
            continue   # a `Changelog` names languages it added, in no list
        text = read(path)
        n = sum(1 for lang in languages if said[lang].search(text))
        if n >= least and not all(_lists(text, named, said) for named in query.languages):
            lists.append((n, path))
    top = max(scores.values(), default=1.0)
    for _, path in sorted(lists, key=lambda x: (-x[0], -scores.get(x[1], 0.0), x[1]))[:NAMED_FILES]:
        scores[path] = scores.get(path, 0.0) + NAMED_LOCALE * top
        why.setdefault(path, []).append("lists the languages")


def _lists(text: str, named: tuple[str, str], said: dict) -> bool:
    """Whether a list of languages `text` holds the language `named` (`_languages`): with a region or script named, a
    quoted code of that language and region (`"en-GB"`; `'zh_CN'` for `zh-Hans`); else as `said` (by language) finds it."""
    from rt.index.i18n import same_language
    lang, region = named
    if not region:
        return bool(said[lang].search(text))
    return any(same_language((code.lower(), where.lower()), named) for code, where in _QUOTED_CODE.findall(text))


def _add_registries(index, text: str, query: Query, scores: dict[str, float], why: dict[str, list[str]]) -> None:
    """A folder of many like files whose name of two words or more the task says, its words side by side
    (`monitor-types/` for "add NTP monitor type", `notification-providers/` for "... notification provider"; not
    `envelope-router/` for "envelope cancel, delete and update routes"): the files importing at least half of
    them (and FAMILY of them) register the family, and a new member is registered there (Uptime Kuma's
    `uptime-kuma-server.js`, 6th to 34th for its monitor types): the NAMED_FILES importing most gain NAMED_LOCALE of
    the best score. A one-word name (`element/`, `server/`, `tls/`) is said by tasks about anything in it."""
    said = f" {' '.join(_pieces(text))} "
    folders: dict[str, bool] = {}
    for key in query.keys:
        for v in index.postings("pterms", key):
            folder = index.path_of(v if type(v) is int else v[0]).rpartition("/")[0]
            if folder and folder not in folders:
                named = _pieces(folder.rpartition("/")[2])
                folders[folder] = len(named) > 1 and f" {' '.join(named)} " in said
    families = sorted(f for f, said_whole in folders.items() if said_whole)
    if not families or len(families) > FAMILIES:
        return   # a name many folders share (`mod0/`, `mod1/` ...) names no family
    members: dict[str, list[str]] = {f: [] for f in families}
    for path in index.paths:
        folder = path.rpartition("/")[0]
        if folder in members and kind_of(path) == "code":
            members[folder].append(path)
    registered: dict[str, int] = {}
    for folder, family in members.items():
        if len(family) < FAMILY:
            continue
        counts: dict[str, int] = {}
        for member in family:
            for user in index.importers(member):
                counts[user] = counts.get(user, 0) + 1
        for user, n in counts.items():
            if n >= max(FAMILY, len(family) / 2) and not is_rt_own(user):
                registered[user] = max(registered.get(user, 0), n)
    top = max(scores.values(), default=1.0)
    for path in sorted(registered, key=lambda p: (-registered[p], p))[:NAMED_FILES]:
        scores[path] = scores.get(path, 0.0) + NAMED_LOCALE * top
        why.setdefault(path, []).append("registers the folder the task names")


def _pieces(text: str) -> list[str]:
    """The keys of the pieces of `text`'s words, in order (`monitor-types`, "monitor type": `monitor`, `type`)."""
    return [k for w in re.findall(r"[A-Za-z0-9_]+", text) for _, k in word_keys(w)[0]]


def _add_translations(index, read, query: Query, scores: dict[str, float], why: dict[str, list[str]]) -> None:
    """A quoted text of several words that the source locale file holds as a whole value, or as a
    phrase in one: that file and the code using the key get a share of the best score, once each."""
    from rt.index import i18n
    from rt.index.langs import words
    if not query.phrases:
        return
    gain = TRANSLATION * max(scores.values(), default=1.0)
    lifted: dict[str, str] = {}
    read_entries: dict[str, list[tuple[str, str]]] = {}   # a locale file's (key, its words), read once for all phrases
    for phrase in query.phrases[:NAMED_PATHS]:
        wanted = " ".join(words(phrase))
        found = [set(index.with_word(w)) for w in words(phrase)]
        for path in sorted(set.intersection(*found) if found else set()):
            if weighed_kind(path, index.paths) != "source-locale" or is_rt_own(path):
                continue
            if path not in read_entries:
                read_entries[path] = [(key, " ".join(words(value))) for key, value, _ in i18n.entries(path, read(path))]
            for key, said in read_entries[path]:
                if said != wanted and f" {wanted} " not in f" {said} ":
                    continue
                lifted.setdefault(path, f"translates \"{short(phrase, 40)}\" as {key}")
                for user in sorted(set(index.key_users(key)) | set(index.key_users(i18n.base_key(key)))):
                    if not is_rt_own(user):
                        lifted.setdefault(user, f"uses key {key} of \"{short(phrase, 40)}\"")
    for path, reason in sorted(lifted.items()):
        scores[path] = scores.get(path, 0.0) + gain
        why.setdefault(path, []).append(reason)


def _add_run_together(index, read, query: Query, scores: dict[str, float], why: dict[str, list[str]]) -> None:
    """The files, other than translations, naming a quoted text's words run together (PHRASE_FILES): among those
    holding each of its words, those where they stand joined, or joined by `_` or `-`."""
    top = max(scores.values(), default=1.0)
    for phrase in query.phrases:
        pieces = re.findall(r"[A-Za-z0-9]+", phrase)
        if len(pieces) < 2 or len("".join(pieces)) < 2 * RUN_PIECE:
            continue
        held = [_holding(index, keys) for keys in map(keys_of_word, pieces) if keys]
        joined = re.compile(r"[_-]?".join(map(re.escape, pieces)), re.IGNORECASE)
        found = [path for path in sorted(map(index.path_of, set.intersection(*held) if held else ())) if not unranked(path)
                 and weighed_kind(path, index.paths) not in ("locale", "source-locale") and joined.search(read(path) or "")]
        if 0 < len(found) <= PHRASE_FILES:
            for path in found:
                scores[path] = scores.get(path, 0.0) + TRANSLATION * top * KIND[weighed_kind(path, index.paths)]
                why.setdefault(path, []).append(f"names \"{short(phrase, 40)}\" run together")


MANIFESTS = re.compile(r"(^|/)(package\.json|pnpm-workspace\.yaml|go\.mod|Cargo\.toml|pyproject\.toml|requirements[\w.-]*\.txt|setup\.(py|cfg)|Pipfile|"
                       r"Gemfile|composer\.json|pom\.xml|build\.gradle(\.kts)?|pubspec\.yaml|mix\.exs|[^/]+\.csproj|"
                       r"\.github/workflows/[^/]+\.ya?ml|action\.ya?ml)$")
"""The files declaring a project's dependencies (and its CI's actions), which a bump edits; their lock files a
package manager writes."""


def _add_bumped(index, read, query: Query, scores: dict[str, float], why: dict[str, list[str]]) -> None:
    """The manifests declaring a dependency the task bumps (in the folder it names: "in /" the top and the CI's
    workflows), at most NAMED_FILES, the least deep first, get PATH_HIT of the best score, as a named file does:
    shadcn-svelte's "chore(deps): bump @sveltejs/kit from 2.42.1 to 2.60.1 in /repro" ranked `repro/package.json` 40th,
    under the code installing dependencies (a manifest weighs as data)."""
    if not query.bumps:
        return
    top = max(scores.values(), default=1.0)
    for name, folder in query.bumps:
        declared = re.compile(r"(?<![\w@.-])" + re.escape(name) + r"""(?:(?![\w/-])["']?\s*(?:[:=@<>~^!,]|\s+v?\d|\s*$)|/[\w./-]+@)"""
                              r"|\[([\w-]+\.)*dependencies\." + re.escape(name) + r"\]", re.IGNORECASE | re.MULTILINE)
        found = [p for p in index.paths if MANIFESTS.search(p) and _in_folder(p, folder) and declared.search(read(p) or "")]
        for path in sorted(found, key=lambda p: (p.count("/"), p))[:NAMED_FILES]:
            scores[path] = scores.get(path, 0.0) + PATH_HIT * top
            why.setdefault(path, []).append(f"declares {name}, which the task bumps")


def _in_folder(path: str, folder: str | None) -> bool:
    """Whether `path` lies where a bump names (None: anywhere; "": the top, or the CI's workflows)."""
    if folder is None:
        return True
    if not folder:
        return "/" not in path or path.startswith(".github/")
    return path.startswith(folder + "/")


def extracted_apart(history, path: str) -> bool:
    """Whether the history window's commits changing the source locale file `path` changed code with it in under
    EXTRACTED of them: a catalogue a tool writes from the code's strings apart from the change (Django's
    `makemessages`, lingui's extract, a translation service's sync), which no task's edit goes into."""
    mine = history.of.get(path)
    if not mine:
        return False
    with_code = sum(1 for i in mine if any(kind_of(p) == "code" for p in history.commits[i] if p != path))
    return with_code < EXTRACTED * len(mine)


def changed_with(ranking: Ranking, history, indexed) -> Ranking:
    """The ranking with each of its LEADS best files lending the files changed with it before
    (`rt/index/history.py`) TOGETHER of its score, times the share of its commits that changed them too and
    their kind's weight (the source locale file's as code's). Only files the index holds gain (`indexed`, a
    set; not rt's own); pinned files stay first."""
    pinned = [f for f in ranking.files if f.why == ["pinned"]]
    rest = ranking.files[len(pinned):]
    scores = {f.path: f.score for f in rest}
    best: dict[str, tuple[float, str]] = {}   # path -> its largest gain, and from which file
    skip = {f.path for f in pinned}
    for lead in rest[:LEADS]:
        if lead.score <= 0:
            break
        for path, (n, of) in history.partners(lead.path).items():
            if _lendable(path, indexed, skip):
                kind = weighed_kind(path, indexed)
                gain = TOGETHER * lead.score * n / of * (1.0 if kind == "source-locale" else KIND[kind])
                scores[path] = scores.get(path, 0.0) + gain
                if gain > best.get(path, (0.0, ""))[0]:
                    best[path] = gain, f"changed with {lead.path} ({n} of {of} commits)"
    if not best:
        return ranking
    return _lent(ranking, scores, best)


def like_commits(ranking: Ranking, history, indexed) -> Ranking:
    """The ranking with the files of the LIKE_COMMITS past commits whose messages read most like the task
    (BM25 of the task's keys over the recent commits' messages, `rt/index/history.py`) lent LIKE of the best
    score, times each commit's likeness against a message holding every key, spread over its files (by the
    square root of their number) and times each file's kind weight. Only files the index holds gain
    (`indexed`; not rt's own, not pinned); pinned files stay first."""
    pinned = [f for f in ranking.files if f.why == ["pinned"]]
    rest = ranking.files[len(pinned):]
    if LIKE <= 0 or not rest or not history.commits or not ranking.weights:
        return ranking
    n = len(history.commits)
    words = [ws.split() for ws in history.words]
    df: dict[str, int] = {}
    for ws in words:
        for w in ws:
            if w in ranking.weights:
                df[w] = df.get(w, 0) + 1
    rarity = {k: w * _idf(n, df[k]) for k, w in ranking.weights.items() if df.get(k, 0)}
    if not rarity:
        return ranking
    mean = sum(len(ws) for ws in words) / n
    whole = sum(w * _idf(n, 0) for w in ranking.weights.values())   # a message holding every key
    likes = []
    for i, ws in enumerate(words):
        s = sum(rarity.get(w, 0.0) for w in ws)
        if s > 0:
            likes.append((s * (K1 + 1) / (1 + K1 * (1 - B + B * len(ws) / mean)), i))
    top = rest[0].score
    skip = {f.path for f in pinned}
    gained: dict[str, float] = {}
    for like, i in heapq.nlargest(LIKE_COMMITS, likes):
        share = LIKE * top * min(1.0, like / whole) / math.sqrt(len(history.commits[i]))
        for p in history.commits[i]:
            if _lendable(p, indexed, skip):
                gained[p] = gained.get(p, 0.0) + share * KIND[weighed_kind(p, indexed)]
    if not gained:
        return ranking
    scores = {f.path: f.score for f in rest}
    for p, gain in gained.items():
        scores[p] = scores.get(p, 0.0) + gain
    return _lent(ranking, scores, {p: (gain, "changed by past commits like the task") for p, gain in gained.items()})


def recent_work(ranking: Ranking, history, indexed, uncommitted: list[str] = ()) -> Ranking:
    """A vague task's ranking led by the files of the work going on, RECENT_FILES at most: those changed in the
    working tree and not committed (`uncommitted`), then those the last commits changed, newest first (not tests,
    not `unranked`, only files the index holds), each saying how recent. Its words choose nothing, and where work
    is going on is the best guess of where it is. A task that chooses, or with pinned files, keeps its ranking."""
    if not ranking.vague or any(not why.startswith(_BY_WORDS) for f in ranking.files for why in f.why):
        return ranking   # a rule chose files (a path, a folder, the translations the task names), or a pin did
    recent: dict[str, int] = {}
    for i, paths in enumerate([list(uncommitted)] + (history.commits if history else [])):
        for p in paths:
            if p not in recent and _lendable(p, indexed, set()) and not is_test(p):
                recent[p] = i
        if len(recent) >= RECENT_FILES:
            break
    if not recent:
        return ranking
    chosen = list(recent)[:RECENT_FILES]
    top = max([f.score for f in ranking.files] + [1.0])
    said = {0: NOT_COMMITTED, 1: "changed by the last commit"}
    files = [Ranked(p, round(top * (2 - k / len(chosen)), 4), [said.get(recent[p], f"changed {recent[p]} commits back")])
             for k, p in enumerate(chosen)]
    return Ranking(files + [f for f in ranking.files if f.path not in chosen], ranking.terms, ranking.informative,
                   ranking.weights, len(files))


NOT_COMMITTED = "changed in the working tree, not committed"
"""Why a vague task's file leads that the work going on changed and did not commit yet (`recent_work`)."""
_BY_WORDS = ("path: ", "defines: ", "text: ", "changed with ", "changed by past commits like the task")
"""How a file's reasons start when only its words ranked it (`_reasons`), or a share the best files lent it: a vague
task's files so ranked choose nothing."""


def _lendable(path: str, indexed, pinned: set[str]) -> bool:
    """Whether a file may be lent a share: the index holds it, it is not pinned (pinned files lead as they
    are) and not `unranked`."""
    return path in indexed and path not in pinned and not unranked(path)


def _lent(ranking: Ranking, scores: dict[str, float], lent: dict[str, tuple[float, str]]) -> Ranking:
    """`ranking` with its unpinned files scored `scores` now (the shares lent added), best first; a file lent a
    share (`lent`: the share and why) says why last where that share is at least half its score, its main
    reason. Pinned files stay first."""
    pinned = [f for f in ranking.files if f.why == ["pinned"]]
    why = {f.path: f.why for f in ranking.files[len(pinned):]}
    said = {p: reason for p, (gain, reason) in lent.items() if 2 * gain >= scores[p]}
    files = [Ranked(p, round(scores[p], 4), why.get(p, []) + ([said[p]] if p in said else []))
             for p in sorted(scores, key=lambda p: (-scores[p], p))]
    return Ranking(pinned + files, ranking.terms, ranking.informative, ranking.weights)


def _expand_pins(paths: list[str], pinned, scores: dict[str, float]) -> list[str]:
    """The pinned files, in the order pinned; a pinned folder's files by their score for the task, best first
    (its README, licences and manifests after the files the task's words are in), then by path."""
    out: list[str] = []
    for pin in pinned:
        if pin in ("", "."):
            continue
        hits = [pin] if pin in paths else sorted((p for p in paths if p.startswith(pin.rstrip("/") + "/")),
                                                 key=lambda p: (-scores.get(p, 0.0), p))
        out += [h for h in hits if h not in out]
    return out


def short(text: str, n: int) -> str:
    """`text` on one line, cut to `n` characters with a visible "..."."""
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 3] + "..."

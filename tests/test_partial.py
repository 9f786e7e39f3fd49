"""The cold `/runtask`: a partial index (rt/index/partial.py) gives the ranking, the pack and the injection
what the full index gives, parsing only the files the task can reach; the full build runs after the hook."""
from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from hooks_support import hook

from rt.core import Repo
from rt.index import index, terms
from rt.index.partial import PARTIAL_FROM, Partial
from rt.core import is_test
from rt.pack.rank import RANKED, rank, settle
from rt.snapshot import scan
from rt.store import Store

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from genrepo import generate

TASKS = ("fix the invoice total in the cart report export", "add a get method to the cart",
         "rename report_helper to make it clearer", "Invoice export fails for empty carts",
         "the `parse_args` of the session", "update the helper", "render the label of the button")
"""Rare words, common ones, a stop word that is a defined name (`get`), an identifier, a vague task."""


SOURCES = {
    "tsconfig.json": '{"compilerOptions": {"paths": {"@shop/basket": ["./web/cart.ts"], "@ui/*": ["./ui/*"]}}}\n',
    "web/aliased.ts": "import { get } from '@shop/basket';\nget('x');\n",
    "srv/conf.go": "package srv\n\nimport \"sync\"\n\nconst (\n\tBeginRequest uint8 = iota + 1\n\tAbortRequest\n)\n\n"
                   "var (\n\tcleanerOnce sync.Once\n\tmu, other sync.Mutex\n)\n\ntype Handler func(n int) error\n\n"
                   "type Server struct {\n\tName string\n}\n\nfunc (s *Server) Serve(n int) error {\n\treturn nil\n}\n",
    "core/src/lib.rs": "pub mod cart;\n\npub struct Cart<T> {\n    items: Vec<T>,\n}\n\nimpl<T> Cart<T> {\n"
                       "    pub fn total(&self) -> usize {\n        self.items.len()\n    }\n}\n\n"
                       "pub trait Priced {\n    fn price(&self) -> u32;\n}\n\nmacro_rules! cart_of {\n    () => {};\n}\n",
    "java/src/Invoice.java": "package shop;\n\nimport java.util.List;\n\npublic class Invoice implements Priced {\n"
                             "    private int count;\n    public Invoice(int count) { this.count = count; }\n"
                             "    public int total() {\n        return count;\n    }\n    enum State { OPEN, PAID }\n}\n",
    "ui/Cart.vue": "<template><div>{{ total }}</div></template>\n<script lang=\"ts\">\n"
                   "export default { name: 'Cart', data() { return { total: 0 } }, methods: { add(n: number) { return n } } }\n"
                   "</script>\n",
    "ui/view.tsx": "interface Props {\n  label?: string;\n  onClick: () => void;\n}\n\n"
                   "export function CartView({ label }: Props) {\n  return <div>{label}</div>;\n}\n\n"
                   "export class Store {\n  items = [];\n  get size() { return this.items.length; }\n"
                   "  static create(): Store { return new Store(); }\n}\n\nexport type Id = string;\nexport enum Mode { A, B }\n",
}
"""Definitions as each language's reader finds them: Go groups and method receivers, Rust impls, traits
and macros, Java fields and nested enums, a Vue script block, TypeScript interfaces, getters, types."""


def _both(root: Path) -> tuple[Partial, index.Index]:
    repo = Repo(root, (root / ".git").is_dir())
    store = Store(repo)
    full = index.load(SimpleNamespace(repo=repo, store=store, probe=None))
    return Partial(repo, scan(repo, store).files), full


def _ranked(r) -> tuple:
    return ([(f.path, f.score, f.why) for f in r.files[:RANKED]], r.terms, r.weights, r.vague)


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """A generated repository of 3,000 files, with a few hand-written ones, in git."""
    root = tmp_path_factory.mktemp("cold") / "repo"
    generate(root, 3000)
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text("from .cart import Cart\n")
    (root / "app" / "cart.py").write_text("GET = 1\n\n\nclass Cart:\n    def get(self, key):\n        return key\n")
    (root / "app" / "use.py").write_text("from . import cart\nfrom app.cart import Cart\n\nCart().get(cart.GET)\n")
    (root / "web").mkdir()
    (root / "web" / "cart.ts").write_text("export const get = (k: string) => k;\nexport function total() { return 1 }\n")
    (root / "web" / "page.ts").write_text("import { get } from './cart';\nget('a');\n")
    for rel, text in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"], cwd=root, check=True)
    return root


@pytest.mark.parametrize("task", ["chore: extract translations", "Improvements for cart i18n",
                                  "fix the invoice total translation in the cart report"])
def test_settled_ranking_agrees_when_the_task_names_the_translations(tmp_path, task):
    """Naming the translations lifts each source locale file by a share of the best score, as a named path does:
    settling goes round again, and ends on `rank`'s answer."""
    root = tmp_path / "repo"
    generate(root, 3000)
    (root / "src" / "lang").mkdir(parents=True)
    (root / "src" / "lang" / "en.json").write_text(json.dumps({"cartTotal": "Cart total", "invoice": "Export the invoice"}))
    (root / "src" / "lang" / "de.json").write_text(json.dumps({"cartTotal": "Summe"}))
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"], cwd=root, check=True)
    partial, full = _both(root)
    read = lambda path: (root / path).read_text()   # noqa: E731
    got = settle(partial, task, (), read)
    assert _ranked(got) == _ranked(rank(full, task, (), read))
    assert "src/lang/en.json" in [f.path for f in got.files[:3]]


@pytest.mark.parametrize("task", TASKS)
def test_settled_ranking_is_the_full_index_ranking(tree, task):
    partial, full = _both(tree)
    got = settle(partial, task)
    assert _ranked(got) == _ranked(rank(full, task))
    if task != "update the helper":   # vague: every file holding its word is parsed to say so
        assert partial.parsed < len(partial.paths) // 2


def test_look_ups_answer_as_the_full_index(tree):
    partial, full = _both(tree)
    assert partial.paths == full.paths
    assert partial.mean_words == full.mean_words
    assert [partial.stats(i) for i in range(0, len(full.paths), 7)] == [full.stats(i) for i in range(0, len(full.paths), 7)]
    for name in ("get", "Cart", "GET", "total", "report_helper_17", "in", "the"):
        assert partial.definitions(name) == full.definitions(name), name
    for ident in ("Cart", "get", "report_helper_17"):
        assert partial.users(ident) == full.users(ident), ident
    for word in ("invoice", "cart", "zzz"):
        assert partial.with_word(word) == full.with_word(word), word
    for path in ("app/__init__.py", "app/cart.py", "web/cart.ts", "ui/view.tsx", full.paths[40], full.paths[41]):
        assert partial.importers(path) == full.importers(path), path
    assert "web/aliased.ts" in partial.importers("web/cart.ts")   # through the tsconfig alias alone
    for kind in terms.KINDS:
        for key in ("invoic", "cart", "get", "reporthelper", "export"):
            got = partial.postings(kind, key)
            if kind == "nterms":   # only the parsed files' names: the files parsed so far are a subset
                parsed = {v if type(v) is int else v[0] for v in got}
                want = [v for v in full.postings(kind, key) if (v if type(v) is int else v[0]) in parsed]
                assert got == want
            else:
                assert got == full.postings(kind, key), (kind, key)
    e, built = partial.entry("app/cart.py"), full.base_entry("app/cart.py")
    assert (e.path, e.defs, e.idents, e.words) == (built.path, built.defs, built.idents, built.words)


def test_definitions_are_reached_in_every_language(tree):
    partial, full = _both(tree)
    names = sorted({d.name for p in SOURCES for d in full.entry(p).defs})
    assert len(names) >= 20
    assert {n: partial.definitions(n) for n in names} == {n: full.definitions(n) for n in names}


def test_definitions_are_reached_in_real_code(tmp_path):
    """Every definition the full index holds of rt's own source and test fixtures (Python, JS, TS, Go,
    Rust, Java) is found by the partial index's narrowing to the files that may define a name."""
    subprocess.run(["git", "clone", "-q", str(ROOT), str(tmp_path / "rt")], check=True)
    partial, full = _both(tmp_path / "rt")
    names = sorted({d.name for e in full.files.values() for d in e.defs})[::5]   # a fifth: each one scans the tree
    assert len(names) > 200
    missed = [n for n in names if partial.definitions(n) != full.definitions(n)]
    assert missed == []


def test_word_total_is_the_sum_of_the_counts():
    files = sorted(p for p in (ROOT / "rt").rglob("*.py")) + sorted((ROOT / "tests").glob("*.py"))[:40]
    for path in files:
        data = path.read_bytes()
        assert terms.word_total(data) == sum(terms.text_counts(data.decode("utf-8")).values()), path


def _ready(root: Path, limit: float = 120.0) -> None:
    """Wait for the index the cold hook left to build: its meta file, then its lock free."""
    start = time.monotonic()
    while not (root / ".rt" / "index" / "meta.json").is_file():
        assert time.monotonic() - start < limit, "no index was built after the cold /runtask"
        time.sleep(0.05)
    fd = os.open(root / ".rt" / "index" / ".lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    finally:
        os.close(fd)


def _runtask(project, text: str) -> str:
    code, out, err = hook(project, "user-prompt-submit", {"session_id": "s", "cwd": str(project.root),
                                                          "hook_event_name": "UserPromptSubmit",
                                                          "prompt": f"/runtask {text}"})
    assert code == 0, err
    return out["hookSpecificOutput"]["additionalContext"]


def _task_files(project) -> dict[str, str]:
    folder = next((project.root / ".rt" / "tasks").iterdir())
    return {name: (folder / name).read_text() for name in ("manifest.md", "pack.md")}


def _forget_task(project) -> None:
    subprocess.run(["rm", "-rf", str(project.root / ".rt" / "tasks"), str(project.root / ".rt" / "state.json")],
                   check=True)


def test_cold_runtask_injects_what_the_warm_one_does_and_builds_the_index_after(project):
    generate(project.root, PARTIAL_FROM + 500)
    project.init_git()
    task = "fix the invoice total in the cart report export"
    cold = _runtask(project, task)
    cold_files = _task_files(project)
    _ready(project.root)
    meta = json.loads((project.root / ".rt" / "index" / "meta.json").read_text())
    assert meta["files"] == len(project.git("ls-files").split())
    assert project.git("status", "--porcelain") == ""
    assert "(0 files parsed now)" in project.rt("index")   # current: the build after the hook made it
    _forget_task(project)
    warm = _runtask(project, task)
    assert cold == warm
    assert cold_files == _task_files(project)


def test_the_cold_index_is_the_tree_as_the_baseline_checks_left_it(project):
    """The cold index is the task's snapshot (no second scan of the tree, none of the bytes it read read again)
    with what the baseline's checks made, changed or deleted applied: a file a check writes or rewrites ranks as
    the warm index ranks it, one it deletes is not there."""
    generate(project.root, PARTIAL_FROM + 200)
    project.write("rt.toml", '[checks.maker]\nkind = "lint"\nparser = "generic"\ncommand = ["sh", "-c", '
                  '"printf \'def zorbly_quux_total(rows):\\n    return sum(rows)\\n\' > made_zorbly.py; '
                  'printf \'def zorbly_quux_kept():\\n    return 1\\n\' > helpers_kept.py; rm -f gone_zorbly.py"]\n')
    project.write("gone_zorbly.py", "def zorbly_quux_gone():\n    return 0\n")
    project.write("helpers_kept.py", "def unrelated():\n    return 1\n")   # what the snapshot read, then rewritten
    project.init_git()
    task = "fix the zorbly quux total"
    cold = _runtask(project, task)
    assert "made_zorbly.py" in cold and "helpers_kept.py" in cold and "gone_zorbly.py" not in cold, cold
    _ready(project.root)
    _forget_task(project)
    project.git("checkout", "-q", "--", "gone_zorbly.py", "helpers_kept.py")   # as the warm run's baseline finds them
    assert _runtask(project, task) == cold


def test_the_background_build_is_rts_own_in_a_repository_with_an_rt_package(project):
    """The build after the hook starts in the repository: a package of the project's own named rt must not
    be the one that runs (Python puts the working folder first on the path unless told not to)."""
    generate(project.root, PARTIAL_FROM + 500)
    project.write("rt/__init__.py", "")
    project.write("rt/__main__.py", "open('HIJACKED', 'w').write('the project\\'s rt ran')\n")
    project.init_git()
    payload = json.dumps({"session_id": "s", "cwd": str(project.root), "hook_event_name": "UserPromptSubmit",
                          "prompt": "/runtask fix the invoice total in the cart report export"})
    proc = subprocess.run([sys.executable, "-S", "-P", "-m", "rt", "hook", "user-prompt-submit"],   # as installed
                          cwd=project.root, input=payload, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "invoice" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"], proc.stderr
    _ready(project.root)
    assert not (project.root / "HIJACKED").exists()
    assert json.loads((project.root / ".rt" / "index" / "meta.json").read_text())["files"] == \
        len(project.git("ls-files").split())


def test_a_look_up_during_the_background_build_gets_the_full_index(project):
    generate(project.root, PARTIAL_FROM + 500)
    project.write("app/late.py", "def cold_lookup_target():\n    return 1\n")
    project.init_git()
    _runtask(project, "the invoice report")
    answer = project.rt("symbol", "cold_lookup_target")   # waits for the build's lock if it still runs
    _ready(project.root)
    assert answer == project.rt("symbol", "cold_lookup_target")
    assert "app/late.py" in answer


def test_a_small_repository_is_indexed_in_the_hook(project):
    generate(project.root, 200)
    project.init_git()
    _runtask(project, "the invoice report")
    assert (project.root / ".rt" / "index" / "meta.json").is_file()   # built in the hook: nothing left to run


def test_a_long_task_ranks_on_the_full_index_built_in_the_hook(project):
    """Each word a partial index looks up is a pass over the tree: a task of many is ranked on the full index."""
    generate(project.root, PARTIAL_FROM + 100)
    project.init_git()
    words = " ".join(f"word{i} of the thing" for i in range(12))
    _runtask(project, f"fix the invoice report: {words}")
    assert (project.root / ".rt" / "index" / "meta.json").is_file()   # built in the hook, not after it


WEB_FILE = '''import {{ format }} from "@shared/utils/format{n}";
import Panel{n} from "./Panel{n}";

// Move the item to the list the user chose; the order of the rest is kept.
/*
 * Copy the link to the clipboard, then show the toast of the result.
 */
export default function Page{n}({{ items }}: Props) {{
  const label = "Go to the page of the item";
  return (
    <Panel{n} left={{0}} to={{`/items/${{items.length}}`}} title={{label}}>
      Choose the item to show
    </Panel{n}>
  );
}}
'''
"""A web app's page: the words of a task (`the`, `to`, `left`) in comments, strings, JSX props and text,
none defining them; an import through a wildcard tsconfig alias."""


@pytest.fixture(scope="module")
def web(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("web") / "repo"
    (root / "app").mkdir(parents=True)
    (root / "shared" / "utils").mkdir(parents=True)
    (root / "tsconfig.json").write_text('{"compilerOptions": {"paths": {"@shared/*": ["./shared/*"]}}}\n')
    for n in range(PARTIAL_FROM):
        (root / "app" / f"Page{n}.tsx").write_text(WEB_FILE.format(n=n))
        (root / "shared" / "utils" / f"format{n}.ts").write_text(f"export const format = (x: number) => `${{x}}{n}`;\n")
    (root / "app" / "Menu.tsx").write_text("export class Menu {\n  left = () => 0;\n  to(x: number) {\n    return x;\n  }\n}\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"], cwd=root, check=True)
    return root


def test_words_in_comments_strings_and_props_are_not_taken_for_definitions(web):
    """`definitions` parses only the files where a name can be defined: not where it is in a comment, a
    string, JSX text or a JSX prop; a class property's function and a method still are."""
    partial, full = _both(web)
    for name in ("the", "of", "item", "title", "clipboard"):
        assert partial.definitions(name) == full.definitions(name) == [], name
    assert partial.parsed == 0
    for name in ("left", "to"):
        assert partial.definitions(name) == full.definitions(name) != [], name
    assert partial.parsed == 1   # app/Menu.tsx alone


def test_an_import_through_a_wildcard_alias_is_looked_for_by_the_files_name(web):
    partial, full = _both(web)
    assert partial.importers("shared/utils/format7.ts") == full.importers("shared/utils/format7.ts") == ["app/Page7.tsx"]
    assert partial.parsed <= 12   # the files naming `format7` (format7, format70-79), not every `@shared/` user


def test_users_among_tests_parse_no_other_file(web):
    partial, full = _both(web)
    assert partial.users("format", among=is_test) == full.users("format", among=is_test) == []
    assert partial.parsed == 0
    assert partial.users("format") == full.users("format")


@pytest.mark.parametrize("task", ["move the item to the list on the left", "Copy the link to the clipboard"])
def test_a_task_of_common_words_settles_on_few_files(web, task):
    """A file's most from its definitions counts only the places its text can define a key: the pages holding
    every task word many times, in comments, strings and props, are not parsed to learn they define none."""
    partial, full = _both(web)
    assert _ranked(settle(partial, task)) == _ranked(rank(full, task))
    assert partial.parsed < 50


def test_importers_through_a_go_module_path_and_an_alias_into_a_folders_name(tmp_path):
    """A Go package is imported by its module path (the module's root package too); a tsconfig alias may put
    the import's words in the middle of a folder's name (`@lib/cart` for `packages/lib-cart/src/index.ts`)."""
    root = tmp_path / "repo"
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.21\n",
        "total.go": "package shop\n\nfunc Total() int { return 1 }\n",
        "cmd/shop/main.go": 'package main\n\nimport (\n\t"example.com/shop"\n\t"example.com/shop/api"\n)\n\n'
                            "func main() { shop.Total(); api.Serve() }\n",
        "api/api.go": "package api\n\nfunc Serve() {}\n",
        "api/other.go": 'package api\n\nimport "example.com/shop/api/v2"\n\nvar _ = v2.X\n',
        "api/v2/v2.go": "package v2\n\nvar X = 1\n",
        "tsconfig.json": '{"compilerOptions": {"paths": {"@lib/*": ["./packages/lib-*/src"]}}}\n',
        "packages/lib-cart/src/index.ts": "export const cart = 1;\n",
        "app/use.ts": 'import { cart } from "@lib/cart";\nexport const n = cart;\n',
        "app/src.ts": 'import { x } from "../other/src/thing";\nexport const y = x;\n',
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    partial, full = _both(root)
    want = {"total.go": ["cmd/shop/main.go"], "api/api.go": ["cmd/shop/main.go"], "api/v2/v2.go": ["api/other.go"],
            "packages/lib-cart/src/index.ts": ["app/use.ts"]}
    for path, importers in want.items():
        assert partial.importers(path) == full.importers(path) == importers, path
    assert "app/src.ts" not in {partial.path_of(f) for f in partial.entries}   # `src/thing` names no index


def test_a_string_naming_the_file_with_another_ending_is_no_import(tmp_path):
    """`"/api/documents.info"` (a route) names `documents` but no file `documents.ts`: the files holding it are not
    parsed to learn they import nothing; `"../api/documents"` and a package index by its folder still are."""
    root = tmp_path / "repo"
    (root / "app").mkdir(parents=True)
    (root / "api" / "store").mkdir(parents=True)
    (root / "api" / "documents.ts").write_text("export const info = 1;\n")
    (root / "api" / "store" / "index.ts").write_text("export const store = 1;\n")
    (root / "app" / "use.ts").write_text('import { info } from "../api/documents";\nimport { store } from "../api/store";\n')
    for n in range(200):
        (root / "app" / f"page{n}.ts").write_text(f'export const p{n} = () => post("/api/documents.info", {n});\n')
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    partial, full = _both(root)
    assert partial.importers("api/documents.ts") == full.importers("api/documents.ts") == ["app/use.ts"]
    assert partial.importers("api/store/index.ts") == full.importers("api/store/index.ts") == ["app/use.ts"]
    assert partial.parsed == 1


def test_a_line_over_the_minified_length_is_found_wherever_it_lies():
    """`_long_line` looks only at the blocks without a newline: it says what the lengths of every line say."""
    from rt.index.langs import MINIFIED_LINE
    from rt.index.partial import _long_line
    for n in (MINIFIED_LINE - 1, MINIFIED_LINE, MINIFIED_LINE + 1, 3 * MINIFIED_LINE):
        for lead in (0, 1, MINIFIED_LINE // 2 - 1, MINIFIED_LINE // 2, MINIFIED_LINE // 2 + 1, 7777):
            for tail in (b"", b"\n", b"\nx\n"):
                data = b"a\n" * lead + b"x" * n + tail
                assert _long_line(data) == (max(map(len, data.split(b"\n"))) > MINIFIED_LINE), (n, lead, tail)

"""rt symbol, refs, slice and outline: answers from the index, plain messages for names found nowhere."""
from __future__ import annotations

import os
import re
import subprocess
import time

import pytest

import rt.index.index
import rt.lookup.symbols as symbols
import rt.snapshot


def _repo(project):
    project.write("app/models.py", "class Cart:\n    def total(self):\n        return 0\n\n\ndef checkout(cart):\n"
                                   "    return cart.total()\n")
    project.write("app/views.py", "from app.models import checkout\n\n\ndef page():\n    return checkout(None)\n")
    project.write("app/other.py", "def checkout_helper():\n    checkout = 1\n    return checkout\n")
    project.write("web/cart.ts", "export function total(items: number[]): number {\n  return items.length;\n}\n")
    project.init_git()


def test_symbol_kind_signature_and_qualified_name(project):
    _repo(project)
    out = project.rt("symbol", "total")
    assert out.splitlines() == ["app/models.py:2-3  method Cart.total  def total(self):",
                                "web/cart.ts:1-3  function total  export function total(items: number[]): number {"]
    assert project.rt("symbol", "Cart.total").splitlines() == ["app/models.py:2-3  method Cart.total  def total(self):"]
    data = project.rt_json("symbol", "checkout")
    assert [(d["path"], d["kind"], d["start"], d["end"]) for d in data["definitions"]] == [("app/models.py", "function", 6, 7)]


def test_name_found_nowhere_says_so_and_exits_1(project):
    _repo(project)
    out = project.rt("symbol", "doesNotExist", ret=1)
    assert "doesNotExist: no definition in the 4 indexed files" in out
    assert "used nowhere" in project.rt("refs", "doesNotExist", ret=1)
    assert project.rt_json("refs", "doesNotExist", ret=1) == {"name": "doesNotExist", "found": False, "closest": []}
    # another case or a misspelling: the defined names like it, in the form asked (`Class.method` or bare)
    assert project.rt("symbol", "checkOut", ret=1) == ("checkOut: no definition in the 4 indexed files; did you mean "
                                                       "checkout? `rt find \"checkOut\"` searches paths, translations and text\n")
    assert project.rt_json("symbol", "chekout_helper", ret=1)["closest"] == ["checkout_helper"]
    assert project.rt_json("symbol", "cart.totl", ret=1)["closest"] == ["Cart.total"]
    assert project.rt_json("refs", "Checkout", ret=1)["closest"] == ["checkout"]
    for command in ("symbol", "refs"):   # no name at all is a usage error, not a name found nowhere
        project.rt(command, " ", ret=2)
        assert project.last_err.strip() == f"rt: error: give the name to look up, for example: rt {command} render"


def test_refs_marks_definers_and_importers_first(project):
    _repo(project)
    lines = project.rt("refs", "checkout").splitlines()
    assert lines == ["checkout: used in 3 files, 1 import its definition",
                     "app/models.py (defines it): 6", "app/views.py (imports it): 1, 5", "app/other.py: 2, 3"]


def test_a_tests_definitions_and_uses_come_after_the_products(project):
    """A test's fake `ServeHTTP` and a test calling it sort before the product by path (`handler_test.go`,
    `a_test.go`); each is listed after the product's files of its kind (definers, then the other users), as
    `rt find` lists them."""
    project.write("lib/handler_test.go", "package lib\n\ntype fake struct{}\n\nfunc (fake) ServeHTTP() {}\n")
    project.write("lib/a_test.go", "package lib\n\nfunc TestServe() { Server{}.ServeHTTP() }\n")
    project.write("lib/server.go", "package lib\n\ntype Server struct{}\n\nfunc (s Server) ServeHTTP() {}\n")
    project.write("lib/mux.go", "package lib\n\nfunc route() { Server{}.ServeHTTP() }\n")
    project.init_git()
    assert [r.split(":")[0] for r in project.rt("symbol", "ServeHTTP").splitlines()] == ["lib/server.go",
                                                                                      "lib/handler_test.go"]
    assert [r.split(":")[0].split(" (")[0] for r in project.rt("refs", "ServeHTTP").splitlines()[1:]] == [
        "lib/server.go", "lib/handler_test.go", "lib/mux.go", "lib/a_test.go"]


def test_refs_finds_names_another_language_reserves(project):
    """`new` is a keyword in JavaScript, not in Rust or Go; `ref`, `get`, `match` are keywords in Rust, not in
    JavaScript: a file's identifiers leave out only its own language's reserved words."""
    project.write("lib.js", "export function ref(v) { return { value: v } }\nexport const get = (m, k) => m.get(k)\n")
    project.write("app.js", 'import { ref, get } from "./lib.js"\nconst n = ref(0)\nget(n, "value")\n')
    project.write("s.rs", "struct S;\nimpl S {\n    fn new() -> S { S }\n}\nfn f() -> S { S::new() }\n")
    project.write("m.go", "package main\n\nfunc main() { p := new(int); _ = p }\n")
    project.write("r.rs", "fn ref_kw(x: &i32) { let ref y = *x; }\n")
    project.init_git()
    assert project.rt_proc("refs", "ref").stdout == ("ref: used in 2 files, 1 import its definition\n"
                                                     "lib.js (defines it): 1\napp.js (imports it): 1, 2\n")
    assert project.rt_proc("refs", "get").stdout.startswith("get: used in 2 files, 1 import its definition\n")
    assert project.rt_proc("refs", "new").stdout == ("new: used in 2 files, 0 import its definition\n"
                                                     "s.rs (defines it): 3, 5\nm.go: 3\n")


def test_refs_common_word_caps_at_20_files(project):
    for i in range(25):
        project.write(f"m{i:02}.py", "def run(data):\n    return data\n")
    project.init_git()
    data = project.rt_json("refs", "data")
    assert data["total"] == 25 and len(data["files"]) == 20 and len(data["more"]) == 5
    assert project.rt("refs", "data").splitlines()[-1] == "... and 5 more files (`rt refs data --json` lists them all)"


def test_slice_lines_symbol_and_cut_long_lines(project):
    project.write("a.py", "def f():\n    x = '" + "y" * 500 + "'\n    return x\n\n\nclass K:\n    def m(self):\n        pass\n")
    project.init_git()
    out = project.rt("slice", "a.py", "--lines", "2:2")
    assert out.startswith("a.py:2-2\n2|     x = 'yyy")
    assert "[... 110 more characters cut]" in out and len(out.splitlines()[1]) < 460
    assert project.rt("slice", "a.py", "--symbol", "K.m").splitlines() == [
        "a.py:7-8  method K.m", "7|     def m(self):", "8|         pass"]
    assert "(the file ends at line 8)" in project.rt("slice", "a.py", "--lines", "6:99")
    assert project.rt("slice", "a.py", "--lines", "2-3") == project.rt("slice", "a.py", "--lines", "2:3")   # as symbol prints it
    project.rt("slice", "a.py", "--lines", "50:60", ret=2)
    assert "beyond the end, the file has 8 lines" in project.last_err
    project.write("one.py", "VALUE = 1\n")
    project.rt("slice", "one.py", "--lines", "2:3", ret=2)
    assert "beyond the end, the file has 1 line" in project.last_err
    project.rt("slice", "a.py", "--lines", "5:2", ret=2)
    assert "--lines 5:2: the range must start at 1 or later and not end before it starts" in project.last_err
    assert project.rt("slice", "a.py", "--symbol", "nope", ret=1) == "nope: not defined in a.py; it defines K, K.m, f\n"
    assert project.rt("slice", "a.py", "--symbol", "K.mm", ret=1) == (   # a misspelling: the names close to it
        "K.mm: not defined in a.py; did you mean K.m? (`rt outline a.py` lists its 3 definitions)\n")
    assert project.rt_json("slice", "a.py", "--symbol", "k", ret=1)["closest"] == ["K"]
    project.rt("slice", "../outside.py", "--lines", "1:2", ret=2)
    assert "outside the repository" in project.last_err


def test_outline_nests_members_and_hints_for_long_files(project):
    body = "class K:\n    def a(self):\n        pass\n\n    def b(self):\n        pass\n" + "\n" * 200 + "def z():\n    pass\n"
    project.write("long.py", body)
    project.init_git()
    out = project.rt("outline", "long.py").splitlines()
    assert out[0] == "long.py: 208 lines, python"
    assert out[1:5] == ["    1-6     class K  class K:", "    2-3       method a  def a(self):",
                        "    5-6       method b  def b(self):", "  207-208   function z  def z():"]
    assert out[-1] == "read a part with `rt slice long.py --lines A:B` or `--symbol NAME`"
    project.rt("outline", "nope.py", ret=2)
    assert "nope.py: not a file rt indexes" in project.last_err


def test_a_folder_given_to_slice_is_named_a_folder_with_files_to_give_instead(project):
    """`rt slice app/hooks`: the folder's files, not paths elsewhere that look like its name."""
    for name in ("useBoolean", "useDictionary", "useIdle", "useStores"):
        project.write(f"app/hooks/{name}.ts", f"export default function {name}() {{\n  return 1;\n}}\n")
    project.write("plugins/slack/server/api/hooks.ts", "export const hooks = [];\n")
    project.init_git()
    for args in (("slice", "app/hooks", "--lines", "1-2"), ("slice", "app/hooks/", "--symbol", "useIdle")):
        project.rt(*args, ret=2)
        assert project.last_err.startswith(f"rt: error: {args[1]}: a folder of 4 indexed files; give one of them, "
                                           "for example app/hooks/useBoolean.ts, app/hooks/useDictionary.ts, "
                                           "app/hooks/useIdle.ts"), project.last_err
    project.rt("outline", "app/hook", ret=2)   # no extension: a folder as likely as a file, the closest of both
    assert project.last_err == ("rt: error: app/hook: no such file or folder; closest: app/hooks/, "
                                "plugins/slack/server/api/hooks.ts, app/hooks/useIdle.ts\n")
    project.rt("outline", "app/hooks/useIdel.ts", ret=2)   # an extension: a file meant
    assert project.last_err.startswith("rt: error: app/hooks/useIdel.ts: not a file rt indexes; closest: app/hooks/useIdle.ts")
    for args in (("outline", "app/hook/"), ("slice", "app/hook/", "--lines", "1-2")):   # a folder meant: folders
        project.rt(*args, ret=2)
        assert project.last_err == "rt: error: app/hook/: no such folder; closest: app/hooks/, app/\n"
    (project.root / "app/empty").mkdir()
    for args in (("outline", "app/empty"), ("slice", "app/empty", "--lines", "1-2")):
        project.rt(*args, ret=2)
        assert project.last_err == "rt: error: app/empty: a folder holding no file rt indexes\n"


def test_outline_of_a_folder_lists_its_folders_then_its_files_with_their_first_definitions(project, monkeypatch):
    """A folder's map for the cost of a listing: each folder below with its file count, each file of its own with
    its lines, language and first top-level definitions (an overload once, members left out), in path order."""
    project.write("app/hooks/useBoolean.ts", "export type InitialState = boolean;\n"
                  "export default function useBoolean(initial: InitialState) {\n  return initial;\n}\n")
    project.write("app/hooks/useStores.ts", "export function useStores(): Stores;\nexport function useStores(id: string): Stores;\n"
                  "export function useStores(id?: string) {\n  return id;\n}\n")
    project.write("app/hooks/Pager.ts", "".join(f"export function page{i}() {{\n  return {i};\n}}\n" for i in range(9))
                  + "export class Pager {\n  next() {\n    return 1;\n  }\n}\n")
    project.write("app/hooks/menus/useMenu.ts", "export const useMenu = () => 1;\n")
    project.write("app/hooks/menus/deep/useDeep.ts", "export const useDeep = () => 1;\n")
    project.write("app/other.ts", "export const other = 1;\n")
    project.write("src/sink.rs", "pub trait Sink {\n    fn finish(&self);\n}\n\npub struct Finish;\n\n"
                  "impl Sink for Box<dyn Sink> {\n    fn finish(&self) {}\n}\n\nimpl Finish {\n    fn done() {}\n}\n")
    project.write("src/handler.go", "package src\n\nvar _ Handler = (*Static)(nil)\n\ntype Static struct{}\n\n"
                  "func (s *Static) Serve() {}\n\nfunc New() *Static {\n\treturn nil\n}\n")
    project.init_git()
    assert project.rt("outline", "src").splitlines() == [   # an `impl` names another's type, Go's `var _` nothing
        "src/: 2 indexed files", "  handler.go  11 lines, go  Static, New", "  sink.rs  13 lines, rust  Sink, Finish"]
    assert project.rt("outline", "app/hooks").splitlines() == [
        "app/hooks/: 5 indexed files, 3 of them here",
        "  menus/  2 files",
        "  Pager.ts  32 lines, typescript  page0, page1, page2, page3, page4, page5 (+4 more)",
        "  useBoolean.ts  4 lines, typescript  InitialState, useBoolean",
        "  useStores.ts  5 lines, typescript  useStores"]
    data = project.rt_json("outline", "app/hooks/menus/")
    assert data == {"folder": "app/hooks/menus/", "folders": [{"path": "app/hooks/menus/deep/", "files": 1}],
                    "files": [{"path": "app/hooks/menus/useMenu.ts", "lines": 1, "lang": "typescript", "note": "",
                               "definitions": ["useMenu"]}]}
    assert project.rt("outline", ".").splitlines() == ["./: 8 indexed files", "  app/  6 files", "  src/  2 files"]
    assert project.rt("outline", ".", cwd=project.root / "app").splitlines()[:3] == [   # a folder from where one is
        "app/: 6 indexed files, 1 of them here", "  hooks/  5 files", "  other.ts  1 line, typescript  other"]
    project.write("app/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    assert "  logo.png  0 lines, other (binary)" in project.rt("outline", "app").splitlines()
    monkeypatch.setattr(symbols, "FOLDER_FILES", 2)
    assert project.rt("outline", "app/hooks").splitlines()[-1] == \
        "... and 1 more file (`rt outline app/hooks/ --json` lists them all)"
    assert len(project.rt_json("outline", "app/hooks")["files"]) == 3


def test_lookups_see_edits_without_a_manual_reindex(project):
    _repo(project)
    project.rt("symbol", "page")
    project.write("app/views.py", "def page2():\n    pass\n")
    assert project.rt("symbol", "page", ret=1).startswith("page: no definition in the ")
    assert "app/views.py:1-2" in project.rt("symbol", "page2")


def test_lookup_output_is_byte_stable_across_processes(project):
    _repo(project)
    a = project.rt_proc("refs", "checkout").stdout
    b = project.rt_proc("refs", "checkout").stdout
    assert a == b and "checkout" in a and str(project.root) not in a


def _age(project, *paths):
    """Date these paths, or every file and folder (git's own included), 10 s back: none is racily new."""
    past = time.time() - 10
    for p in paths or [project.root, *project.root.rglob("*")]:
        os.utime(p, (past, past), follow_symlinks=False)


def _settle(project):
    """Age the tree, then look once: a tree that old is one the index may vouch for by its quick
    signature alone."""
    project.rt("index")   # `.rt/` itself is new once, and the root folder's time with it
    _age(project)
    if (project.root / ".git").exists():   # git's index learns the files' new times, and is itself aged
        subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=project.root, check=False)
        index = project.git("rev-parse", "--git-path", "index").strip()
        _age(project, project.root / index)
    project.rt("index")


def _no_scan(monkeypatch):
    monkeypatch.setattr(rt.snapshot, "scan", lambda *a, **k: pytest.fail("the quick check should have answered"))


def _settled_tree(project):
    """Tracked files in `src/` and `deep/er/` (`deep` holds no file of its own), one untracked file."""
    project.write("src/a.py", "def one(): pass\n")
    project.write("deep/er/x.py", "def four(): pass\n")
    project.init_git()
    project.write("src/new.py", "def two(): pass\n")
    _settle(project)


def test_warm_lookup_answers_from_the_quick_check_without_a_scan(project, monkeypatch):
    _settled_tree(project)
    with monkeypatch.context() as m:   # nothing changed: neither a scan nor a refresh
        _no_scan(m)
        m.setattr(rt.index.index, "_refresh", lambda *a, **k: pytest.fail("nothing changed, nothing to refresh"))
        assert "src/a.py:1-1" in project.rt("symbol", "one")
        assert "src/new.py:1-1" in project.rt("symbol", "two")
        assert "src/a.py" in project.rt("refs", "one")


CHANGES = {   # a kind of change -> the file that gets `def fresh`; all are seen from the quick check's own
    # record (changed files read again, changed folders listed), none needs a scan of the tree
    "new file in a known folder": "src/other.py",
    "untracked file edited": "src/new.py",
    "new folder": "brand/new/fresh.py",
    "new folder in a folder without files": "deep/new/fresh.py",   # `deep` holds only the folder `er`
    "tracked file edited": "src/a.py",
    "file committed then edited": "src/new.py",
    "file in an empty folder made earlier": "empty/a/b/fresh.py",
}


@pytest.mark.parametrize("change", [*CHANGES, "file removed", "folder removed"])
def test_quick_check_sees_every_kind_of_change(project, change, monkeypatch):
    _settled_tree(project)
    if change == "file committed then edited":
        project.git("add", "-A")
        project.git("commit", "-qm", "more")
        _settle(project)
    if change == "file in an empty folder made earlier":
        (project.root / "empty" / "a" / "b").mkdir(parents=True)
        _settle(project)
    with monkeypatch.context() as m:
        _no_scan(m)
        if change in ("file removed", "folder removed"):
            (project.root / "deep" / "er" / "x.py").unlink()
            if change == "folder removed":
                (project.root / "deep" / "er").rmdir()
            project.rt("symbol", "four", ret=1)
            return
        project.write(CHANGES[change], "def fresh(): return 3\n")
        assert f"{CHANGES[change]}:1-1" in project.rt("symbol", "fresh")
        if CHANGES[change] != "src/a.py":   # and what did not change is still there
            assert "src/a.py:1-1" in project.rt("symbol", "one")


def test_an_empty_folder_made_after_the_last_look_up_is_watched_too(project, monkeypatch):
    _settled_tree(project)
    (project.root / "later" / "a" / "b").mkdir(parents=True)
    _age(project, project.root, *(project.root / "later").rglob("*"), project.root / "later")
    with monkeypatch.context() as m:
        _no_scan(m)
        project.rt("symbol", "one")                       # sees the new folders, files in none of them
    project.write("later/a/b/z.py", "def fresh(): pass\n")   # changes only the time of `b`
    assert "later/a/b/z.py:1-1" in project.rt("symbol", "fresh")


def test_a_changed_gitignore_is_read_with_a_scan(project):
    _settled_tree(project)
    project.write(".gitignore", "src/new.py\n")
    project.rt("symbol", "two", ret=1)
    project.write(".gitignore", "")
    assert "src/new.py:1-1" in project.rt("symbol", "two")


def test_a_refresh_answers_like_a_full_rebuild(project, monkeypatch):
    _settled_tree(project)
    project.write("src/a.py", "def one(): pass\n\ndef two_again(): return two()\n")
    project.write("src/new.py", "def two(): return 2\n\nclass Three:\n    pass\n")
    with monkeypatch.context() as m:
        _no_scan(m)
        refreshed = [project.rt("refs", "two"), project.rt("symbol", "Three"), project.rt("outline", "src/a.py")]
    project.rt("index", "--rebuild")
    assert [project.rt("refs", "two"), project.rt("symbol", "Three"), project.rt("outline", "src/a.py")] == refreshed


def test_a_file_changed_again_within_one_tick_is_read_again(project):
    """An edit that keeps size and mtime (two writes in one timestamp tick) must not be vouched for."""
    _settled_tree(project)
    p = project.write("src/a.py", "def aaaa(): pass\n")
    st = os.stat(p)
    assert "src/a.py:1-1" in project.rt("symbol", "aaaa")       # read now; too new to vouch for
    project.write("src/a.py", "def bbbb(): pass\n")             # same size
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))            # and the same mtime
    assert "src/a.py:1-1" in project.rt("symbol", "bbbb")


def test_a_file_changed_while_the_tree_is_scanned_is_read_again(project, monkeypatch):
    """A change made after the scan read the file, before the signature was taken, must not be vouched for."""
    project.write("src/a.py", "def one(): pass\n")
    project.init_git()
    _settle(project)
    real = rt.snapshot.scan

    def racing_scan(*args, **kwargs):
        snap = real(*args, **kwargs)
        project.write("src/a.py", "def late(): pass\n")   # lands after the scan, before the signature
        return snap

    project.write("src/b.py", "def two(): pass\n")
    project.write(".gitignore", "*.tmp\n")                  # what is ignored changed: only a scan can tell
    with monkeypatch.context() as m:
        m.setattr(rt.snapshot, "scan", racing_scan)
        assert "src/b.py:1-1" in project.rt("symbol", "two")
    assert "src/a.py:1-1" in project.rt("symbol", "late")


def test_lookups_work_outside_git(project):
    project.write("a.py", "def one(): pass\n")
    assert "a.py:1-1" in project.rt("symbol", "one")
    project.write("a.py", "def two(): pass\n")
    assert "a.py:1-1" in project.rt("symbol", "two")


def test_refs_line_numbers_count_lines_as_slice_does():
    from rt.core import lines
    from rt.lookup.symbols import lines_using
    word = re.compile(r"(?<![\w$])run(?![\w$])")
    text = "run()\r\nx = 1\rrun(); run()\n s = 'a\u2028b'; run\n\nrunner()\n$run _run run_ érun run"
    want = [i for i, line in enumerate(lines(text), 1) if word.search(line)]
    assert lines_using("run", text) == want == [1, 3, 4, 7]   # U+2028 inside a string breaks no line


GIT_MOVES = ["status after touching", "add and commit", "checkout of a branch", "stash", "rm --cached", "add -f"]


@pytest.mark.parametrize("move", GIT_MOVES)
def test_git_rewriting_its_index_is_followed_without_a_scan(project, monkeypatch, move):
    """git's index rewritten: its blob ids say which tracked files differ; the tree is not scanned."""
    project.write(".gitignore", "*.log\n")
    project.write("src/a.py", "def one(): pass\n")
    project.write("src/b.py", "def two(): pass\n")
    project.init_git()
    project.git("checkout", "-qb", "other")
    project.write("src/a.py", "def other_one(): pass\n")
    project.write("src/cee.py", "def three(): pass\n")
    project.git("add", "-A")
    project.git("commit", "-qm", "other")
    project.git("checkout", "-q", "main")
    project.write("debug.log", "def logged(): pass\n")
    _settle(project)
    with monkeypatch.context() as m:
        _no_scan(m)
        if move == "status after touching":
            os.utime(project.root / "src" / "a.py")
            project.git("status", "--porcelain")
            assert "src/a.py:1-1" in project.rt("symbol", "one")
        elif move == "add and commit":
            project.write("src/b.py", "def two_b(): pass\n")
            assert "src/b.py:1-1" in project.rt("symbol", "two_b")
            project.git("add", "src/b.py")
            project.git("commit", "-qm", "b")
            project.write("src/b.py", "def two_c(): pass\n")
            assert "src/b.py:1-1" in project.rt("symbol", "two_c")
        elif move == "checkout of a branch":
            project.git("checkout", "-q", "other")
            assert "src/a.py:1-1" in project.rt("symbol", "other_one")
            assert "src/cee.py:1-1" in project.rt("symbol", "three")
            project.rt("symbol", "one", ret=1)
        elif move == "stash":
            project.write("src/a.py", "def stashed(): pass\n")
            assert "src/a.py:1-1" in project.rt("symbol", "stashed")
            project.git("stash", "-q")
            assert "src/a.py:1-1" in project.rt("symbol", "one")
            project.rt("symbol", "stashed", ret=1)
        elif move == "rm --cached":   # the file stays, untracked now: its later edits are still seen
            project.git("rm", "-q", "--cached", "src/b.py")
            assert "src/b.py:1-1" in project.rt("symbol", "two")
            _age(project)
            project.rt("symbol", "two")
            project.write("src/b.py", "def two_d(): pass\n")
            assert "src/b.py:1-1" in project.rt("symbol", "two_d")
        else:
            project.rt("symbol", "logged", ret=1)
            project.git("add", "-f", "debug.log")
            assert "debug.log" in project.rt("find", "logged")


def test_changed_targets_finds_each_changed_stat_among_many():
    from array import array

    from rt.index.freshness import Signature
    old = Signature(b"", array("q", range(3 * 1001)), array("q"))
    for moved in ([], [0], [999], [3, 4, 500, 999], list(range(1000))):
        known = array("q", old.known)
        for i in moved:
            known[3 + 3 * i + 1] += 1
        assert Signature(b"", known, array("q")).changed_targets(old) == moved


def test_many_files_at_once_are_left_to_a_scan_before_any_is_read(project, monkeypatch):
    """More changed files than the delta takes (an unpacked archive, a generator run): no file is
    hashed one by one; the scan reads them through the stat cache."""
    _settled_tree(project)
    for i in range(60):
        project.write(f"src/gen_{i:02d}.py", f"def gen_{i}(): pass\n")
    scans, hashed = [], []
    real_scan, real_hash = rt.snapshot.scan, rt.snapshot.hash_path
    monkeypatch.setattr(rt.snapshot, "scan", lambda *a, **k: scans.append(1) or real_scan(*a, **k))
    monkeypatch.setattr(rt.snapshot, "hash_path", lambda *a, **k: hashed.append(1) or real_hash(*a, **k))
    assert "src/gen_59.py:1-1" in project.rt("symbol", "gen_59")
    assert scans == [1] and hashed == []


def test_a_linked_worktree_is_followed_through_its_own_git_index(project, monkeypatch, tmp_path):
    """In a linked worktree `.git` is a file naming the worktree's git folder; its index is watched."""
    project.write("src/a.py", "def one(): pass\n")
    project.init_git()
    project.git("branch", "other")
    wt = tmp_path / "wt"
    project.git("worktree", "add", "-q", str(wt), "other")
    linked = type(project)(wt)
    linked.write("src/a.py", "def other_one(): pass\n")
    linked.git("commit", "-qam", "other")
    linked.git("checkout", "-q", "HEAD~1")
    _settle(linked)
    with monkeypatch.context() as m:
        _no_scan(m)
        linked.git("checkout", "-q", "other")   # the file changes with git's index: only the index shows it
        assert "src/a.py:1-1" in linked.rt("symbol", "other_one")
        linked.rt("symbol", "one", ret=1)


def test_warm_lookup_process_stays_lean(project):
    """A warm look-up starts git (the freshness check) without `subprocess`, and loads no hashing, TOML,
    dataclasses or threads: their imports would cost more than the rest of its start-up; nor pathlib (with
    the urllib.parse it imports), the `signal` wrapper or `fcntl`, which it has no use for."""
    _repo(project)
    _settle(project)   # no stat data too new to vouch for: the quick check answers alone, nothing is refreshed
    for args in (("symbol", "total"), ("refs", "checkout")):
        proc, imported = project.imports(*args)
        assert proc.returncode == 0 and "app/models.py" in proc.stdout
        assert "rt.index.freshness" in imported and "rt.snapshot" not in imported
        assert not imported & {"subprocess", "threading", "hashlib", "tomllib", "dataclasses", "pathlib", "signal",
                               "fcntl"}, args


@pytest.mark.parametrize("module, argv", [("rt.cli", ["symbol", "x"]), ("rt.claude.hooks", ["hook", "post-tool-use"])])
def test_start_up_objects_are_set_aside_and_the_command_collects_as_ever(project, module, argv):
    """`rt` imports its command line (or a hook its handlers) with the collector off and freezes what the
    imports made; the command itself (a long-lived `rt mcp` too) runs with the collector on, and a cycle it
    drops is freed."""
    import sys
    from pathlib import Path
    probe = ("import gc, sys, weakref\n"
             f"import {module}\n"
             "def main(*args):\n"
             "    class Node: pass\n"
             "    a, b = Node(), Node()\n"
             "    a.b, b.a = b, a\n"
             "    gone = weakref.ref(a)\n"
             "    del a, b\n"
             "    gc.collect()\n"
             "    print(gc.isenabled(), gc.get_freeze_count() > 1000, gone() is None)\n"
             "    return 0\n"
             f"{module}.main = main\n"
             f"sys.argv[1:] = {argv!r}\n"
             "from rt.__main__ import run\n"
             "run()\n")
    proc = subprocess.run([sys.executable, "-S", "-P", "-c", probe], cwd=project.root, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(Path(rt.__file__).parent.parent)})
    assert (proc.returncode, proc.stdout) == (0, "True True True\n"), proc.stderr


def _both_ways(project, monkeypatch, argv: list[str]) -> tuple:
    """(exit code, stdout, stderr) of one command line run as given, and the same with its command's `bare`
    reading switched off (argparse reads every form)."""
    import contextlib
    import io

    from rt import cli
    runs = []
    for bare in (cli.COMMANDS[argv[0]].bare, None):
        monkeypatch.setitem(cli.COMMANDS, argv[0], cli.COMMANDS[argv[0]]._replace(bare=bare))
        out, err = io.StringIO(), io.StringIO()
        monkeypatch.chdir(project.root)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(list(argv))
            except SystemExit as e:   # argparse's --help
                code = e.code
        runs.append((code, out.getvalue(), err.getvalue()))
    return runs[0], runs[1]


@pytest.mark.parametrize("argv", [
    ["symbol", "total"], ["symbol", "--json", "Cart.total"], ["symbol", "total", "--json", "--json"],
    ["symbol", "doesNotExist"], ["symbol", ""], ["symbol", "a b"],
    ["refs", "checkout"], ["refs", "checkout", "--json"], ["refs", "Cart.total"], ["refs", "nowhere"],
    ["outline", "app/models.py"], ["outline", "--json", "app/views.py"], ["outline", "nope.py"], ["outline", "../x.py"],
    ["find", "checkout"], ["find", "Cart", "--json"], ["find", "  "], ["find", "found nowhere"],
    # forms argparse reads: an option, a value starting with "-", "--", a value too many or too few, help
    ["symbol"], ["symbol", "a", "b"], ["symbol", "-x"], ["symbol", "--", "-total"], ["symbol", "--js", "total"],
    ["refs", "--json"], ["refs", "--bogus", "checkout"], ["find", "-h"], ["outline", "--help"], ["find", "a", "--json=1"],
])
def test_bare_look_ups_answer_as_argparse_does(project, monkeypatch, argv):
    """A look-up given its one value (and `--json`) skips argparse; every other form goes to argparse: either
    way the same output, error and exit code, byte for byte."""
    _repo(project)
    bare, full = _both_ways(project, monkeypatch, argv)
    assert bare == full
    assert bare[1] or bare[2]   # each form printed something: an answer or an error


def test_bare_look_ups_load_no_argparse(project):
    """The forms the bare reading takes run without argparse (and its gettext and locale); the others with it."""
    _repo(project)
    time.sleep(1.1)
    project.rt("index")
    project.rt("symbol", "total")
    for args in (("symbol", "total"), ("refs", "checkout", "--json"), ("outline", "app/models.py"),
                 ("find", "--json", "checkout")):
        proc, imported = project.imports(*args)
        assert proc.returncode == 0 and "app/models.py" in proc.stdout, args
        assert not imported & {"argparse", "gettext", "locale"}, args
    proc, imported = project.imports("symbol", "--", "total")
    assert proc.returncode == 0 and "app/models.py" in proc.stdout and "argparse" in imported


def test_a_form_feed_or_u2028_in_a_line_moves_no_line_number(project):
    """`str.splitlines` broke lines there, Python's parser, git and the model's Read do not: rt symbol gave a line
    inside a string, rt slice printed blank lines under a definition's name, rt find a line past the end."""
    project.write("ls.py", "s = 'a\u2028b'\n\x0c\ndef after_sep():\n    return 42\n")
    project.write("ff.py", "\x0c\x0cdef ff_fn():\n    return 1\n")
    project.init_git()
    assert project.rt("symbol", "after_sep").splitlines() == ["ls.py:3-4  function after_sep  def after_sep():"]
    assert project.rt("slice", "ls.py", "--symbol", "after_sep").splitlines()[1:] == [
        "3| def after_sep():", "4|     return 42"]
    assert project.rt("find", "return 42").splitlines()[0].startswith("ls.py:4  ")
    assert project.rt("symbol", "ff_fn").startswith("ff.py:1-2  function ff_fn")


def test_a_python_file_opening_with_a_byte_order_mark_keeps_its_definitions(project):
    project.write("a.py", "\ufeffdef bom_py():\n    pass\n")
    project.init_git()
    assert project.rt("symbol", "bom_py").startswith("a.py:1-2  function bom_py")


def test_slice_of_an_empty_symbol_name_is_a_usage_error(project):
    project.write("a.py", "def f():\n    pass\n")
    project.init_git()
    project.rt("slice", "a.py", "--symbol", "", ret=2)
    assert project.last_err == "rt: error: give the definition's name, for example: rt slice src/app.py --symbol render\n"


def test_a_file_named_rt_in_a_subfolder_is_indexed_neither_way(project):
    """The full build leaves out `.git` and `.rt` at any depth; the update after a change left them out at the top only."""
    project.write("pkg/a.py", "def alpha():\n    pass\n")
    project.init_git()
    project.rt("symbol", "alpha")
    project.write("pkg/.rt", "def gamma():\n    pass\n")
    assert "pkg/.rt" not in project.rt("find", "gamma", ret=1)
    assert "pkg/.rt" not in project.rt("index", "--rebuild") + project.rt("find", "gamma", ret=1)


def test_slice_ranges_take_ascii_digits_and_say_when_they_start_past_the_end(project):
    project.write("one.py", "x = 1\n")
    project.init_git()
    project.rt("slice", "one.py", "--lines", "\u0661:\u0661", ret=2)   # Arabic-Indic digits are no line numbers
    assert "give A:B" in project.last_err
    project.rt("slice", "one.py", "--lines", "2:", ret=2)
    assert project.last_err == "rt: error: --lines 2:: beyond the end, the file has 1 line\n"


def test_slice_ranges_of_thousands_of_digits_are_past_the_end_not_an_internal_error(project):
    project.write("one.py", "x = 1\n")
    project.init_git()
    many = "9" * 5000   # past Python's int-conversion limit (4300 digits)
    whole = project.rt_proc("slice", "one.py", "--lines", f"1:{many}")
    assert (whole.returncode, whole.stdout) == (0, "one.py:1-1 (the file ends at line 1)\n1| x = 1\n"), whole
    past = project.rt_proc("slice", "one.py", "--lines", many)
    assert past.returncode == 2 and past.stderr.endswith(": beyond the end, the file has 1 line\n"), past
    padded = project.rt_proc("slice", "one.py", "--lines", "0" * 5000 + "1")
    assert (padded.returncode, padded.stdout) == (0, "one.py:1-1\n1| x = 1\n"), padded

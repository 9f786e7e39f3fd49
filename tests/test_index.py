"""The repository index: extractors per language, import resolution, incremental updates, bad input."""
from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path

import pytest

from rt.cli import Ctx
from rt.index import index as index_module
from rt.index.index import Index, load
from rt.index.langs import language, parse


def _parse(path: str, text: str):
    return parse(path, language(path), text)


def _defs(parsed) -> list[tuple]:
    return [(d.kind, d.parent, d.name, d.start, d.end) for d in parsed.defs]


def _index(project):
    with contextlib.chdir(project.root):
        return load(Ctx(False))


# ---------------------------------------------------------------- extractors

def test_python_definitions_imports_identifiers():
    p = _parse("m.py", "import os\nfrom .b import helper as h\n\nLIMIT = 3\n\n@dec\nclass A(Base):\n"
                       "    def run(self, x):\n        return h(x)\n\n\nasync def main():\n    pass\n")
    assert _defs(p) == [("constant", "", "LIMIT", 4, 4), ("class", "", "A", 6, 9), ("method", "A", "run", 8, 9),
                        ("function", "", "main", 12, 13)]
    assert p.imports == [".b.helper", "os"]
    assert {"Base", "helper", "h", "run", "x"} <= set(p.idents)
    assert p.note == ""


def test_python_syntax_error_falls_back_to_line_patterns():
    p = _parse("bad.py", "import os\n\ndef ok(a):\n    return a\n\nclass K:\n    def m(self:\n        pass\n\ndef after():\n    x = (\n")
    assert p.note == "syntax-error"
    assert _defs(p) == [("function", "", "ok", 3, 4), ("class", "", "K", 6, 8), ("method", "K", "m", 7, 8),
                        ("function", "", "after", 10, 11)]
    assert p.imports == ["os"]


TSX = """import React from 'react';
import { helper } from './util';
const re = /[{}'"]/g;
export interface Props { name: string; onClick(): void }
type Pair<T> = { a: T; b: T };
export function Button({ label }: Props) {
  const msg = `count ${label} {not a brace} ${`nested ${label}`}`;
  return (
    <div className="x" onClick={() => helper(1 < 2)}>
      Don't click {label}, it's text
    </div>
  );
}
export default class Store extends Base {
  static create(): Store {
    return new Store();
  }
  handle = (e) => {
    if (a < b && c > d) { return 1; }
  };
}
const Card = ({ title }) => <section>{title}</section>;
function later() { return 2 }
"""


def test_tsx_definitions_survive_jsx_templates_and_regex():
    p = _parse("src/App.tsx", TSX)
    assert _defs(p) == [
        ("variable", "", "re", 3, 3), ("interface", "", "Props", 4, 4), ("method", "Props", "onClick", 4, 4),
        ("type", "", "Pair", 5, 5), ("component", "", "Button", 6, 13), ("class", "", "Store", 14, 21),
        ("method", "Store", "create", 15, 17), ("method", "Store", "handle", 18, 20), ("component", "", "Card", 22, 22),
        ("function", "", "later", 23, 23)]
    assert p.imports == ["./util", "react"]
    assert "Don" not in p.idents and "click" not in p.idents   # JSX text is text, not code


def test_a_module_bound_to_a_name_is_an_import_not_a_definition():
    """`const dns = require("dns")` in a hundred server files would make each a definition of dns for
    `rt symbol` and the ranking's name channel; its definition is the module."""
    p = _parse("server/dns.js", 'const dns = require("dns").promises;\nlet cfg = await import("./cfg.js");\n'
                                'const { a } = require("x");\nconst lookup = async (h) => dns.lookup(h);\n'
                                'const MAX = 3;\n')
    assert _defs(p) == [("function", "", "lookup", 4, 4), ("constant", "", "MAX", 5, 5)]
    assert p.imports == ["./cfg.js", "dns", "x"]


def test_go_rust_java_definitions():
    go = _parse("main.go", 'package main\n\nimport (\n\t"fmt"\n\tu "example.com/m/util"\n)\n\nconst (\n\tA = 1\n\tB = `{`\n)\n\n'
                           'type S struct {\n\tName string\n}\n\nfunc (s *S) Run(n int) error {\n\tfmt.Println("{")\n'
                           '\treturn nil\n}\n\nfunc main() {\n\tu.Do()\n}\n')
    assert _defs(go) == [("constant", "", "A", 9, 9), ("constant", "", "B", 10, 10), ("struct", "", "S", 13, 15),
                         ("method", "S", "Run", 17, 20), ("function", "", "main", 22, 24)]
    assert go.imports == ["example.com/m/util", "fmt"]
    # fzf's `var atExitFuncs []func()`: a function type, no method named `func` (the next line's keyword)
    funcs = _parse("atexit.go", "package util\n\nvar atExitFuncs []func()\n\nfunc AtExit(fn func()) {\n}\n")
    assert _defs(funcs) == [("variable", "", "atExitFuncs", 3, 3), ("function", "", "AtExit", 5, 6)]
    rs = _parse("src/lib.rs", "use crate::cfg::{A, B};\nmod parser;\npub struct P<'a> { x: &'a str }\n"
                              "impl<'a> Draw for P<'a> {\n    fn draw(&self) -> char {\n        let s = r#\"}\"#;\n"
                              "        '{'\n    }\n}\npub fn run() -> i32 { 1 }\n")
    assert _defs(rs) == [("struct", "", "P", 3, 3), ("impl", "", "P", 4, 9), ("method", "P", "draw", 5, 8),
                         ("function", "", "run", 10, 10)]
    assert rs.imports == ["crate::cfg", "mod parser"]
    java = _parse("A.java", 'package a;\nimport b.c.Helper;\npublic class A {\n  static final int MAX = 1;\n'
                            '  public A() {}\n  @Override\n  public String name(int n) throws E {\n'
                            '    String t = """\n      }\n      """;\n    return t;\n  }\n}\n')
    assert _defs(java) == [("class", "", "A", 3, 13), ("constant", "A", "MAX", 4, 4), ("constructor", "A", "A", 5, 5),
                           ("method", "A", "name", 7, 12)]
    assert java.imports == ["b.c.Helper"]


def test_functions_assigned_to_members_are_definitions():
    """Express's `res.send = function send(body) {`: the function a task names (`res.send`) was no definition. A
    prototype's method belongs to its class; `exports.x` to none; a value that is no function is no definition."""
    js = _parse("lib/response.js", "var res = Object.create(proto);\n\nres.send = function send(body) {\n"
                                   "  return this.end(body);\n};\n\nRouter.prototype.route = function (path) {\n"
                                   "  return path;\n}\n\nexports.parse = (s) => s.trim();\nres.locals = {};\n"
                                   "module.exports = res;\nfunction other() {\n  this.x = function () {};\n}\n")
    assert _defs(js) == [("variable", "", "res", 1, 1), ("method", "res", "send", 3, 5),
                         ("method", "Router", "route", 7, 9), ("function", "", "parse", 11, 11),
                         ("function", "", "other", 14, 16)]

def test_kotlin_and_swift_definitions(tmp_path):
    """Kotlin and Swift are read as Java is, by rt and not by ctags (whose Kotlin parser took 26 s of CPU on okhttp's
    580 files): a declaration without `;` or a body ends where the next one starts its line; a braced string is no
    block."""
    kt_text = ('package a.b\n\nimport okio.Buffer\nimport a.c.Helper as H\n\n'
               'typealias Handler = (String) -> Unit\n\n'
               'data class Point(val x: Int, val y: Int)\n\n'
               'interface Source {\n  fun read(): Int\n  fun close() {}\n}\n\n'
               'class Client(private val name: String) : Source {\n'
               '  override fun read(): Int = name.length\n'
               '  fun <T> List<T>.second(): T {\n    val s = "}${name}{"\n    return this[1]\n  }\n'
               '  companion object {\n    const val MAX = 3\n  }\n}\n\n'
               'fun interface Listener {\n  fun onEvent(e: String)\n}\n\n'
               'enum class Color { RED, GREEN }\n\n'
               'object Registry {\n  val raw = """\n  }\n  """\n}\n\n'
               'class ClientTest {\n  @Test\n  fun `reads a { brace`() {\n    fun local() = 1\n  }\n}\n')
    kt = _parse("src/main/kotlin/a/Client.kt", kt_text)
    assert _defs(kt) == [
        ("type", "", "Handler", 6, 6), ("class", "", "Point", 8, 8), ("interface", "", "Source", 10, 13),
        ("method", "Source", "read", 11, 11), ("method", "Source", "close", 12, 12),
        ("class", "", "Client", 15, 24), ("method", "Client", "read", 16, 16),
        ("method", "Client", "second", 17, 20), ("constant", "Client", "MAX", 22, 22),
        ("interface", "", "Listener", 26, 28), ("method", "Listener", "onEvent", 27, 27),
        ("enum", "", "Color", 30, 30), ("object", "", "Registry", 32, 36),
        ("class", "", "ClientTest", 38, 43), ("method", "ClientTest", "reads a { brace", 40, 42)]
    assert kt.imports == ["a.c.Helper", "okio.Buffer"]
    (tmp_path / "Client.kt").write_text(kt_text)
    from rt.index.index import parse_all
    assert parse_all(str(tmp_path), [("Client.kt", "b1", "text")])[0].defs == kt.defs   # ctags or not
    sw = _parse("Sources/App/Session.swift", 'import Foundation\n@testable import struct App.Config\n\n'
                'protocol Loading {\n  func load() -> Data\n  var size: Int { get }\n}\n\n'
                'open class Session: Loading {\n  public init(name: String) {\n    let s = #"}"#\n  }\n'
                '  class func shared() -> Session { Session(name: "") }\n'
                '  func load<T>(_ t: T) -> Data {\n    let m = """\n    {\n    """\n    return Data()\n  }\n}\n\n'
                'extension Session.Inner {\n  var body: some View {\n    Text("}")\n  }\n}\n\n'
                'struct Point { var x = 0 }\n\nfunc main() {\n  func helper() {}\n}\n')
    assert _defs(sw) == [
        ("interface", "", "Loading", 4, 7), ("method", "Loading", "load", 5, 5), ("class", "", "Session", 9, 20),
        ("constructor", "Session", "init", 10, 12), ("method", "Session", "shared", 13, 13),
        ("method", "Session", "load", 14, 19), ("extension", "", "Inner", 22, 26),
        ("property", "Inner", "body", 23, 25), ("struct", "", "Point", 28, 28), ("function", "", "main", 30, 32)]
    assert sw.imports == ["App.Config", "Foundation"]


def test_scala_and_dart_definitions():
    """Scala and Dart are read as Kotlin and Java are (ctags 5.9 has neither): Dart's functions outside a class,
    its mixins, extensions and typedefs; Scala's `def` without a body, its objects, traits and capitalised constants."""
    dart = _parse("lib/a.dart", ("import 'package:flutter/material.dart';\n"
                                 "import 'src/util.dart' as util;\npart 'a.g.dart';\n\n"
                                 'typedef Callback = void Function(int value);\n\n'
                                 'const double kPadding = 8.0;\n\nvoid main() {\n  runApp(const MyApp());\n'
                                 '}\n\nFuture<List<String>> fetchNames(String url) async {\n'
                                 "  final s = '${url}}{';\n  return [];\n}\n\n"
                                 'int add(int a, int b) => a + b;\n\nmixin Logger on Widget {\n'
                                 '  void log(String m) {}\n}\n\nextension StringX on String {\n'
                                 '  String shout() => toUpperCase();\n}\n\nabstract class Shape {\n'
                                 '  double area();\n  final void Function(int) callback;\n}\n\n'
                                 'class MyApp extends StatelessWidget {\n  const MyApp({super.key});\n'
                                 '  factory MyApp.create() => const MyApp();\n\n  @override\n'
                                 '  Widget build(BuildContext context) {\n'
                                 "    return MaterialApp(home: Text('''\n}\n'''));\n  }\n}\n\n"
                                 'enum Color { red, green }\n\nvoid whenListen<State>(\n  Bloc<State> bloc, {\n'
                                 '  State? initial,\n}) {\n}\n'))
    assert _defs(dart) == [
        ("type", "", "Callback", 5, 5), ("function", "", "main", 9, 11), ("function", "", "fetchNames", 13, 16),
        ("function", "", "add", 18, 18), ("class", "", "Logger", 20, 22), ("method", "Logger", "log", 21, 21),
        ("extension", "", "StringX", 24, 26), ("method", "StringX", "shout", 25, 25), ("class", "", "Shape", 28, 31),
        ("method", "Shape", "area", 29, 29), ("class", "", "MyApp", 33, 43), ("constructor", "MyApp", "MyApp", 34, 34),
        ("constructor", "MyApp", "MyApp", 35, 35), ("method", "MyApp", "build", 38, 42), ("enum", "", "Color", 45, 45),
        ("function", "", "whenListen", 47, 51)]
    assert dart.imports == ["a.g.dart", "package:flutter/material.dart", "src/util.dart"]
    scala = _parse("src/main/scala/A.scala", ('package shop.cart\n\nimport scala.collection.mutable\n'
                                             'import shop.util.{Money, Tax}\n\ntrait Priced {\n  def price: Money\n}\n\n'
                                             'case class Item(name: String, cost: Int) extends Priced {\n'
                                             '  def price: Money = Money(cost)\n'
                                             '  override def toString = s"Item(${name})"\n}\n\nobject Cart {\n'
                                             '  val MaxItems = 10\n  def empty(): Cart = new Cart(Nil)\n}\n\n'
                                             'class Cart(items: List[Item]) {\n  def total(tax: Tax): Int =\n'
                                             '    items.map(_.cost).sum\n\n  def add(i: Item): Cart = {\n'
                                             '    val s = "}"\n    new Cart(i :: items)\n  }\n}\n\ntype Id = String\n\n'
                                             'def helper(x: Int): Int = x + 1\n'))
    assert _defs(scala) == [
        ("trait", "", "Priced", 6, 8), ("method", "Priced", "price", 7, 7), ("class", "", "Item", 10, 13),
        ("method", "Item", "price", 11, 11), ("method", "Item", "toString", 12, 12), ("object", "", "Cart", 15, 18),
        ("constant", "Cart", "MaxItems", 16, 16), ("method", "Cart", "empty", 17, 17), ("class", "", "Cart", 20, 28),
        ("method", "Cart", "total", 21, 22), ("method", "Cart", "add", 24, 27), ("type", "", "Id", 30, 30),
        ("function", "", "helper", 32, 32)]
    assert scala.imports == ["scala.collection.mutable", "shop.util"]


def test_unbalanced_or_odd_input_is_read_without_inventing_definitions():
    """Broken text never stops the index: no definition is made up, only the text's own words are kept for
    searching, and a Python file that does not parse is marked as such."""
    for text in ["function (", "}}}}", "`unterminated ${", "<div>", "a /* open comment", "x = '\n", "/[/", "<<<>>>"]:
        words = set(re.findall(r"[A-Za-z_$][A-Za-z0-9_$]*", text))
        for path in ("a.ts", "a.tsx", "a.go", "a.rs", "A.java", "a.kt", "a.swift", "a.scala", "a.dart", "a.py"):
            parsed = _parse(path, text)
            assert parsed.defs == [] and parsed.imports == [], (path, text)
            assert set(parsed.idents) <= words, (path, text)
        assert _parse("a.py", text).note == "syntax-error", text
    assert _parse("a.py", "a /* open comment").idents == ["a", "comment", "open"]


# ---------------------------------------------------------------- resolution and the persisted index

def test_imports_resolve_python_js_aliases_go_jvm(project):
    project.write("src/pkg/__init__.py", "")
    project.write("src/pkg/b.py", "def helper(): pass\n")
    project.write("src/pkg/a.py", "from .b import helper\nfrom pkg.b import helper as h2\nimport json\n")
    project.write("tsconfig.json", '{\n  // aliases\n  "compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["web/*"]},},\n}\n')
    project.write("web/lib/index.ts", "export const x = 1;\n")
    project.write("web/lib/fmt.ts", "export function fmt() {}\n")
    project.write("web/app.tsx", "import { x } from '@/lib';\nimport { fmt } from './lib/fmt.js';\n")
    project.write("go.mod", "module example.com/m\n")
    project.write("util/u.go", "package util\nfunc Do() {}\n")
    project.write("util/u_test.go", "package util\n")
    project.write("cmd/main.go", 'package main\nimport "example.com/m/util"\nfunc main() { util.Do() }\n')
    # Kotlin and Java import each other's classes; a Kotlin import of a top-level function names no file
    project.write("src/main/kotlin/okhttp3/Call.kt", "package okhttp3\n\nimport okhttp3.internal.Util\n"
                  "import okhttp3.internal.toHttpUrl\n\nclass Call\n")
    project.write("src/main/java/okhttp3/internal/Util.java", "package okhttp3.internal;\n\nimport okhttp3.Call;\n"
                  "public class Util {}\n")
    project.write("src/main/kotlin/okhttp3/internal/urls.kt", "package okhttp3.internal\n\nfun String.toHttpUrl() = 1\n")
    project.init_git()
    idx = _index(project)
    assert idx.files["src/main/kotlin/okhttp3/Call.kt"].resolved == ["src/main/java/okhttp3/internal/Util.java"]
    assert idx.importers("src/main/kotlin/okhttp3/Call.kt") == ["src/main/java/okhttp3/internal/Util.java"]
    assert idx.files["src/pkg/a.py"].resolved == ["src/pkg/b.py"]
    assert idx.files["web/app.tsx"].resolved == ["web/lib/fmt.ts", "web/lib/index.ts"]
    assert idx.files["cmd/main.go"].resolved == ["util/u.go"]
    assert idx.importers("src/pkg/b.py") == ["src/pkg/a.py"]
    assert [p for p, _ in idx.definitions("helper")] == ["src/pkg/b.py"]


def test_update_reparses_only_changed_files(project):
    for i in range(5):
        project.write(f"m{i}.py", f"def f{i}():\n    return {i}\n")
    project.init_git()
    first = project.rt_json("index")
    assert first["parsed"] == 5 and first["files"] == 5
    assert project.rt_json("index")["parsed"] == 0
    project.write("m2.py", "def renamed():\n    pass\n")
    project.write("new.py", "def g(): pass\n")
    project.write("web/app.ts", "export const app = 1;\n")
    again = project.rt_json("index")
    assert again["parsed"] == 3 and again["files"] == 7
    assert again["langs"] == {"python": 6, "typescript": 1}   # counted as the files are now, not as built
    idx = _index(project)
    assert idx.definitions("f2") == [] and [p for p, _ in idx.definitions("renamed")] == ["m2.py"]
    (project.root / "m0.py").unlink()
    (project.root / "web" / "app.ts").unlink()
    gone = project.rt_json("index")
    assert gone["files"] == 5 and gone["langs"] == {"python": 5}
    assert _index(project).users("f0") == []


def test_index_is_byte_stable(project):
    project.write("a.py", "def a(): pass\n")
    project.write("b.ts", "export function b() {}\n")
    project.init_git()
    project.rt("index")
    snap = {p.relative_to(project.root).as_posix(): p.read_bytes() for p in (project.root / ".rt" / "index").rglob("*.json")}
    project.rt("index", "--rebuild")
    again = {p.relative_to(project.root).as_posix(): p.read_bytes() for p in (project.root / ".rt" / "index").rglob("*.json")}
    assert snap == again
    assert b"/tmp" not in b"".join(snap.values())


def test_damaged_index_is_rebuilt(project):
    project.write("a.py", "def a(): pass\n")
    project.init_git()
    project.rt("index")
    (project.root / ".rt" / "index" / "meta.json").write_text("{not json")
    assert project.rt_json("index")["parsed"] == 1
    assert "a.py:1-1" in project.rt("symbol", "a")



def test_a_look_up_whose_index_another_rt_replaced_is_asked_again_and_builds_nothing(project, capsys):
    """The `/runtask` hook's build (or another look-up's update) may replace the index while a look-up reads it: the
    files it reads then are the new build's, sound, not damage. It is asked again on the new build; nothing is built
    (a rebuild cost seconds on a large tree and said the index was damaged)."""
    from rt.cli import call
    from rt.core import IndexReplaced
    project.write("a.py", "def alpha():\n    pass\n")
    project.init_git()
    project.rt("index")
    stale = _index(project)                      # loaded; no shard read yet
    project.write("b.py", "def beta():\n    pass\n")
    project.rt("index", "--rebuild")             # another rt's build
    with pytest.raises(IndexReplaced):
        stale.definitions("beta")
    meta = project.root / ".rt" / "index" / "meta.json"
    asked = []

    def handler(ctx, args):
        idx = load(ctx)
        if not asked:                            # the other build lands between the load and the read
            project.write("c.py", "def gamma():\n    pass\n")
            project.rt("index", "--rebuild")
            asked.append(meta.read_bytes())
        return [p for p, _ in idx.definitions("gamma")]

    with contextlib.chdir(project.root):
        assert call(handler, Ctx(False), None) == ["c.py"]
    assert meta.read_bytes() == asked[0]         # the other build's index, not one built again
    assert "rebuilt" not in capsys.readouterr().err

# ---------------------------------------------------------------- bad input

def test_minified_mixed_encoding_and_binary_files(project):
    project.write("dist/app.min.js", "var a=1;" * 120_000)                     # ~1 MB on one line
    project.write("big.js", "x" * 2_100_000)                                     # over the text limit: never read
    project.write("legacy.py", b"# caf\xe9\ndef old():\n    return '\xe9t\xe9'\ndef new():\n    return '\xc3\xa9'\n")
    project.write("img.png", b"\x89PNG\x00\x00binary")
    project.write("api/pb.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage api\n\ntype Msg struct {\n}\n")
    project.write("lib/cart.g.dart", "// GENERATED CODE - DO NOT MODIFY BY HAND\n\npart of 'cart.dart';\n")
    # a bundler's output: esbuild's runtime at its head, or its source map named at its end (phoenix's priv/static/)
    project.write("priv/static/app.cjs.js", "var __defProp = Object.defineProperty;\nfunction join() {}\n")
    project.write("priv/static/app.mjs", "function join() {}\n//# sourceMappingURL=app.mjs.map\n")
    project.write("priv/static/app.css", "a { color: red }\n/*# sourceMappingURL=app.css.map */\n")
    project.write("src/socket.js", "// see sourceMappingURL= in the build\nfunction join() {}\n")
    # a documentation generator's pages (Alamofire's docs/, jazzy's; Doxygen's): not the code to change
    project.write("docs/Classes/Session.html", "<html><body><h1>Session</h1>\n" + "<p>retry</p>\n" * 300 +
                  '<p>Generated by <a class="link" href="https://github.com/realm/jazzy">jazzy</a></p></body></html>\n')
    project.write("docs/html/index.html", "<!-- Generated by Doxygen 1.9.8 -->\n<html></html>\n")
    project.write("web/index.html", "<html><body><p>Generated by hand, retry later.</p></body></html>\n")
    project.init_git()
    idx = _index(project)
    assert idx.files["dist/app.min.js"].note == "minified" and idx.files["dist/app.min.js"].defs == []
    assert idx.files["big.js"].note == "large"
    assert idx.files["img.png"].note == "binary"
    assert [d.name for d in idx.files["legacy.py"].defs] == ["old", "new"]
    assert idx.files["api/pb.go"].note == "generated" and [d.name for d in idx.files["api/pb.go"].defs] == ["Msg"]
    assert idx.files["lib/cart.g.dart"].note == "generated"   # Dart's build_runner
    assert [idx.files[p].note for p in ("priv/static/app.cjs.js", "priv/static/app.mjs", "priv/static/app.css",
                                        "src/socket.js")] == ["built"] * 3 + [""]
    assert [idx.files[p].note for p in ("docs/Classes/Session.html", "docs/html/index.html", "web/index.html")] == \
        ["built", "built", ""]
    assert idx.files["docs/Classes/Session.html"].words == []   # nor ranking counts: never parsed
    out = project.rt("slice", "dist/app.min.js", "--lines", "1:1")
    assert out.endswith(" more characters cut]\n") and len(out) < 600
    # a hand-written file with one long line (bat's tests: an expected output of 16,438 characters) is parsed,
    # by the full index and by the partial one the cold `/runtask` reads alike
    tests = "".join(f"#[test]\nfn case_{i}() {{\n    assert_eq!(run({i}), {i});\n}}\n\n" for i in range(300))
    project.write("tests/integration.rs", tests + 'const LONG: &str = "' + "x" * 16_438 + '";\n' + tests.replace("case_", "more_"))
    project.git("add", "tests/integration.rs")
    assert "more_299" in [d.name for d in _index(project).files["tests/integration.rs"].defs]
    assert "tests/integration.rs:2998-3000  function more_299" in project.rt("symbol", "more_299")
    from rt.core import Repo
    from rt.index.partial import Partial
    from rt.snapshot import scan
    from rt.store import Store
    repo = Repo(project.root, True)
    partial = Partial(repo, scan(repo, Store(repo)).files)
    assert partial.stats(partial.paths.index("tests/integration.rs"))[1] > 0   # its words counted, not skipped
    assert "binary, too large or unreadable" in project.rt("slice", "big.js", "--lines", "1:1", ret=2) + project.last_err


@pytest.mark.parametrize("name", ["tsconfig.json", "jsconfig.json"])
def test_invalid_config_json_does_not_break_resolution(project, name):
    project.write(name, "{ this is not json")
    project.write("a.ts", "import { b } from './b';\n")
    project.write("b.ts", "export const b = 1;\n")
    project.init_git()
    assert _index(project).files["a.ts"].resolved == ["b.ts"]
    json.dumps(project.rt_json("index"))


def test_edits_go_to_the_delta_and_answer_like_a_full_rebuild(project, monkeypatch):
    for i in range(30):
        project.write(f"pkg/m{i}.py", f"from pkg.m{(i + 1) % 30} import f{(i + 1) % 30}\n\ndef f{i}(word{i % 3}):\n    return {i}\n")
    project.write("web/a.ts", "import { b } from './b';\nexport function a() { return b(); }\n")
    project.write("web/b.ts", "export function b() { return 1; }\n")
    project.init_git()
    project.rt("index")
    project.write("pkg/m3.py", "import os\n\nclass Fresh:\n    def f3(self, novelword):\n        return os.sep\n")
    project.write("web/b.ts", "export function b2() { return 2; }\nexport const b = b2;\n")
    project.write("web/a.ts", "import { b } from './b';\nexport function a() { return b(); }\n// touched\n")
    with monkeypatch.context() as m:   # an edit goes to the delta: the whole index is never loaded
        m.setattr(Index, "files", property(lambda self: pytest.fail("loaded the whole index")))
        assert project.rt_json("index")["parsed"] == 3
    project.write("web/a.ts", "import { b } from './b';\nexport function a() { return b(); }\n")   # back as it was

    def answers():
        idx = _index(project)
        keys = ["f3", "f4", "Fresh", "novelword", "word0", "word1", "b", "b2", "a", "os"]
        return ({k: (idx.users(k), idx.definitions(k)) for k in keys},
                {p: idx.importers(p) for p in idx.paths}, idx.files, sorted(idx.delta), idx.meta["definitions"])

    patched = answers()
    assert patched[3] == ["pkg/m3.py", "web/b.ts"]
    project.rt("index", "--rebuild")
    rebuilt = answers()
    assert patched[:3] == rebuilt[:3] and patched[4] == rebuilt[4] and rebuilt[3] == []
    idx = _index(project)
    assert [(p, d.parent) for p, d in idx.definitions("f3")] == [("pkg/m3.py", "Fresh")]
    assert "pkg/m3.py" not in idx.users("word0") and idx.users("novelword") == ["pkg/m3.py"]
    assert idx.importers("web/b.ts") == ["web/a.ts"]


def test_a_builds_postings_are_those_its_delta_makes_file_by_file(project):
    """A full build gathers its postings kind by kind (`_maps`, for speed); a file of the delta gives its own
    (`_postings`): the two must agree for every kind, or a file would rank and answer apart from its build."""
    for i in range(12):
        project.write(f"pkg/m{i}.py", f"from pkg.m{(i + 1) % 12} import f{(i + 1) % 12}\n\nclass C{i}:\n"
                                      f"    def f{i}(self, word{i % 3}):\n        return _('cart.total')\n")
    project.write("web/a.ts", "import { b } from './b';\nexport function a() { return t('cart.total') + b(); }\n")
    project.write("web/b.ts", "export function b() { return 1; }\n")
    project.write("web/app.min.js", "var x=" + "1+" * 4000 + "1;\n")   # minified: no path postings
    project.init_git()
    project.rt("index")
    idx = _index(project)
    entries = idx.with_counts()
    for e in entries.values():
        e.resolved = idx.imports_of(e.path)
    es = list(entries.values())
    built = {kind: m for kind, m in index_module._maps(entries, es) if kind not in index_module.ROWS}
    gathered: dict[str, dict] = {kind: {} for kind in built}
    for fid, e in enumerate(es):
        for kind, keys, values in index_module._postings(e.path, fid, e):
            for key, value in zip(keys, [fid] * len(keys) if values is None else values):
                gathered[kind].setdefault(key, []).append(value)
    assert built == gathered and built["keys"]["cart.total"] and built["importers"]


def test_arrow_in_a_type_argument_is_not_a_function():
    p = _parse("src/ctx.tsx", "const Ctx = React.createContext<(v: number) => void>(noop);\n"
                              "const twice = x => x * 2;\nconst make = <T,>(v: T) => v;\n"
                              "class Store {\n  observer = new Observer(() => this.state);\n  onClick = async () => {};\n}\n")
    assert _defs(p) == [("constant", "", "Ctx", 1, 1), ("function", "", "twice", 2, 2), ("function", "", "make", 3, 3),
                        ("class", "", "Store", 4, 7), ("method", "Store", "onClick", 6, 6)]


def test_a_value_definition_that_ends_the_file_runs_to_its_last_line():
    """hoppscotch's `curlparser.ts` ends with `export const parseCurlCommand = (...) => {` and its 211 lines:
    no statement after it ends the value, and it was given its first line alone."""
    body = "export const parseCurlCommand = (command: string) => {\n" + "  step()\n" * 5 + "}\n"
    assert _defs(_parse("src/curl.ts", "const one = 1\n\n" + body)) == [
        ("variable", "", "one", 1, 1), ("function", "", "parseCurlCommand", 3, 9)]
    assert _defs(_parse("src/messages.js", "export const messages = {\n  save: 'Save',\n}\n\n\n")) == [
        ("variable", "", "messages", 1, 3)]
    assert _defs(_parse("src/ids.ts", "export declare const id: number\n")) == [("variable", "", "id", 1, 1)]
    # without semicolons, a call on a new line ends the value before it (curlparser.spec.js: `const samples = [`
    # and its 1,052 lines, then `describe(...)`); an operator or `as` on the next line goes on with it
    spec = "const samples = [\n  { a: 1 },\n]\n\ndescribe('curl', () => {\n  test('x', () => {})\n})\n"
    assert _defs(_parse("src/curl.spec.js", spec)) == [("variable", "", "samples", 1, 3)]
    assert _defs(_parse("src/a.ts", "const a = {\n  b: 1,\n} as const\nconst c = d\n  .e()\n  ? f\n  : g\nrun()\n")) == [
        ("variable", "", "a", 1, 3), ("variable", "", "c", 4, 7)]


def test_every_script_block_of_svelte_and_vue_and_optional_methods():
    p = _parse("src/Card.svelte", '<script context="module">\n  export function preload() {}\n</script>\n\n'
                                  '<script lang="ts">\n  import Button from "./Button.svelte";\n'
                                  '  interface P { onClose?(): void }\n  let count = 0;\n</script>\n\n<Button on:click={preload} />\n')
    assert _defs(p) == [("function", "", "preload", 2, 2), ("interface", "", "P", 7, 7), ("method", "P", "onClose", 7, 7),
                        ("variable", "", "count", 8, 8)]
    assert p.imports == ["./Button.svelte"]
    assert _parse("src/Plain.vue", "<template><div/></template>\n").defs == []


def test_files_added_and_removed_go_to_the_delta_and_answer_like_a_full_rebuild(project, monkeypatch):
    for i in range(30):
        project.write(f"pkg/m{i:02d}.py", f"def f{i}(shared):\n    return shared\n")
    project.write("web/a.ts", "export function a() { return 1; }\n")
    project.init_git()
    project.rt("index")
    project.write("web/a.ts", "import { b } from './bee';\nexport function a() { return b(); }\n")   # importer first
    project.rt("symbol", "a")
    project.write("web/bee.ts", "export function b() { return 2; }\n")                              # then the module
    project.write("pkg/m15b.py", "def f15(shared):\n    return 'again'\n")                         # sorts mid-list
    (project.root / "pkg" / "m07.py").unlink()
    with monkeypatch.context() as m:   # no full rewrite: the whole index is never loaded
        m.setattr(Index, "files", property(lambda self: pytest.fail("loaded the whole index")))
        assert project.rt_json("index")["parsed"] == 2

    def answers():
        idx = _index(project)
        return ({k: (idx.users(k), idx.definitions(k)) for k in ["shared", "f15", "f7", "b", "a"]},
                {p: (idx.importers(p), idx.imports_of(p)) for p in idx.paths}, idx.paths, idx.files,
                idx.meta["files"], idx.meta["definitions"], project.rt("refs", "b"), project.rt("symbol", "f15"))

    patched = answers()
    assert sorted(_index(project).added) == ["pkg/m15b.py", "web/bee.ts"]
    assert "pkg/m07.py" not in patched[2] and patched[1]["web/bee.ts"][0] == ["web/a.ts"]
    assert [p for p, _ in patched[0]["f15"][1]] == ["pkg/m15.py", "pkg/m15b.py"] and patched[0]["f7"] == ([], [])
    project.rt("index", "--rebuild")
    assert answers() == patched


@pytest.mark.parametrize("scan", [False, True], ids=["quick-check", "scan"])
def test_files_moved_under_base_importers_answer_like_a_full_rebuild(project, monkeypatch, scan):
    """Files that came or went move the imports of files nobody touched: those are resolved anew, kept in
    the delta through later updates, and answer as a rebuild does, without a full update."""
    for i in range(40):
        project.write(f"filler/f{i:02d}.py", f"def filler{i}():\n    return {i}\n")
    project.write("web/app.ts", "import { foo } from './foo';\nexport const app = foo;\n")
    project.write("web/foo.ts", "export const foo = 1;\n")
    project.write("pkg/__init__.py", "")
    project.write("main.py", "from pkg.sub import thing\n\nthing()\n")
    project.write("pkg/sub.py", "def thing():\n    return 1\n")
    project.write("go.mod", "module example.com/app\n\ngo 1.21\n")
    project.write("cmd/main.go", 'package main\n\nimport "example.com/app/store"\n\nfunc main() { store.Open() }\n')
    project.write("store/store.go", "package store\n\nfunc Open() {}\n")
    project.init_git()
    project.rt("index")
    quick = project.root / ".rt" / "index" / "quick"

    def update(expect_parsed):
        if scan:
            quick.unlink()
        with monkeypatch.context() as m:   # no full update: the whole index is never loaded
            m.setattr(Index, "files", property(lambda self: pytest.fail("loaded the whole index")))
            assert project.rt_json("index")["parsed"] == expect_parsed

    for src, dst in [("web/foo.ts", "web/foo/index.ts"),                     # a module into its folder
                     ("pkg/sub.py", "pkg/sub/thing.py")]:               # a module into a namespace package
        (project.root / dst).parent.mkdir()
        project.git("mv", src, dst)
    project.write("store/cache.go", "package store\n\nfunc Cache() {}\n")     # a package grows
    update(3)
    moved = _index(project)
    assert moved.importers("web/foo/index.ts") == ["web/app.ts"]
    assert moved.importers("pkg/sub/thing.py") == ["main.py"]
    assert moved.importers("store/cache.go") == ["cmd/main.go"]
    assert sorted(moved.delta) == ["cmd/main.go", "main.py", "pkg/sub/thing.py", "store/cache.go",
                                   "web/app.ts", "web/foo/index.ts"]
    project.write("filler/f00.py", "def filler0():\n    return 'edited'\n")    # a later update keeps them
    update(1)

    def answers():
        idx = _index(project)
        return ({p: (idx.importers(p), idx.imports_of(p)) for p in idx.paths}, idx.paths,
                {k: idx.users(k) for k in ("foo", "thing", "Open")}, project.rt("refs", "foo"),
                idx.meta["files"], idx.meta["definitions"])

    patched = answers()
    assert patched[0]["web/foo/index.ts"] == (["web/app.ts"], [])
    project.rt("index", "--rebuild")
    assert answers() == patched


def _import_map(root: Path) -> dict:
    with contextlib.chdir(root):
        idx = load(Ctx(False))
        return {p: (idx.importers(p), idx.imports_of(p)) for p in idx.paths}


def _importing(ext: str, folder: str, other: str) -> str:
    """A file of language `ext` in `folder` importing the module `other` (of its own language's tree)."""
    return {"ts": f"import {{ y }} from '../web/{other}';\n", "py": f"from lib.{other} import f\n",
            "go": f'package {folder.rpartition("/")[2]}\n\nimport "example.com/app/pkg/{other}"\n',
            "rs": f"use crate::{other}::thing;\n", "java": f"package app;\n\nimport app.{other.title()};\n"}[ext]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_moves_adds_and_deletes_answer_like_a_fresh_build(project, tmp_path, seed):
    """Files moved, added, deleted and edited at random in five languages, one update after another: after
    each, every file's importers and imports are those a fresh build of the same tree gives."""
    import random
    import shutil
    rng = random.Random(seed)
    names = ["alpha", "bravo", "carol", "delta", "echo", "foxtrot", "golf", "hotel"]
    project.write("go.mod", "module example.com/app\n")
    project.write("core/src/lib.rs", "".join(f"mod {name};\n" for name in names))
    for i, name in enumerate(names):
        other = names[(i + 1) % 8]
        project.write(f"web/{name}.ts", f"import {{ x }} from './{other}';\nexport const {name} = x;\n")
        project.write(f"lib/{name}.py", f"from lib.{names[(i + 3) % 8]} import f\n\ndef f():\n    return {i}\n")
        project.write(f"pkg/{names[i % 3]}/{name}.go", _importing("go", f"pkg/{names[i % 3]}", names[(i + 1) % 3]))
        project.write(f"core/src/{name}.rs", _importing("rs", "core/src", other))
        project.write(f"java/app/{name.title()}.java", _importing("java", "java/app", other))
    for i in range(40):
        project.write(f"filler/f{i:02d}.md", f"notes {i}\n")
    project.init_git()
    project.rt("index")
    for step in range(6):
        code = sorted(p.relative_to(project.root).as_posix() for p in project.root.rglob("*.*")
                      if p.suffix in (".ts", ".py", ".go", ".rs", ".java") and p.name != "lib.rs"
                      and ".git" not in p.parts and ".rt" not in p.parts)
        for _ in range(4):
            src = rng.choice(code)
            move = rng.randrange(4)
            folder, _, name = src.rpartition("/")
            stem, ext = name.split(".")[0], name.rpartition(".")[2]
            if move == 0 and src in code:   # moved: into its own folder as the folder's entry file, or renamed
                dst = (f"{folder}/{stem}/index.ts" if ext == "ts" else f"{folder}/{stem}/mod.rs" if ext == "rs"
                       else f"{folder}/{rng.choice(names).title() if ext == 'java' else rng.choice(names)}x.{ext}")
                if not (project.root / dst).exists():
                    (project.root / dst).parent.mkdir(parents=True, exist_ok=True)
                    (project.root / src).rename(project.root / dst)
                    code.remove(src)
            elif move == 1 and src in code:   # deleted
                (project.root / src).unlink()
                code.remove(src)
            elif move == 2:   # a new file beside it, importing another
                new = f"{rng.choice(names)}{step}"
                project.write(f"{folder}/{new.title() if ext == 'java' else new}.{ext}", _importing(ext, folder, rng.choice(names)))
            elif src in code:   # edited: another import
                project.write(src, _importing(ext, folder, rng.choice(names)))
        project.rt("index")
        fresh = tmp_path / f"fresh{step}"
        shutil.copytree(project.root, fresh, ignore=shutil.ignore_patterns(".rt", ".git"))
        assert _import_map(project.root) == _import_map(fresh), f"step {step}"


@pytest.mark.parametrize("name", ["src/__init__.py", "src/app/x.py"])
def test_a_file_whose_importers_no_word_tells_makes_a_full_update(project, name):
    """A package's `__init__.py` moves the names of every module under it, and a name of one letter is no
    word of the word map: whose imports move is not known, so the index is updated whole and answers as a
    rebuild does."""
    for i in range(40):
        project.write(f"src/app/m{i:02d}.py", f"from app.m{(i + 1) % 40:02d} import f\nfrom . import x\n\n"
                                              f"def f():\n    return {i}\n")
    project.write("src/main.py", "from src.app.m00 import f\n")
    project.init_git()
    project.rt("index")
    project.write(name, "")
    project.rt("index")
    idx = _index(project)
    assert idx.delta == {} and idx.meta["files"] == 42
    before = {p: (idx.importers(p), idx.imports_of(p)) for p in idx.paths}
    shards = {p.name: p.read_bytes() for p in (project.root / ".rt" / "index").glob("[a-z][0-9][0-9][0-9]*")}
    project.rt("index", "--rebuild")
    idx = _index(project)
    assert {p: (idx.importers(p), idx.imports_of(p)) for p in idx.paths} == before
    # the files the update did not parse again came from the shards whole, identifiers and words included
    assert {p.name: p.read_bytes() for p in (project.root / ".rt" / "index").glob("[a-z][0-9][0-9][0-9]*")} == shards


# ---------------------------------------------------------------- the build: a pool of processes, shards as a cache

_PARSE_CHUNK = index_module._parse_chunk


def _mixed_tree(project, n: int) -> None:
    """`n` files of every kind a build meets: Python, TypeScript/TSX with imports, Go, Markdown, Ruby, locale
    JSON, a syntax error, a binary and a minified file."""
    for i in range(n):
        d = f"pkg{i % 7}/sub{i % 3}"
        if i % 5 == 0:
            project.write(f"{d}/m{i}.py", f"from pkg{(i + 1) % 7}.sub0 import m{i + 1}\n\nclass C{i}:\n"
                                          f"    def run_{i}(self, order_total):\n        return order_total + {i}\n")
        elif i % 5 == 1:
            project.write(f"{d}/v{i}.tsx", f"import {{ helper }} from './util';\nexport function View{i}() {{\n"
                                           f"  return <div title=\"Cart {i}\">{{t('cart.empty')}}</div>;\n}}\n")
        elif i % 5 == 2:
            project.write(f"{d}/g{i}.go", f"package sub\n\n// Total{i} adds.\nfunc Total{i}(x int) int {{\n\treturn x + {i}\n}}\n")
        elif i % 10 == 3:
            project.write(f"{d}/NOTES_{i}.md", f"# Notes {i}\n\nInvoice number {i} and the cart.\n")
        elif i % 5 == 3:   # ctags' definitions, where it is installed: read in batches alike in both builds
            project.write(f"{d}/r{i}.rb", f"module Shop{i}\n  class Cart\n    def total_{i}(rows)\n      rows.sum\n"
                                          f"    end\n  end\nend\n")
        else:
            project.write(f"{d}/u{i}.ts", f"export const LIMIT_{i} = {i};\nexport function helper{i}(x: number) {{ return x; }}\n")
    project.write("locales/en.json", '{"cart": {"empty": "Your cart is empty", "checkout": "Proceed to checkout"}}\n')
    project.write("locales/de.json", '{"cart": {"empty": "Ihr Warenkorb ist leer", "checkout": "Zur Kasse"}}\n')
    project.write("broken.py", "def broken(:\n    pass\n")
    project.write("img.png", b"\x89PNG\x00\x00binary")
    project.write("dist/app.min.js", "var a=1;" * 1000)


def _noting_its_process(root, todo, counts=True, ctags=True):
    """`index._parse_chunk` that leaves its process id in $RT_TEST_PIDS (module level: the pool pickles it)."""
    (Path(os.environ["RT_TEST_PIDS"]) / str(os.getpid())).touch()
    return _PARSE_CHUNK(root, todo, counts, ctags)


def test_a_parallel_build_equals_a_serial_build_byte_for_byte(project, monkeypatch, tmp_path):
    from rt.index import index
    _mixed_tree(project, 400)
    project.init_git()
    monkeypatch.setattr(index, "WORKERS", 1)
    project.rt("index")
    folder = project.root / ".rt" / "index"
    serial = {p.name: p.read_bytes() for p in folder.iterdir() if p.name != "quick"}

    pids = tmp_path / "pids"
    pids.mkdir()
    monkeypatch.setenv("RT_TEST_PIDS", str(pids))
    monkeypatch.setattr(index, "_parse_chunk", _noting_its_process)
    monkeypatch.setattr(index, "WORKERS", 3)
    monkeypatch.setattr(index, "POOL_FROM", 1)
    monkeypatch.setattr(index, "CHUNK", 16)
    assert project.rt_json("index", "--rebuild")["parsed"] == 404   # all but the binary
    parallel = {p.name: p.read_bytes() for p in folder.iterdir() if p.name != "quick"}
    assert {int(p.name) for p in pids.iterdir()} - {os.getpid()}, "no file was parsed by another process"
    assert parallel.keys() == serial.keys() and len(serial) > 10
    assert [n for n in serial if parallel[n] != serial[n]] == []


def test_a_shard_an_older_build_left_is_found_by_its_checksum_and_rebuilt(project):
    """Shards are written without fsync: after a crash one may hold the previous build's bytes, sound
    JSON of the right shape. Its CRC-32 in the meta file tells, and the look-up builds the index again."""
    project.write("a.py", "def old_name():\n    return 1\n")
    project.init_git()
    project.rt("index")
    folder = project.root / ".rt" / "index"
    before = {p.name: p.read_bytes() for p in folder.glob("*.json") if p.name[0] in "fs"}
    project.write("a.py", "def new_name():\n    return 2\n")
    project.rt("index", "--rebuild")
    for name, data in before.items():
        (folder / name).write_bytes(data)   # as if the new shard never reached the disk
    assert "a.py:1-2" in project.rt("symbol", "new_name")
    assert "damaged" in project.last_err and "rebuilt" in project.last_err
    assert project.rt("symbol", "old_name", ret=1) is not None


def test_runtask_takes_the_index_written_for_its_snapshot_without_the_quick_check(project, monkeypatch):
    """The task's snapshot, just taken, is the tree: an index written for that tree is current without the
    quick check (which has git stat every file again). An index of another tree (a file edited since the
    build) is brought up to date as before."""
    import shutil

    from rt import state
    from rt.context import task_files
    from rt.index import freshness
    project.write("a.py", "def zorbly_total():\n    return 1\n")
    project.write("b.py", "def other():\n    return 2\n")
    project.init_git()
    project.rt("index")
    asked = []
    real = freshness.signature
    monkeypatch.setattr(freshness, "signature", lambda *a, **k: asked.append(a) or real(*a, **k))

    def runtask() -> Index:
        shutil.rmtree(project.root / ".rt" / "tasks", ignore_errors=True)
        (project.root / ".rt" / "state.json").unlink(missing_ok=True)
        project.rt("start", "fix the zorbly total", "--no-baseline")
        with contextlib.chdir(project.root):
            ctx = Ctx(False)
            return task_files(ctx, state.active_task(ctx.store))[0].index

    assert runtask().entry("a.py").defs[0].name == "zorbly_total" and asked == []
    project.write("a.py", "def zorbly_total():\n    return 1\n\n\ndef zorbly_more():\n    return 2\n")
    assert [p for p, _ in runtask().definitions("zorbly_more")] == ["a.py"] and len(asked) == 1


def test_the_manifests_folder_counts_are_kept_by_the_build_and_follow_the_delta(project):
    """The manifest's (folder, language) counts come from the index, not from a pass over every path: the
    build keeps them, and files added and removed since (a folder emptied, one made) move them as a count
    of the paths now does, and as a rebuild has them."""
    from rt.index.langs import folder_counts
    for i in range(30):
        project.write(f"pkg/sub/deep/m{i:02d}.py", f"def f{i}():\n    return {i}\n")
    project.write("gone/only.ts", "export const x = 1;\n")
    project.write("README.md", "# x\n")
    project.init_git()
    project.rt("index")
    assert _index(project).folder_langs == folder_counts(_index(project).paths)
    (project.root / "gone" / "only.ts").unlink()
    (project.root / "pkg" / "sub" / "deep" / "m03.py").unlink()
    project.write("new/place/deeper/xylo.ts", "export const xylo = 2;\n")
    project.write("pkg/sub/yonder.md", "# yonder\n")
    project.rt("index")
    idx = _index(project)
    assert idx.added and idx.removed
    assert idx.folder_langs == folder_counts(idx.paths) and ("gone", "typescript") not in idx.folder_langs
    assert idx.folder_langs[("pkg/sub", "python")] == 29 and idx.folder_langs[("new/place", "typescript")] == 1
    project.rt("index", "--rebuild")
    assert _index(project).folder_langs == idx.folder_langs


def test_a_shard_numbered_past_999_is_checked_against_its_own_checksum():
    """`s1000.json` was checked against shard 100's: every look-up on an index of 1,024 shards rebuilt it and failed."""
    from rt.index.index import _crc
    meta = {"crcs": {}, "digests": {"s": list(range(7, 7 + 1024))}}
    assert _crc(meta, "s1000.json") == 1007 and _crc(meta, "s100.json") == 107 and _crc(meta, "s1024.json") is None


@pytest.mark.parametrize("before, after", [("file", "folder"), ("folder", "file")])
def test_a_file_become_a_folder_of_its_name_or_the_reverse_is_seen_by_the_next_look_up(project, before, after):
    """`lib` a tracked file, then a folder holding lib/helper.py (or the reverse): the new code stayed out of the
    index, and `rt index` did not bring it in; only --rebuild did."""
    import shutil
    project.write("main.py", "def main():\n    pass\n")
    if before == "file":
        project.write("lib", "placeholder\n")
    else:
        project.write("lib.py/old.py", "def gone():\n    pass\n")
    project.init_git()
    project.rt("symbol", "main")
    if before == "file":
        (project.root / "lib").unlink()
        project.write("lib/helper.py", "def helper():\n    pass\n")
        assert project.rt("symbol", "helper").startswith("lib/helper.py:1-2  function helper")
    else:
        shutil.rmtree(project.root / "lib.py")
        project.write("lib.py", "def helper():\n    pass\n")
        assert project.rt("symbol", "helper").startswith("lib.py:1-2  function helper")
        assert "no definition" in project.rt("symbol", "gone", ret=1)


@pytest.mark.parametrize("flag", ["--skip-worktree", "--assume-unchanged"])
def test_an_edit_of_a_file_git_is_told_not_to_look_at_is_seen_by_the_next_look_up(project, flag):
    """git diff-files never names a skip-worktree (a sparse checkout's) or assume-unchanged file: its edits were
    never seen, and rt slice printed blank lines under the old definition's name."""
    project.write("cfg.py", "def old_name():\n    pass\n")
    project.init_git()
    project.rt("symbol", "old_name")
    project.git("update-index", flag, "cfg.py")
    project.write("cfg.py", "\n\n\ndef new_name():\n    pass\n")
    assert project.rt("symbol", "new_name").startswith("cfg.py:4-5  function new_name")
    project.write("cfg.py", "def newer_name():\n    pass\n")
    assert project.rt("symbol", "newer_name").startswith("cfg.py:1-2  function newer_name")

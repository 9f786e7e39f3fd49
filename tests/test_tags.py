"""Definitions in the languages rt has no reader of, from Universal Ctags (rt/index/tags.py): what the look-ups
and the ranking get from it, the same from a cold repository's partial index, and words only without it."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rt.index import tags
from rt.pack.rank import rank, settle
from tests.hooks_support import context_text, hook, payload
from tests.test_partial import _both, _ranked

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from genrepo import generate  # noqa: E402

needs_ctags = pytest.mark.skipif(shutil.which("ctags") is None or tags.program() is None,
                                 reason="needs ctags: not installed here (`bash .ci/run` installs it)")

SOURCES = {
    "lib/billing.rb": "module Billing\n  class Invoice\n    def total(rows)\n      rows.sum\n    end\n\n"
                      "    def self.build\n      new if Array === rows\n    end\n  end\nend\n",
    "lib/site.rb": "module Shop\n  class Site\n    def reset\n      self.time = if config\n                    1\n"
                   "                  else\n                    2\n                  end\n    end\n\n"
                   "    def process\n      reset\n    end\n  end\nend\n",
    "src/Cart.cs": "namespace Shop {\n  public class Cart {\n    public int Total(int x) {\n      return x;\n    }\n"
                   "    public string Name { get; set; }\n  }\n}\n",
    "src/add.c": "#include <stdio.h>\nstatic int add(int a, int b) {\n  return a + b;\n}\nstruct point { int x; };\n",
    "grammar/calc.y": "%{\nint x;\n%}\n%token NUM\n%%\nexpr: expr '+' term\n    | term\n    ;\nterm: NUM\n    ;\n%%\n",
    "scripts/deploy.sh": "#!/bin/sh\nrelease_build() {\n  echo build\n}\nrelease_build\n",
    "plugin/steps.lua": "local M = {}\nfunction M.step(x)\n  return x\nend\nreturn M\n",
    "src/Json/Convert.cs": "namespace Newtonsoft.Json\n{\n    public static class JsonConvert\n    {\n"
                           "        public static string ToString(bool value)\n        {\n            return \"\";\n"
                           "        }\n    }\n}\n",
    "src/Mediator.cs": "public class Mediator\n{\n    public Task Send<TRequest>(TRequest request)\n"
                       "        where TRequest : IRequest\n    {\n        return Task.CompletedTask;\n    }\n}\n",
    "src/box.cpp": "namespace outer { namespace inner {\nclass Box {\n public:\n  int size() const { return 1; }\n};\n} }\n",
    "lib/shop/cart.ex": "defmodule Shop.Cart do\n  def total(rows), do: rows\n\n  defp put(conn) do\n    conn\n  end\n\n"
                        "  test \"puts\" do\n    :ok\n  end\n  defdelegate clear(conn), to: Plug\nend\n",
    "src/Routing/Route.php": "<?php\nnamespace Slim\\Routing;\n\nclass Route\n{\n    public function run()\n    {\n"
                             "        return 1;\n    }\n}\n",
}
"""A file of each kind: Ruby modules and singleton methods, a C# namespace and property, a C function and struct,
a YACC grammar's rules, a shell function, a Lua module's function."""


def outline(project, path: str) -> list[str]:
    return [" ".join(line.split()) for line in project.rt("outline", path).splitlines()[1:]]


@needs_ctags
def test_the_languages_rt_has_no_reader_of_get_their_definitions(project):
    for rel, text in SOURCES.items():
        project.write(rel, text)
    project.write("src/--options=evil.rb", "class Evil\nend\n")   # a name ctags would take for an option
    project.write(".ctags.d/fake.ctags", "--regex-ruby=/rows/Injected/c/\n")   # the repository's ctags options
    project.write("src/paged.c", "int first(void) {\n  return 1;\n}\n\x0c\nint second(void) {\n  return 2;\n}\n")
    project.init_git()
    assert outline(project, "lib/billing.rb") == ["1-11 module Billing module Billing", "2-10 class Invoice class Invoice",
                                                  "3-5 method total def total(rows)", "7-9 method build def self.build"]
    assert outline(project, "src/Cart.cs") == ["1-8 namespace Shop namespace Shop {", "2-7 class Cart public class Cart {",
                                               "3-5 method Total public int Total(int x) {",
                                               "6-6 property Name public string Name { get; set; }"]
    assert outline(project, "src/add.c") == ["2-4 function add static int add(int a, int b) {",
                                             "5-5 struct point struct point { int x; };"]
    assert outline(project, "grammar/calc.y") == ["6-8 rule expr expr: expr '+' term", "9-10 rule term term: NUM"]
    # no end from ctags: where the indentation closes (phoenix's `defp put_session` ran 746 lines, past its tests)
    assert outline(project, "scripts/deploy.sh") == ["2-4 function release_build release_build() {"]
    assert outline(project, "plugin/steps.lua") == ["2-4 function step function M.step(x)"]
    # jekyll's `self.time = if ...`: ctags ended the class at the method's `end`, and `process` lost its class
    assert outline(project, "lib/site.rb") == ["1-15 module Shop module Shop", "2-14 class Site class Site",
                                               "3-9 method reset def reset", "11-13 method process def process"]
    assert project.rt("symbol", "process").split("  ")[:2] == ["lib/site.rb:11-13", "method Shop.Site.process"]
    assert project.rt("symbol", "Total").split("  ")[:2] == ["src/Cart.cs:3-5", "method Cart.Total"]   # no namespace
    assert outline(project, "src/Json/Convert.cs") == [
        "1-10 namespace Newtonsoft.Json namespace Newtonsoft.Json", "3-9 class JsonConvert public static class JsonConvert",
        "5-8 method ToString public static string ToString(bool value)"]
    # ctags took the generic constraint `where TRequest : IRequest` for a property of MediatR's Mediator
    assert outline(project, "src/Mediator.cs") == ["1-8 class Mediator public class Mediator",
                                                   "3-7 method Send public Task Send<TRequest>(TRequest request)"]
    assert project.rt("symbol", "size").split("  ")[:2] == ["src/box.cpp:4-4", "method Box.size"]   # in a class
    assert project.rt("symbol", "total").split("  ")[:2] == ["lib/billing.rb:3-5", "method Billing.Invoice.total"]
    assert outline(project, "lib/shop/cart.ex") == ["1-12 module Cart defmodule Shop.Cart do",
                                                    "2-2 function total def total(rows), do: rows",
                                                    "4-6 function put defp put(conn) do",
                                                    "11-11 function clear defdelegate clear(conn), to: Plug"]
    assert outline(project, "src/Routing/Route.php") == ["2-2 namespace Slim\\Routing namespace Slim\\Routing;",
                                                         "4-10 class Route class Route", "6-9 method run public function run()"]
    assert project.rt("symbol", "Evil").startswith("src/--options=evil.rb:1-2  class Evil")
    assert "no definition" in project.rt("symbol", "Injected", ret=1)   # the repository's .ctags.d was not read
    paged = [(d["name"], d["start"], d["end"]) for d in project.rt_json("outline", "src/paged.c")["definitions"]]
    assert paged == [("first", 1, 3), ("second", 5, 7)]   # a form feed breaks no line for ctags, Read or rt
    proc = project.rt_proc("outline", "lib/billing.rb", env={"RT_CTAGS": "0"})
    assert proc.returncode == 0, proc.stderr


def test_without_ctags_those_files_give_their_words_only(project):
    project.write("lib/billing.rb", SOURCES["lib/billing.rb"])
    project.init_git()
    off = {"RT_CTAGS": "0"}
    proc = project.rt_proc("index", env=off)
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == \
        "ruby: words only; their definitions come from Universal Ctags (install it, then `rt index --rebuild`)", proc.stdout
    if tags.program():
        assert "words only" not in project.rt("index")
        # a language this ctags has no parser for (5.9 and 6.x have no Zig) says so, and what rt reads itself never
        project.write("src/main.zig", "pub fn main() void {}\n")
        project.write("Sources/App.swift", "func main() {}\n")
        project.git("add", "-A")
        out = project.rt("index")
        unread = tags.unread(["zig"])
        assert (out.splitlines()[-1] == "zig: words only; the installed ctags has no parser for them") == (unread == ["zig"])
        assert "swift" not in out.splitlines()[-1], out
    proc = project.rt_proc("outline", "lib/billing.rb", "--json", env=off)
    assert '"definitions": []' in proc.stdout, proc.stdout
    assert "lib/billing.rb" in project.rt_proc("find", "rows.sum", env=off).stdout


@needs_ctags
def test_a_task_naming_a_method_finds_it_in_a_language_ctags_reads(project):
    """The definition-name channel and the injection's named definitions work for them too: a task naming
    `Invoice.total` shows that method as code."""
    for rel, text in SOURCES.items():
        project.write(rel, text)
    for k in range(30):   # other Ruby files that say "total" and "invoice" in their text
        project.write(f"lib/report_{k}.rb", f"# the invoice total of report {k}\nREPORT_{k} = 'total invoice'\n")
    project.init_git()
    data = project.rt_json("pack", "Invoice.total ignores the empty rows")
    assert data["ranked"][0] == {"path": "lib/billing.rb", "score": data["ranked"][0]["score"],
                                 "why": ["defines: Invoice, total", "text: rows"]}, data["ranked"][:3]
    code, out, err = hook(project, "user-prompt-submit", payload(project, "UserPromptSubmit",
                                                                  prompt="/runtask Invoice.total ignores the empty rows"))
    assert code == 0, err
    assert "### lib/billing.rb 3-5 of 11: method Invoice.total\n3\t    def total(rows)\n" in \
        context_text(out, "UserPromptSubmit")


@needs_ctags
def test_the_partial_index_reaches_the_same_definitions(tmp_path):
    """A cold repository's partial index (rt/index/partial.py) parses the files of ctags' languages on demand as
    the full build does: the same definitions, and the same settled ranking."""
    root = tmp_path / "repo"
    generate(root, 1500)
    for rel, text in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"], cwd=root, check=True)
    partial, full = _both(root)
    names = sorted({d.name for p in SOURCES for d in full.entry(p).defs})
    assert {"Invoice", "total", "Total", "add", "expr", "release_build", "step"} <= set(names)
    assert {n: partial.definitions(n) for n in names} == {n: full.definitions(n) for n in names}
    for task in ("Invoice total of the build", "release build of the deploy", "the Cart Total property Name"):
        partial, full = _both(root)
        assert _ranked(settle(partial, task)) == _ranked(rank(full, task)), task

"""What `/runtask` injects (rt/pack/inject.py), through the real hook: within Claude Code's inline limit on a
large real tree, the code it shows is the file's own lines under the right numbers, every Read line it
gives can be made, and paths written before a colon are pinned."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.hooks_support import context_text, hook, payload
from tests.realtree import real_tree

TASKS = (
    "no-unused-vars reports a variable that is only assigned in a destructuring default; it should not",
    "eslint --max-warnings should exit with code 1 when the number of warnings is above the limit",
    "vitest toMatchInlineSnapshot loses the indentation of a multi-line inline snapshot",
    "typescript getExePath should find the tsc binary of the platform package",
)

INJECT_CHARS = 9_500
"""The README's promise for the /runtask injection: "within 9,500 characters"."""


def runtask(project, prompt: str) -> str:
    code, out, err = hook(project, "user-prompt-submit", payload(project, "UserPromptSubmit", prompt=prompt))
    assert code == 0, err
    return context_text(out, "UserPromptSubmit")


def assert_faithful(root: Path, text: str) -> None:
    """Every numbered line is that line of that file; every Read line names a file and lines it has."""
    current = None
    for line in text.splitlines():
        head = re.match(r"### (\S+) (\d+)-(\d+) of (\d+): ", line)
        if head:
            current = (root / head.group(1)).read_text(encoding="utf-8").splitlines()
            assert int(head.group(4)) == len(current), line
            continue
        numbered = re.match(r"(\d+)\t(.*)", line)
        if numbered and current is not None:
            assert current[int(numbered.group(1)) - 1].rstrip() == numbered.group(2).rstrip(), line
        for path, offset, limit in re.findall(r"Read (\S+) offset=(\d+) limit=(\d+)", line):
            lines = (root / path).read_text(encoding="utf-8").splitlines()
            assert int(offset) >= 1 and int(offset) + int(limit) - 1 <= len(lines), line


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    return real_tree(tmp_path_factory.mktemp("large") / "repo")


def test_injection_fits_the_client_on_a_large_real_tree_and_shows_true_lines(large):
    assert int(large.git("ls-files", "--", ".").count("\n")) >= 2000
    for task in TASKS:
        text = runtask(large, f"/runtask {task}")
        assert len(text) <= INJECT_CHARS, (task, len(text))
        assert text.startswith("rt: task ") and "## Code most likely to change" in text, text[:300]
        assert re.search(r"^\d+\t", text, re.M), "no numbered code"
        assert task not in text   # the session has the task's text already
        assert_faithful(large.root, text)
        best = next(f["path"] for f in large.rt_json("pack")["ranked"] if "/test" not in f["path"])
        assert f"### {best} " in text, (best, text[:600])   # the best-ranked file's code is there
        large.rt("block", "next task")


def test_runtask_pins_paths_written_before_a_colon(project):
    project.write("src/billing/invoice.py", "def total(items):\n    return sum(items)\n")
    project.write("src/shop/cart.py", "def add(cart, item):\n    cart.append(item)\n")
    project.write("README.md", "# shop\n")
    project.init_git()
    text = runtask(project, "/runtask src/shop/ README.md: round the total")
    status = project.rt_json("status")["task"]
    assert status["text"] == "round the total" and status["paths"] == ["README.md", "src/shop"]
    assert "### src/shop/cart.py 1-2 of 2: function add\n1\tdef add(cart, item):\n" in text   # pinned: shown though no word matches it


def test_a_vague_task_names_the_files_of_the_work_going_on(project):
    project.write("src/cart.py", "def add(cart, item):\n    cart.append(item)\n")
    project.write("src/invoice.py", "def total(items):\n    return sum(items)\n")
    project.init_git()
    project.write("src/invoice.py", "def total(items):\n    return round(sum(items), 2)\n")
    project.git("commit", "-qam", "round")
    text = runtask(project, "/runtask minor fix")
    assert "pick out no files" in text and "The work going on (not committed, then the last commits), newest first: src/invoice.py." in text
    assert "## Where the work going on changed last (numbered as Read shows it)\n### src/invoice.py 1-2 of 2: changed here\n" \
           "1\tdef total(items):\n2\t    return round(sum(items), 2)\n" in text


@pytest.mark.parametrize("prompt", ["/runtask fix: the total is wrong", "/runtask v2.0: bump the version"])
def test_words_before_a_colon_that_name_no_path_stay_in_the_task(project, prompt):
    project.write("app.py", "x = 1\n")
    project.init_git()
    runtask(project, prompt)
    status = project.rt_json("status")["task"]
    assert status["text"] == prompt.removeprefix("/runtask ") and status["paths"] == []


def test_a_missing_pinned_path_is_put_back_to_the_user(project):
    project.write("src/app.py", "x = 1\n")
    project.init_git()
    code, out, _ = hook(project, "user-prompt-submit",
                        payload(project, "UserPromptSubmit", prompt="/runtask src/app.py src/nope.py: fix x"))
    assert code == 0 and out["decision"] == "block"
    assert "src/nope.py: no such file or folder" in out["reason"] and "/runtask src/a.py src/b/: <task>" in out["reason"]
    assert not (project.root / ".rt" / "state.json").exists()


def test_a_best_file_matched_by_its_path_alone_gives_way_to_the_next_files_code(project):
    """Its words are in its path, none in its code: it has no fragment to lead with, and the hook must not
    fail over it."""
    project.write("src/invoice/rounding.py", "import os\n\n\n" + "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n"
                                                                         for i in range(150)))
    project.write("src/cart.py", "def total(items):\n    return sum(items)\n")
    project.init_git()
    text = runtask(project, "/runtask invoice rounding of the total is wrong")
    assert project.rt_json("pack")["ranked"][0]["path"] == "src/invoice/rounding.py"
    assert "### src/cart.py 1-2 of 2: function total\n1\tdef total(items):\n" in text


def test_a_short_best_file_is_shown_whole_so_lines_near_the_match_are_there_too(project):
    """The best file is short enough for the code room: all of it is shown, numbered, so the lines a fix
    touches below the matching definition need no Read before the edit."""
    helpers = "".join(f"def pad_{k}(text):\n    return text.ljust({k})\n\n\n" for k in range(20))
    project.write("src/report/summary.py", "def summary_header(day):\n    return f\"Summary for {day}\"\n\n\n"
                  + helpers + "def footer(day):\n    return day.isoformat()\n")
    project.write("src/report/other.py", "def other(x):\n    return x\n")
    project.init_git()
    total = len((project.root / "src/report/summary.py").read_text().splitlines())
    assert total > 60   # longer than a file always shown whole
    text = runtask(project, "/runtask the summary header shows the wrong day")
    assert f"### src/report/summary.py 1-{total} of {total}: " in text
    assert f"\n{total}\t    return day.isoformat()\n" in text
    assert_faithful(project.root, text)


def test_a_task_word_whose_stem_ends_in_s_still_finds_its_definition(project):
    """The ranking's keys are stems (`transpose` -> `transpos`); stemmed a second time they no longer match
    the file's words (`transpo`), and the best file showed no code at all."""
    filler = "".join(f"fn helper_{k}(x: u32) -> u32 {{\n    x + {k}\n}}\n\n" for k in range(60))
    project.write("src/app.rs", filler + "/// Helper that may come to std.\nfn transpose<T>(opt: Option<Result<T>>) -> Result<Option<T>> {\n"
                  "    opt.map_or(Ok(None), |res| res.map(Some))\n}\n")
    project.write("src/util.rs", "pub fn other() {}\n")
    project.init_git()
    text = runtask(project, "/runtask Move transpose to util module")
    start = filler.count("\n") + 2
    assert f"\n{start}\tfn transpose<T>(opt: Option<Result<T>>) -> Result<Option<T>> {{\n" in text
    assert_faithful(project.root, text)


def _widget(extra_lines: int) -> str:
    body = "".join(f"        self.option_{k} = option_{k}\n" for k in range(extra_lines))
    return ("class Widget:\n    def __init__(self, help=None, deprecated=False):\n" + body
            + "        if deprecated:\n            help = f\"{help} (DEPRECATED)\"\n        self.help = help\n\n"
            + "".join(f"    def method_{k}(self):\n        return {k}\n\n" for k in range(40)))


def test_a_constructor_named_in_english_is_shown_as_a_named_definition(project):
    """"Widget's constructor" names `Widget.__init__` as `Widget.__init__` would: its code is shown, though the
    best file's own fragments are another class's matching methods."""
    project.write("src/widget.py", _widget(30) + "".join(
        f"\nclass Label{k}:\n    def deprecated_help_{k}(self):\n        return 'deprecated label help text {k}'\n"
        for k in range(8)))
    project.write("src/other.py", "def other(x):\n    return x\n")
    project.init_git()
    text = runtask(project, "/runtask An empty help text gets a stray space before the deprecated label in "
                            "Widget's constructor")
    assert "method Widget.__init__" in text
    assert "\n33\t        if deprecated:\n34\t            help = f\"{help} (DEPRECATED)\"\n" in text
    assert_faithful(project.root, text)


def test_a_matching_method_of_a_long_matching_class_is_shown_whole(project):
    """The class matches by its name and is too long to show whole: its method named for the task is still
    shown whole, not only the class's signature and the lines of its docstring that hold the words."""
    methods = "".join(f"    def helper_{k}(self):\n        return {k}  # status code {k}\n\n" for k in range(60))
    project.write("src/status.py", "class StatusCode:\n    \"\"\"Status codes.\n\n    Status code tables.\n    \"\"\"\n\n"
                  + methods + "    def is_success(self, value):\n        return value >= 200 and value <= 299\n")
    project.write("src/other.py", "def other(x):\n    return x\n")
    project.init_git()
    text = runtask(project, "/runtask use a chained comparison in the status code success check")
    line = 7 + 60 * 3
    assert f"\n{line}\t    def is_success(self, value):\n{line + 1}\t        return value >= 200 and value <= 299\n" in text
    assert_faithful(project.root, text)


def test_the_checks_line_counts_only_what_a_check_found_before(project):
    """A check's findings before the task are counted where there are some; a zero says nothing (only new
    diagnostics count either way), so a clean check is just named."""
    project.write("pyproject.toml", '[tool.ruff.lint]\nselect = ["F"]\n\n[tool.pytest.ini_options]\n')
    project.write("calc.py", "import os\n\n\ndef add(a, b):\n    return a + b\n")
    project.write("tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")
    project.init_git()
    first = runtask(project, "/runtask add should accept three numbers").splitlines()[0]
    assert "ruff (1 before)" in first and "pytest" in first, first
    assert "(0 before)" not in first, first


def test_checks_one_reason_stopped_are_named_in_one_group(project):
    """cargo's check and test, offline, fail on the same dependency: the reason is given once, without the
    repository's absolute path (cargo names the package by its folder)."""
    script = ("import os, sys; print('error: failed to get `aho-corasick` as a dependency of package `bat v0.26.1 ('"
              " + os.getcwd() + ')`'); sys.exit(101)")
    project.write("rt.toml", "".join(f'[checks.{n}]\nkind = "{k}"\nparser = "cargo"\ncommand = ["python3", "-c", "{script}"]\n'
                                     for n, k in (("cargo-check", "typecheck"), ("cargo-test", "test"))))
    project.write("src/lib.rs", "pub fn count(b: &[u8]) -> usize {\n    b.len()\n}\n")
    project.init_git()
    first = runtask(project, "/runtask count should skip NUL bytes").splitlines()[0]
    assert "`rt verify` runs cargo-check, cargo-test (could not run: exit 101: error: failed to get `aho-corasick` as " \
           "a dependency of package `bat v0.26.1 (.)`); only diagnostics new since then count." in first, first


def test_checks_whose_programs_are_missing_alike_are_named_in_one_group(project):
    """uptime-kuma without node_modules: eslint and tsc not found, each with the same `npm install` hint; the hint
    is given once, after both programs' names."""
    project.write("rt.toml", "".join(f'[checks.{n}]\nkind = "{k}"\ncommand = ["no-such-{n}-here", "."]\n'
                                     for n, k in (("lint", "lint"), ("types", "typecheck"))))
    project.write("src/count.js", "export function count(b) {\n  return b.length\n}\n")
    project.init_git()
    first = runtask(project, "/runtask count should skip NUL bytes").splitlines()[0]
    assert "`rt verify` runs lint, types (could not run: program not found: no-such-lint-here, no-such-types-here " \
           "(install it, or set its command in rt.toml)); only diagnostics" in first, first


def test_the_next_ranked_files_give_their_lines_with_the_most_telling_task_words(project):
    """Code files ranked after the one shown as code give, numbered as Read numbers them, the few lines whose
    task words weigh most, as Grep with line numbers would: the change is often there. A line holding only a
    common task word is left out, and so are import lines and documents."""
    project.write("src/billing/invoice_rounding.py", "".join(
        f"def invoice_rounding_{k}(total):\n    return round(total, {k})\n\n\n" for k in range(30)))
    common = "".join(f"def step_{k}(rows):\n    # rows of the total\n    return rows\n\n\n" for k in range(20))
    project.write("src/billing/export.py", "from billing.invoice_rounding import invoice_rounding_1\n\n\n" + common
                  + "def write_rows(rows, out):\n    out.write(format_rounding(rows))   # invoice rounding\n")
    project.write("docs/invoice-rounding.md", "# Invoice rounding\n\nInvoice rounding rounds each invoice total.\n")
    for k in range(40):   # "total" is a common word here, "invoice" and "rounding" are not
        project.write(f"src/misc/part_{k}.py", f"def part_{k}(rows):\n    return len(rows)  # a total\n")
    project.init_git()
    text = runtask(project, "/runtask the invoice rounding of the total is off by one cent")
    ranked = [f["path"] for f in project.rt_json("pack")["ranked"]]
    assert ranked[:2] == ["src/billing/invoice_rounding.py", "src/billing/export.py"], ranked
    section = text.split("## The task's words in the next ranked files\n", 1)[1].split("\n\n", 1)[0]
    line = 3 + 20 * 5 + 2
    assert f"### src/billing/export.py {line}-{line} of {line}: lines with task words\n" in section, section
    assert f"\n{line}\t    out.write(format_rounding(rows))   # invoice rounding\n" in section + "\n"
    assert "# rows of the total" not in section and "import" not in section and ".md" not in section
    assert_faithful(project.root, text)


def test_a_grammar_and_a_language_rt_reads_no_definitions_of_are_code(project):
    """mermaid's `wardley.langium` (its diagram's syntax) was data, weighed as JSON is, and gave no lines: a task
    about the syntax showed the TypeScript around it. A parser generator's grammar, and a file of a language rt
    reads no definitions of (Lua), rank and show as code."""
    project.write("packages/parser/src/language/wardley/wardley.langium", "grammar Wardley\n\n" + "".join(
        f"Rule{k}:\n    KW_{k} value=ID EOL\n;\n\n" for k in range(20))
        + "terminal NAME_WITH_SPACES: /[A-Za-z][A-Za-z0-9_]*(?:[ \\t]+[A-Za-z][A-Za-z0-9_]*)*/;  // unquoted names\n")
    project.write("packages/mermaid/src/diagrams/wardley/wardleyParser.ts", "".join(
        f"export function parseRule{k}(ast: unknown) {{\n  return ast;\n}}\n\n" for k in range(20))
        + "// names may be quoted or unquoted\n")
    project.write("packages/mermaid/src/diagrams/wardley/names.json", '{"unquoted": "names with spaces"}\n')
    project.write("scripts/plugin/names.lua", "local M = {}\n\n" + "".join(
        f"function M.step{k}(x)\n  return x\nend\n\n" for k in range(20)) + "-- unquoted names\nreturn M\n")
    project.init_git()
    ranked = [f["path"] for f in project.rt_json("pack", "allow hyphens in unquoted names with spaces")["ranked"]]
    assert ranked.index("packages/parser/src/language/wardley/wardley.langium") < ranked.index(
        "packages/mermaid/src/diagrams/wardley/names.json"), ranked
    assert ranked.index("scripts/plugin/names.lua") < ranked.index("packages/mermaid/src/diagrams/wardley/names.json")
    text = runtask(project, "/runtask allow hyphens in unquoted names with spaces")
    assert "NAME_WITH_SPACES" in text and "-- unquoted names" in text, text
    assert_faithful(project.root, text)
    manifest = project.rt("manifest")
    assert "lua (1 file)" in manifest and "grammar (1 file)" in manifest, manifest


def test_a_definition_shown_in_part_offers_a_read_of_the_rest_only_when_short(project):
    """rich's `class Console` (2,025 lines) was shown by its first line "(to line 587; Read rich/console.py offset=588
    limit=2025 for the rest)": a Read costing far more than the task. A rest over REST_LINES is only located."""
    methods = "".join(f"    def method_{k}(self, value):\n        return value + {k}\n\n" for k in range(110))
    project.write("rich/console.py", "class Console:\n    \"\"\"The console.\"\"\"\n\n" + methods + "\n\n"
                  + "def render_console_instance(console, value):\n" + "".join(f"    value = value + {k}\n" for k in range(120))
                  + "    return value\n")
    project.init_git()
    text = runtask(project, "/runtask respect the custom console instance")
    heads = [line for line in text.splitlines() if line.startswith("### rich/console.py")]
    assert any(re.search(r"1-332 of 457: class Console \(to line (\d+); lines \d+-332 not shown\)$", h) for h in heads), heads
    assert any(re.search(r"function render_console_instance \(to line \d+; Read rich/console.py offset=\d+ limit=\d+ for "
                         r"the rest\)$", h) for h in heads), heads
    assert all(int(n) <= 200 for n in re.findall(r"limit=(\d+)", text)), text
    assert_faithful(project.root, text)


def test_a_files_blocks_come_in_line_order(project, monkeypatch):
    """mermaid's `populateDb` came as two windows inside it (lines 100 and 116), then its first line (68), as the
    fragments were valued: a file's blocks now read in line order, as Read gives the file, the files still in the
    order of their best block."""
    from rt.cli import Ctx
    from rt.context import _view
    from rt.pack.fragments import Fragment
    from rt.pack.inject import _code
    lines = ["import sys\n", "\n", "\n", "def populate_db(ast, db):\n"] + [f"    step_{k} = rows[{k}]\n" for k in range(150)]
    project.write("src/parser.py", "".join(lines) + "    return db\n")
    project.write("src/db.py", "def add_node(node):\n    return node\n")
    project.init_git()
    monkeypatch.chdir(project.root)
    view = _view(Ctx(False), "populate the db", [])

    def frag(path, start, end, what):
        text = (project.root / path).read_text().splitlines(keepends=True)
        return Fragment(path, start, end, len(text), what, text[start - 1:end])
    chosen = [(True, 3.0, frag("src/parser.py", 100, 106, "in function populate_db")),
              (False, 2.5, frag("src/db.py", 1, 2, "function add_node")),
              (False, 2.0, frag("src/parser.py", 116, 122, "in function populate_db")),
              (False, 1.5, frag("src/parser.py", 4, 4, "function populate_db"))]
    blocks, shown = _code(view, chosen)
    assert [re.match(r"### (\S+) (\d+)-", b).groups() for b in blocks] == [
        ("src/parser.py", "4"), ("src/parser.py", "100"), ("src/parser.py", "116"), ("src/db.py", "1")], blocks
    assert [f.start for f in shown] == [100, 1, 116, 4]   # what follows (the tests) reads them as chosen


def test_a_vendored_projects_tests_are_not_the_nearest(project):
    """redis's `deps/jemalloc/test/unit/tsd.c` (`data_cleanup`) was shown as the test of a task about expiry
    cleanups: a vendored project's tests test that project. A top `deps/` is vendored, as `vendor/` is."""
    project.write("src/expire.py", "".join(f"def expire_cleanup_{k}(db):\n    return db\n\n\n" for k in range(5)))
    project.write("deps/alloc/tests/test_cleanup.py", "def test_data_cleanup():\n    # expire cleanup of the data\n"
                  "    assert expire_cleanup_1 is not None\n")
    project.write("tests/test_expire.py", "from src.expire import expire_cleanup_2\n\n\ndef test_expire_cleanup():\n"
                  "    assert expire_cleanup_2({}) == {}\n")
    project.init_git()
    text = runtask(project, "/runtask cleanups related to expire cleanup")
    assert "deps/alloc" not in text and "tests/test_expire.py" in text, text


def test_a_block_holding_two_definitions_names_both():
    """sinatra's `ETAG_KINDS = ...` line and the `etag` method after it, one block, were labelled "constant
    ETAG_KINDS" alone; a class's methods inside it are not listed beside it; overloads are named once."""
    from types import SimpleNamespace
    from rt.index.model import Definition
    from rt.pack.fragments import Fragment
    from rt.pack.inject import _label
    defs = [Definition("ETAG_KINDS", "constant", 613, 613, "ETAG_KINDS = ...", ""),
            Definition("etag", "method", 623, 650, "def etag(value)", "Base"),
            Definition("Cart", "class", 700, 760, "class Cart", ""), Definition("total", "method", 702, 705, "def total", "Cart")]
    entry = SimpleNamespace(defs=defs)
    assert _label(entry, Fragment("a.rb", 613, 640, 900, "a definition", [], ["ETAG_KINDS", "etag"])) == \
        ("constant ETAG_KINDS, method Base.etag", 650)
    assert _label(entry, Fragment("a.rb", 700, 720, 900, "a definition", [], ["Cart", "total"])) == ("class Cart", 760)
    assert _label(entry, Fragment("a.rb", 800, 810, 900, "lines with task words", [], [])) == ("lines with task words", 810)
    # okhttp's two `onReadMessage` overloads in one block: named once
    overloads = SimpleNamespace(defs=[Definition("onRead", "method", 393, 395, "fun onRead(text: String)", "Ws"),
                                      Definition("onRead", "method", 397, 400, "fun onRead(bytes: ByteString)", "Ws")])
    assert _label(overloads, Fragment("a.kt", 393, 400, 900, "a definition", [], ["onRead"])) == ("method Ws.onRead", 400)
    # rubocop's `on_def` in `RuboCop.Cop.Lint.UnusedPrivateMethod`: the innermost class names it, the path the rest
    nested = SimpleNamespace(defs=[Definition("on_def", "method", 84, 94, "def on_def(node)", "RuboCop.Cop.Lint.Unused")])
    assert _label(nested, Fragment("a.rb", 84, 94, 900, "a definition", [], ["on_def"])) == ("method Unused.on_def", 94)


def test_a_keyword_is_not_the_tasks_english_word(project):
    """`continues` in a task and `continue;` in the code share a key: the lines holding only the keyword say
    nothing of the task, and no section is made of them."""
    project.write("src/base.ts", "".join(f"export function withBase{k}(input: string, base: string) {{\n"
                                          f"  return base + input;\n}}\n\n" for k in range(3)))
    project.write("src/query.ts", "export function parseQuery(q: string) {\n  for (const part of q.split('&')) {\n"
                  + "    if (!part) {\n      continue;\n    }\n  }\n  return q;\n}\n" * 3)
    project.init_git()
    text = runtask(project, "/runtask withBase: count the base only when the input continues with a slash")
    assert "continue;" not in text, text


def test_a_regional_english_copy_of_the_locale_file_gives_no_lines_of_its_own(project):
    """`en_GB/translation.json` beside `en_US/translation.json` holds the same lines under the same numbers:
    only the source's are shown (before, both were, the copy first)."""
    project.write("src/billing/invoice_rounding.py", "".join(
        f"def invoice_rounding_{k}(total):\n    return round(total, {k})\n\n\n" for k in range(30)))
    entries = "".join(f'  "Label {k}": "Label {k}",\n' for k in range(40))
    locale = '{\n' + entries + '  "Invoice total rounded": "Invoice total rounded"\n}\n'
    for variant in ("en_GB", "en_US"):
        project.write(f"locales/{variant}/translation.json", locale)
    project.init_git()
    text = runtask(project, "/runtask the invoice total rounded text is off by one cent")
    section = text.split("## The task's words in the next ranked files\n", 1)[1].split("\n\n", 1)[0]
    assert "### locales/en_US/translation.json 42-42 of 43: lines with task words\n" in section, section
    assert "en_GB" not in text, text
    assert_faithful(project.root, text)


def test_the_nearest_tests_are_in_the_shown_codes_language_not_samples_under_tests(project):
    """bat keeps sample files of many languages under `tests/syntax-tests/source/`: a Go `main` and a Svelte
    router full of the task's words were shown as "the nearest tests" of its Rust code. A test for the shown
    Rust code is a Rust test."""
    project.write("src/paging.rs", "pub fn paging_mode(list: bool) -> u8 {\n    if list { 1 } else { 2 }\n}\n")
    project.write("tests/integration.rs", "".join(f"#[test]\nfn other_{i}() {{\n    assert_eq!(1, 1);\n}}\n\n"
                                                  for i in range(5))
                  + "#[test]\nfn list_paging_mode() {\n    assert_eq!(bat::paging_mode(true), 1);\n}\n")
    for lang, ext in (("Go", "go"), ("JavaScript", "js")):
        project.write(f"tests/syntax-tests/source/{lang}/main.{ext}",
                      "function paging_mode(list) {\n  // list paging mode, paging list mode\n  return list;\n}\n")
    project.init_git()
    text = runtask(project, "/runtask Respect paging mode for list languages")
    assert "### tests/integration.rs 27-29 of 29: function list_paging_mode\n" in text
    assert "syntax-tests" not in text


def test_the_test_file_named_for_the_code_leads_and_a_long_describe_gives_way_to_its_tests(project):
    """hoppscotch: the spec named for `curlparser.ts` leads, though a test elsewhere says more of the task's
    words; every `index.spec.ts` is not the test of an `index.ts` in another folder; and a long `describe`
    (1,800 lines there) is not one test: its `it` blocks are."""
    project.write("src/helpers/curl/curlparser.ts",
                  "export const parseCurlCommand = (command: string) => {\n  const body = JSON.parse(command)\n"
                  "  return { body }\n}\n")
    project.write("src/helpers/curl/__tests__/curlparser.spec.ts",
                  'import { read } from "./reader"\n\ndescribe("headers", () => {\n'
                  '  it("reads a header", () => {\n    expect(read("-H a")).toBeTruthy()\n  })\n})\n')
    project.write("src/helpers/openapi/index.ts",
                  "export function parseOpenAPIBody(body: string) {\n  // json bodies of an OpenAPI document\n"
                  "  return JSON.parse(body)\n}\n")
    its = "".join(f'  it("keeps menu entry {i}", () => {{\n    expect(menu.entries()[{i}]).toBeDefined()\n  }})\n\n'
                  for i in range(12))
    project.write("src/services/menu/__tests__/index.spec.ts",
                  'describe("MenuService", () => {\n' + its
                  + '  it("should preserve json bodies a curl parser reads", () => {\n    expect(menu.body()).toBe("{}")\n'
                  '  })\n\n' + its.replace("entry", "item") + "})\n")
    project.write("src/services/menu/index.ts", "export const menu = { entries: () => [], body: () => '{}' }\n")
    project.init_git()
    text = runtask(project, "/runtask fix(common): preserve JSON bodies in curl parser")
    heads = [line for line in text.splitlines() if line.startswith("### ") and "__tests__" in line]
    assert heads[0] == "### src/helpers/curl/__tests__/curlparser.spec.ts 3-7 of 7: block 'headers'", text
    spec = (project.root / "src/services/menu/__tests__/index.spec.ts").read_text().splitlines()
    at = spec.index('  it("should preserve json bodies a curl parser reads", () => {') + 1
    assert f"src/services/menu/__tests__/index.spec.ts {at}-{at + 2} of {len(spec)}: block 'should preserve" in text \
        or f"Read src/services/menu/__tests__/index.spec.ts offset={at} limit=3  (block 'should preserve" in text
    assert "keeps menu" not in text and "'MenuService'" not in text
    assert_faithful(project.root, text)


def test_tests_come_from_the_shown_codes_package(project):
    """A monorepo (hoppscotch): for the admin app's config code, a backend test named with the task's words is
    no test of it; the admin package's own test is."""
    project.write("package.json", '{"name": "mono", "private": true}\n')
    project.write("packages/admin/package.json", '{"name": "admin"}\n')
    project.write("packages/admin/src/config.ts", "export function saveConfig(fields: string[]) {\n"
                  "  // config fields that block saving\n  return fields.length > 0\n}\n")
    project.write("packages/admin/src/__tests__/settings.spec.ts",
                  'describe("settings", () => {\n  it("saves the config", () => {\n    expect(saveConfig([])).toBe(false)\n'
                  '  })\n})\n')
    project.write("packages/backend/package.json", '{"name": "backend"}\n')
    project.write("packages/backend/src/auth.spec.ts",
                  'describe("auth", () => {\n  it("should surface config fields that block saving", () => {\n'
                  '    expect(saveConfig(["a"])).toBe(true)\n  })\n})\n')
    project.init_git()
    text = runtask(project, "/runtask surface which config fields block saving")
    assert "### packages/admin/src/__tests__/settings.spec.ts 1-5 of 5: block 'settings'\n" in text
    assert "backend" not in text


def test_a_workspace_root_tests_its_crates_and_a_sibling_crate_does_not(project):
    """ripgrep: `tests/tests.rs` at the workspace's root tests the `ignore` crate the code is in; a test of the
    sibling `globset` crate, however worded, is no test of it."""
    project.write("Cargo.toml", '[workspace]\nmembers = ["ignore", "globset"]\n')
    project.write("ignore/Cargo.toml", '[package]\nname = "ignore"\n')
    project.write("ignore/src/gitignore.rs", "pub fn add_line(line: &str) -> bool {\n    line.starts_with('/')\n}\n")
    project.write("tests/tests.rs", "#[test]\nfn leading_slash() {\n    assert!(ignore::add_line(\"/a\"));\n}\n")
    project.write("globset/Cargo.toml", '[package]\nname = "globset"\n')
    project.write("globset/tests/glob.rs", "#[test]\nfn leading_slash_line_bug() {\n    assert!(true);\n}\n")
    project.init_git()
    text = runtask(project, "/runtask Fix leading slash bug when add_line gets a line")
    assert "### tests/tests.rs 2-4 of 4: function leading_slash\n" in text
    assert "globset/tests" not in text


def test_one_test_file_gives_two_tests_at_most(project):
    """outline: every test of `Document.test.ts` uses `Document`, the shown code's class; it gave all five
    places, and the API route's test of the task went unnamed."""
    project.write("package.json", '{"name": "app"}\n')
    project.write("server/models/Document.ts", "export class Document {\n  restoreTo(revision: string) {\n"
                  "    return revision\n  }\n}\n")
    project.write("server/models/Document.test.ts", "".join(
        f'it("keeps case {i}", () => {{\n  expect(new Document()).toBeTruthy()\n}})\n\n' for i in range(6)))
    project.write("server/routes/documents.test.ts",
                  'it("should return 404 for a missing revision on restore", () => {\n  expect(restore()).toBe(404)\n})\n')
    project.init_git()
    text = runtask(project, "/runtask fix: Missing revision on restore returns 404 instead of authorization error")
    named = re.findall(r"^(?:### |Read )(server/\S+\.test\.ts)", text, re.MULTILINE)
    assert named.count("server/models/Document.test.ts") == 2 and "server/routes/documents.test.ts" in named, text


def test_a_copy_of_a_shown_file_is_not_shown_again(project):
    """Alamofire keeps its docs twice (`docs/` and the docset inside it): each page came twice, the copy in the
    room of the next file."""
    body = "".join(f"def retry_policy_{k}(request):\n    # retry the request with the policy\n    return request\n\n\n"
                   for k in range(4))
    project.write("src/retry.py", body)
    project.write("docs/copy/retry.py", body)
    project.init_git()
    text = runtask(project, "/runtask retry policy of the request")
    shown = re.findall(r"^### (\S+)", text, re.MULTILINE)
    assert ("src/retry.py" in shown) != ("docs/copy/retry.py" in shown), text


def test_tests_written_as_ruby_blocks_are_the_units(project):
    """jekyll's tests are shoulda's `should "..." do ... end` inside one long test class, RSpec's and ExUnit's
    `it`/`test "..." do`: each block is a test to show or offer, and a long test is offered by its first lines,
    not whole (`class TestCollections` was offered as a Read of 351 lines)."""
    project.write("lib/publisher.rb", "module Shop\n  class Publisher\n    def publish?(thing)\n"
                  "      can_be_published?(thing) && !hidden_in_the_future?(thing)\n    end\n  end\nend\n")
    filler = "".join(f"  should \"keep page {k} as it is\" do\n    assert_equal {k}, page({k})\n  end\n\n"
                     for k in range(40))
    project.write("test/test_publisher.rb", "class TestPublisher < JekyllUnitTest\n" + filler
                  + "  context \"a collection\" do\n    should \"publish future documents\" do\n"
                    "      assert Publisher.new.publish?(doc)\n    end\n  end\nend\n")
    project.write("test/test_reader.rb", "class TestReader < JekyllUnitTest\n" + "".join(
        f"  # reads future documents of collection {k}\n  def helper_{k}\n    Publisher.new.publish?(doc)\n  end\n\n"
        for k in range(30)) + "end\n")
    project.init_git()
    text = runtask(project, "/runtask publish future documents of a collection")
    assert "block 'a collection'" in text, text


def test_dart_groups_are_the_units(project):
    """Dart's tests are `group('...', () {` calls holding `test('...', () {` calls, all inside one `void main()`
    (bloc's `main` of 160 lines was offered as the test)."""
    project.write("test/publisher_test.dart", "void main() {\n" + "".join(
        f"  group('page {k}', () {{\n    test('keeps page {k}', () {{\n      expect({k}, {k});\n    }});\n  }});\n\n"
        for k in range(20)) + "  group('future documents', () {\n    test('are published', () {\n"
        "      expect(Publisher().publish(doc), isTrue);\n    });\n  });\n}\n")
    project.write("lib/publisher.dart", "class Publisher {\n  bool publish(Object doc) {\n    return true;\n  }\n}\n")
    project.init_git()
    text = runtask(project, "/runtask publish future documents with the Publisher")
    assert "test/publisher_test.dart" in text and "block 'future documents'" in text, text


def test_a_long_test_is_offered_by_its_first_lines(project):
    """jekyll's `class TestCollections` was offered as a Read of 351 lines: its set-up and first cases show the
    style at a sixth of the cost."""
    project.write("src/publisher.py", "def publish_future(doc):\n    return doc\n")
    for k in range(12):
        project.write(f"src/other_{k}.py", f"def other_{k}(x):\n    return x + {k}\n")
    for k in range(4):
        project.write(f"tests/test_publish_{k}.py", "from src.publisher import publish_future\n\n\n"
                      f"def test_publish_future_{k}():\n" + "    assert publish_future(1) == 1\n" * 120)
    project.init_git()
    text = runtask(project, "/runtask publish_future must copy the document")
    reads = re.findall(r"^Read tests/\S+ offset=(\d+) limit=(\d+)  \((.*)\)$", text, re.MULTILINE)
    assert reads and all(n == "60" and what.endswith("lines 4-124: its first 60") for _, n, what in reads), text


def test_a_name_written_with_colons_is_the_definition_it_names(project):
    """spdlog's "Use find if registry is bigger than 10 in registry::get(std::string_view logger_name)": `registry::get`
    is the method `get` of `registry` (C++'s, Rust's and PHP's `::`), not another `get`, nor `string_view` in a
    vendored copy of fmt."""
    others = "".join(f"pub struct Cache{k};\n\nimpl Cache{k} {{\n    pub fn get(&self) -> u32 {{\n        {k}\n    }}\n}}\n\n"
                     for k in range(4))
    project.write("src/cache.rs", others)
    project.write("src/registry.rs", "pub struct Registry;\n\nimpl Registry {\n    pub fn get(&self, name: &str) -> u32 {\n"
                  "        self.loggers.iter().position(|l| l == name).unwrap_or(0) as u32\n    }\n}\n")
    project.write("vendor/fmt/src/lib.rs", "pub struct string_view;\n\nimpl Registry {\n    pub fn get(&self) -> u32 {\n"
                  "        1\n    }\n}\n")
    project.init_git()
    text = runtask(project, "/runtask Use find if the registry is bigger than 10 in Registry::get(std::string_view name)")
    blocks = re.findall(r"^### (\S+) \d+-\d+ of \d+: (.*)$", text, re.MULTILINE)
    assert blocks[0] == ("src/registry.rs", "method Registry.get") and "vendor/" not in text, text


def test_a_test_file_named_for_the_code_in_the_plural_leads(project):
    """XCTest's, JUnit's and .NET's habit: `SessionTests.swift` tests `Session.swift` (Alamofire's), as
    `session_test.go` tests `session.go`; another test saying more of the task's words comes after it."""
    project.write("Sources/Net/Session.swift", "final class Session {\n    func retry(request: Request) -> Bool {\n"
                  "        return request.attempts < 3\n    }\n}\n")
    project.write("Tests/NetTests/SessionTests.swift", "final class SessionTests: XCTestCase {\n"
                  "    func testRetry() {\n        XCTAssertTrue(Session().retry(request: Request()))\n    }\n}\n")
    project.write("Tests/NetTests/AttemptsTests.swift", "final class AttemptsTests: XCTestCase {\n"
                  "    func testRetryAttemptsOfTheSessionRequest() {\n"
                  "        // retry the session request's attempts\n        XCTAssertTrue(Session().retry(request: r))\n"
                  "    }\n}\n")
    project.init_git()
    text = runtask(project, "/runtask retry a session request after its attempts")
    tests = [line for line in text.splitlines() if line.startswith("### Tests/")]
    assert tests and tests[0].startswith("### Tests/NetTests/SessionTests.swift "), text


def test_a_file_named_with_a_line_break_keeps_one_heading_a_file_in_the_injection(project):
    project.write("app/new\nline.py", "def render_invoice_total():\n    return 1\n")
    project.init_git()
    text = runtask(project, "/runtask render_invoice_total returns the wrong total")
    assert '### "app/new\\nline.py" 1-2 of 2: ' in text and "\nline.py" not in text, text


def test_a_prompt_with_a_lone_surrogate_still_gets_its_pack(project):
    """JSON may carry `\\ud800`, which no file can hold: the hook reads it as `?`, where it failed writing the task."""
    project.write("app/save.py", "def save_button():\n    return 1\n")
    project.init_git()
    text = runtask(project, "/runtask fix the save \ud800 button")
    assert "### app/save.py 1-2 of 2: " in text
    assert project.rt_json("status")["task"]["text"] == "fix the save ? button"


def test_a_long_task_whose_words_pick_out_no_file_names_a_few_of_them(project):
    """A spec pasted into an empty repository: every one of its words was listed as tried, 18,000 characters
    where the client shows 10,000 and then only a 2 KB preview of a saved file."""
    project.init_git()
    words = [f"zq{i}xw" for i in range(2500)]
    text = runtask(project, "/runtask build the app from this spec: " + " ".join(words))
    assert len(text) <= INJECT_CHARS, len(text)
    assert "(words tried: build, app, spec, zq0xw, zq, xw, zq1xw, " in text and "zq14xw and 2485 more): find" in text

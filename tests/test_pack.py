"""What a task pack holds: code for every path it names, within its budget, headings included; long
definitions as their signature and matching lines; imports whole; the tests of the ranked code."""
from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from genrepo import generate  # noqa: E402

PACK_CHARS = 18_000
"""The README's promise for `rt pack`: "at most 18,000 characters"."""


def headings(pack: str) -> list[str]:
    return re.findall(r"^### (\S+)", pack, re.MULTILINE)


def test_never_over_budget_headings_included_and_no_path_without_code(project):
    generate(project.root, 2000)
    long_words = " ".join(f"{w} {w}_helper" for w in "alpha beta gamma delta order invoice user account".split())
    tasks = ["render the invoice total button label for the cart session " * 6,   # the task line is cut, never the budget
             f"{long_words} {long_words}", "cart"]
    for task in tasks:
        data = project.rt_json("pack", task)
        text = data["pack"]
        assert len(text) <= PACK_CHARS, (task, len(text))
        assert "## Ranked files" not in text and not re.search(r"^\d+\. ", text, re.MULTILINE)   # the list is the manifest's
        for path in headings(text):   # every file named has its code right below
            block = text.split(f"### {path} ", 1)[1]
            assert block.split("\n", 2)[1].startswith(("```", "lines ")), path
        assert set(data["files"]) <= {f["path"] for f in data["fragments"]}
        assert "no summary" not in text


def test_more_files_with_less_code_each(project):
    for i in range(10):
        body = "".join(f"    step_{k} = ledger.post(entry, {k})\n" for k in range(150))
        project.write(f"ledger/posting_{i}.py", f"def reconcile_ledger_{i}(ledger, entry):\n{body}"
                      f"    return ledger.reconcile(entry)  # reconcile ledger posting\n")
    for i in range(30):
        project.write(f"web/view_{i}.py", f"def render_view_{i}(request):\n    return request.path + '{i}'\n")
    project.init_git()
    data = project.rt_json("pack", "reconcile ledger posting")
    assert len(data["files"]) >= 7        # not six files of 80 lines each
    shown = {}
    for f in data["fragments"]:
        shown.setdefault(f["path"], set()).update(range(f["start"], f["end"] + 1))
    ledgers = [p for p in data["files"] if p.startswith("ledger/")]
    for p in ledgers:                      # a function cut to its room keeps its signature and its matching line
        assert {1, 152} <= shown[p], p
    assert len(shown[ledgers[-1]]) < len(shown[ledgers[1]]) < len(shown[ledgers[0]])


def test_a_long_definition_shows_its_signature_and_the_lines_that_match(project):
    body = "".join(f"    total_{k} = line_{k}.amount * rate\n" for k in range(300))
    project.write("billing/tax.py", "import decimal\nimport math\n\n\ndef apply_tax(lines, rate):\n"
                  f"    \"\"\"Tax every line.\"\"\"\n{body}    rounded = round_half_even(total_0)  # rounding of the vat\n"
                  "    return rounded\n")
    project.write("billing/other.py", "def unrelated():\n    return 1\n")
    project.init_git()
    data = project.rt_json("pack", "vat rounding in apply_tax is wrong")
    spans = [(f["start"], f["end"]) for f in data["fragments"] if f["path"] == "billing/tax.py"]
    shown = {n for a, b in spans for n in range(a, b + 1)}
    assert 5 in shown and 307 in shown          # the signature and the matching line, 300 lines apart
    assert not set(range(40, 250)) & shown      # not the first 80 lines of the body
    assert "def apply_tax(lines, rate):" in data["pack"] and "round_half_even(total_0)" in data["pack"]


def test_a_matching_function_of_a_hundred_lines_is_shown_whole(project):
    """The lines a change touches lie together in one function more often than at its scattered matching
    lines: a function that fits its room is shown whole, not as its signature and windows."""
    body = "".join(f"    fee_{k} = order.items[{k}].price * 0.01\n" for k in range(98))
    others = "".join(f"\n\ndef audit_{k}(order):\n    return order.id + {k}\n" for k in range(40))
    project.write("shop/refunds.py", f"def settle_refund(order):\n{body}    return sum_fees(order)\n{others}")
    project.write("shop/other.py", "def unrelated():\n    return 1\n")
    project.init_git()
    data = project.rt_json("pack", "settle_refund drops the last fee")
    shown = {n for f in data["fragments"] if f["path"] == "shop/refunds.py" for n in range(f["start"], f["end"] + 1)}
    assert set(range(1, 101)) <= shown and len(shown) < 200   # the function, not the whole file


def test_a_function_cut_to_a_small_room_keeps_its_signature_above_its_matching_line():
    """A tail file's 600 characters: the line naming the function, then the lines round its matching one, the
    headings counted as rendered."""
    from types import SimpleNamespace

    from rt.index.model import Definition
    from rt.pack.fragments import fragments

    body = "".join(f"    step_{k} = queue.pop()\n" for k in range(140))
    text = f"def drain_queue(queue, limit):\n{body}    return retry_backoff(queue)\n"
    entry = SimpleNamespace(defs=[Definition("drain_queue", "function", 1, 142, "def drain_queue(queue, limit):", "")])
    shown = fragments("q.py", text, entry, ["retry backoff"], room=600)
    lines = {n for f in shown for n in range(f.start, f.end + 1)}
    assert {1, 142} <= lines and sum(len(f.shown()) for f in shown) <= 600


def test_imports_are_whole_statements_never_a_lone_line_and_rust_use_in_a_function_or_a_string_is_not_one(project):
    helpers = "".join(f"def helper_{k}(x):\n    return x + {k}\n\n\n" for k in range(40))
    project.write("pkg/client.py", "from pkg._exceptions import (\n    TimeoutError,\n    ProtocolError,\n)\n"
                  "from pkg._models import Request\n\n\n" + helpers +
                  "def send_request(request):\n    raise TimeoutError(request)\n")
    project.write("pkg/single.py", "from pkg._models import Request\n\n\n" + helpers +
                  "def parse_request(raw):\n    return Request(raw)\n")
    rust = "".join(f"fn helper_{k}(x: u32) -> u32 {{\n    x + {k}\n}}\n\n" for k in range(60))
    project.write("src/cache.rs", "use std::collections::HashMap;\nuse std::sync::Mutex;\n\n" + rust +
                  "fn evict_entries(map: &mut HashMap<u32, u32>) {\n    use std::cmp::Ordering;\n"
                  "    map.clear();\n}\n\nconst EVICT_DOC: &str = r\"\nEvict the entries of the map.\n"
                  "use the \\flag{clear} flag to keep none.\nuse this as the default;\n\";\n")
    project.init_git()
    text = project.rt_json("pack", "send_request timeout")["pack"]
    assert "from pkg._exceptions import (\n    TimeoutError,\n    ProtocolError,\n)\n" in text
    fragments = project.rt_json("pack", "parse_request raw")["fragments"]
    assert not [f for f in fragments if f["path"] == "pkg/single.py" and f["what"] == "imports"]   # one line: left out
    fragments = project.rt_json("pack", "evict_entries clears the map")["fragments"]
    imports = [f for f in fragments if f["path"] == "src/cache.rs" and "imports" in f["what"]]
    assert imports and all(f["end"] <= 2 for f in imports)
    methods = "".join(f"    helper{k}(x) {{\n      return x + {k};\n    }},\n" for k in range(60))
    vue = ('<template>\n  <button @click="checkout">Pay</button>\n</template>\n\n<script>\n'
           'import a from "./a";\nimport b from "./b";\n\nexport default {\n  methods: {\n' + methods +
           '    checkout() {\n      return a(b);\n    },\n  },\n};\n</script>\n\n<style scoped>\n'
           '@import "../vars.scss";\n</style>\n')
    project.write("src/Cart.vue", vue)
    project.init_git()
    fragments = project.rt_json("pack", "checkout button pays")["fragments"]
    shown = [(f["start"], f["end"], f["what"]) for f in fragments if f["path"] == "src/Cart.vue"]
    at = vue.splitlines().index('@import "../vars.scss";') + 1   # the stylesheet's lone `@import`: not shown
    assert any("imports" in what and a <= 6 for a, _, what in shown) and not any(a <= at <= b for a, b, _ in shown)


def test_the_pack_holds_the_tests_of_the_ranked_code(project):
    helpers = "".join(f"def helper_{k}(x):\n    return x + {k}\n\n\n" for k in range(40))
    project.write("shop/money.py", helpers + "def round_cents(value):\n    return round(value, 2)\n")
    tests = "".join(f"def test_helper_{k}():\n    assert helper_{k}(0) == {k}\n\n\n" for k in range(30))
    project.write("tests/test_money.py", "from shop.money import helper_0, round_cents\n\n\n" + tests +
                  "def test_round_cents_half():\n    assert round_cents(0.125) == 0.12\n")
    project.init_git()
    data = project.rt_json("pack", "round_cents rounds half cents the wrong way")
    assert data["files"][0] == "shop/money.py"
    text = data["pack"]
    assert "## Tests" in text and "def test_round_cents_half():" in text
    assert "def test_helper_7" not in text      # the test function that exercises it, not the whole file


def test_the_files_importing_a_packed_file_beyond_the_pack_show_their_lines_using_it(project):
    project.write("shop/money.py", "def round_cents(value):\n    return round(value, 2)\n")
    for i in range(12):
        project.write(f"shop/views/view_{i:02d}.py", f"from shop.money import round_cents\n\n\ndef total_{i}(items):\n"
                      f"    return round_cents(sum(items)) + {i}\n")
    project.init_git()
    data = project.rt_json("pack", "round_cents of a negative value")
    assert data["files"][0] == "shop/money.py"
    outside = sorted(f"shop/views/view_{i:02d}.py" for i in range(12) if f"shop/views/view_{i:02d}.py" not in data["files"])
    assert outside
    uses = data["pack"].split("## Where the files importing them use them\n", 1)[1]
    assert f"{outside[0]}:5: return round_cents(sum(items))" in uses


def _ledger_pack(project, modules: int, lines: int, views: int) -> dict:
    """The pack of "settle ledger balance" where `modules` modules of `lines` lines hold the task's words alike
    and `views` more files (the rest of the project) hold none."""
    for i in range(modules):
        body = "".join(f"    entry_{k} = journal.read({k})  # plain bookkeeping line\n" for k in range(lines))
        project.write(f"ledger/settle_{i:02d}.py", f"def settle_ledger_{i:02d}(journal):\n{body}"
                      f"    return journal.settle()  # settle the ledger balance\n")
    for i in range(views):
        project.write(f"web/view_{i:02d}.py", f"def view_{i:02d}(request):\n    return request.path + '{i}'\n")
    project.init_git()
    return project.rt_json("pack", "settle ledger balance")


def test_files_ranked_past_the_eighth_get_their_best_piece_and_the_first_keeps_its_room(project):
    """Fourteen modules match the task about as well: all of them get code (their matching definition's
    signature and lines), not eight, and the best-ranked one still gets far more room than the last."""
    data = _ledger_pack(project, 14, 120, 60)
    assert len(data["pack"]) <= PACK_CHARS
    files = data["files"]
    assert len(files) > 8 and set(files) <= {f"ledger/settle_{i:02d}.py" for i in range(14)}
    shown: dict[str, int] = {}
    for f in data["fragments"]:
        shown[f["path"]] = shown.get(f["path"], 0) + f["end"] - f["start"] + 1
        if f["path"] == files[-1]:
            assert f["end"] - f["start"] < 20   # a late file: its best piece, not a screenful
    assert shown[files[0]] > 2 * shown[files[-1]]
    for path in files:   # each file's code holds its matching line
        block = data["pack"].split(f"### {path} ", 1)[1].split("\n### ", 1)[0]
        assert "settle the ledger balance" in block, path


def test_a_long_definition_shows_six_of_its_matching_lines_far_apart(project):
    """Six places in one long function hold the task's words, 50 lines apart: each is shown with its
    neighbours (a commit often edits one of them; four as parts of the definition, two as the lines with
    most task words), the lines between are not."""
    body = []
    for k in range(300):
        body.append(f"    vat_rounding_{k} = round(total * rate, 2)  # vat rounding step\n" if k % 50 == 25
                    else f"    total_{k} = line_{k}.amount * rate\n")
    project.write("billing/tax.py", "def apply_tax(lines, rate):\n    total = 0\n" + "".join(body) + "    return total\n")
    project.write("billing/other.py", "def unrelated():\n    return 1\n")
    project.init_git()
    data = project.rt_json("pack", "vat rounding step is off by a cent")
    shown = {n for f in data["fragments"] if f["path"] == "billing/tax.py" for n in range(f["start"], f["end"] + 1)}
    matching = [i for i, line in enumerate(project.read("billing/tax.py").splitlines(), 1) if "# vat rounding step" in line]
    assert len(matching) == 6 and set(matching) <= shown
    assert not set(range(matching[0] + 10, matching[1] - 10)) & shown


def test_never_over_budget_when_the_room_was_shared_out_short(project, monkeypatch):
    """The code's room is shared out by an estimate of each file's rendering that takes its heading's reasons as 50
    characters; they run to 140 (an 18,007-character pack on a real repository). Whatever the estimate, the pack
    stays within the budget: the last test, then the last file, goes."""
    from rt import context
    real = context._cost
    monkeypatch.setattr(context, "_cost", lambda path, frags: int(real(path, frags) * 0.5))   # a short estimate
    generate(project.root, 400)   # so the task's words are in few files
    for k in range(20):   # long files, every definition long and matching: each wants far more than its share
        project.write(f"billing/zorbly_totals_{k}.py", "".join(
            f"def zorbly_total_{k}_{n}(cart):\n" + "".join(
                f"    cart = [line for line in cart if line]  # zorbly quux of the cart, step {i}\n" if i % 6 == 0
                else f"    step_{i} = {i}\n" for i in range(60)) + "    return cart\n\n\n" for n in range(8)))
    project.init_git()
    data = project.rt_json("pack", "the zorbly quux total is wrong")
    assert len(data["pack"]) <= PACK_CHARS, len(data["pack"])
    assert len(headings(data["pack"])) >= 3 and set(data["files"]) <= set(headings(data["pack"]))   # dropped whole


def test_a_long_files_lines_with_task_words_found_by_one_search_per_line_that_holds_one(monkeypatch):
    """`fragments` finds the lines holding the task's words (lower-cased) with a search from the end of each line
    found, not one per line: 2,000 lines with the words on three are searched four times; the lines found are a
    search per line's, with every line break `splitlines` knows and a character whose lower case is longer."""
    import re as real_re

    from rt.pack import fragments as frag

    searched = []

    class Counted:
        def __init__(self, pattern):
            self.pattern = real_re.compile(pattern)

        def search(self, *args):
            searched.append(args[1:])
            return self.pattern.search(*args)

    shim = type("Re", (), {"compile": staticmethod(lambda p, *a: Counted(p) if not a else real_re.compile(p, *a)),
                           "escape": staticmethod(real_re.escape)})
    monkeypatch.setattr(frag, "re", shim)
    keys = frag.as_keys(["computed key"])
    lines = [f"const value{i} = {i};\n" for i in range(2000)]
    for n in (10, 700, 1999):
        lines[n] = f"  node.computed && isKey(node.KEY_{n});\n"
    shown = frag.fragments("a.js", "".join(lines), None, keys)
    assert len(searched) == 4
    c = frag.MATCH_CONTEXT
    assert [(f.start, f.end, f.what) for f in shown] == [(n + 1 - c, min(2000, n + 1 + c), "lines with task words")
                                                          for n in (10, 700, 1999)][:frag.MATCH_WINDOWS]
    odd = "Key\rcomputed\x0bKEY\x0cx\u2028Computed\u2029\u0130key\r\nk\x85useless\n\nlast KEY"
    lines = odd.splitlines(keepends=True)
    per_line = [frag.line_keys(line) & keys.keys() if real_re.search("|".join(keys), line.lower()) else set()
                for line in lines]
    assert [set(h) for h in frag._hits(odd, lines, keys)] == per_line and sum(map(bool, per_line)) == 6


def test_only_lines_starting_as_an_import_can_are_asked_whether_they_are_one(monkeypatch):
    """`fragments`' import lines: a line whose first character starts none of the import forms (an indented
    line: most of a long file) is no import without asking the pattern; the lines found are the pattern's."""
    from rt.pack import fragments as frag
    pattern, asked = frag._IMPORT, []

    class Counted:
        def match(self, line):
            asked.append(line)
            return pattern.match(line)
    lines = ["import os\n", "from a import (\n", "    b,\n", ")\n", "#include <x.h>\n", "@import 'y';\n",
             "use std::io;\n", "pub(crate) use z;\n", "const q = require('q');\n", "export { r } from './r';\n"]
    lines += ["    value = compute(x)\n", "\treturn y\n", "}\n", "\n"] * 250 + ["let s = require('s');\n"]
    monkeypatch.setattr(frag, "_IMPORT", Counted())
    found = frag._import_lines(lines)
    assert found == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1011]
    assert len(asked) == 9 and all(line[:1] in "ifelcvpu#r@" for line in asked)


def test_files_ranked_past_the_sixteenth_get_the_room_the_pack_left(project, monkeypatch):
    """Twenty-two short modules match the task about as well and the first sixteen leave room: the next ones
    get their matching line in it (a function cut to fit keeps it: the lines above it go), the pack stays within
    its budget, and without that room they get none."""
    data = _ledger_pack(project, 22, 12, 120)
    assert len(data["pack"]) <= PACK_CHARS
    assert set(data["files"]) == {f"ledger/settle_{i:02d}.py" for i in range(22)}
    for path in data["files"]:
        block = data["pack"].split(f"### {path} ", 1)[1].split("\n### ", 1)[0]
        assert "settle the ledger balance" in block, path
    monkeypatch.setattr("rt.context.SPARE_FILES", 0)
    assert len(project.rt_json("pack", "settle ledger balance")["files"]) == 16


def _coupons_pack(project) -> dict:
    """The pack of a task whose words 24 modules of four long matching functions each hold alike, no tests."""
    for k in range(24):
        project.write(f"shop/coupons_{k:02d}.py", "".join(
            f"def apply_coupon_{k}_{n}(cart):\n" + "".join(
                f"    total_{i} = cart.line({i})  # apply the coupon discount\n" if i % 9 == 0
                else f"    step_{i} = cart.step({i})\n" for i in range(60)) + "    return cart\n\n\n" for n in range(4)))
    for i in range(120):
        project.write(f"web/view_{i:03d}.py", f"def view_{i:03d}(request):\n    return request.path + '{i}'\n")
    project.init_git()
    data = project.rt_json("pack", "apply the coupon discount")
    return data


def test_the_room_no_test_took_goes_to_the_files_that_want_more(project):
    """A project without tests: the room set aside for them is not left empty while the packed files have
    more lines holding the task's words to show and more files rank next."""
    data = _coupons_pack(project)
    assert "## Tests" not in data["pack"]
    assert PACK_CHARS - 600 < len(data["pack"]) <= PACK_CHARS
    assert len(data["files"]) > 16


def test_each_file_is_searched_for_the_task_words_once_whatever_rooms_it_is_offered(project, monkeypatch):
    """The pack offers a file its share, then what the others left, then what the whole pack left: the lines
    holding the task's words are found once per file, not once per offer (the cost of a long file)."""
    from rt.pack import fragments as frag_mod
    searched: list[int] = []
    real = frag_mod._hits
    monkeypatch.setattr(frag_mod, "_hits", lambda text, lines, keys: searched.append(len(lines)) or real(text, lines, keys))
    data = _coupons_pack(project)
    assert len(data["files"]) > 16
    assert len(searched) == len(data["files"])


def test_a_locale_file_holding_a_task_word_once_a_line_shows_the_section_named_by_it():
    """A locale file says each word once a line (`"added": "Environment added"`): where no line holds two task
    words, the lines holding one are shown, a section named by the word (`"environment": {`) first and what
    follows it, not the file's first lines (which named no task word at all)."""
    from rt.pack import fragments as frag

    sections = {"action": ["add", "cancel", "local", "delete"], "confirm": ["sync", "remove"],
                "environment": ["added", "created", "deleted", "duplicated"], "team": ["invite", "leave"]}
    lines = ["{\n"]
    for name, keys in sections.items():
        lines.append(f'  "{name}": {{\n')
        for k in keys:
            value = {"local": "Local progress", "sync": "Restore the environment from the cloud?"}.get(
                k, f"{name.title()} {k}" if name == "environment" else f"{k.title()} it")
            lines += [f'    "{k}": "{value}",\n'] + [f'    "{k}_{i}": "Other text {i}",\n' for i in range(20)]
        lines.append("  },\n")
    lines.append("}\n")
    text = "".join(lines)
    keys = frag.as_keys(["correct", "environment", "locale", "wording"])
    shown = frag.fragments("locales/en.json", text, None, keys, room=600)
    opener = lines.index('  "environment": {\n') + 1
    assert [(f.start, f.what) for f in shown] == [(opener, "lines with task words")]
    assert 'Environment added' in "".join(shown[0].lines)


def test_a_test_named_after_a_file_many_folders_hold_goes_with_the_nearest_one(project):
    """`index`, `utils`, `mod` name a file in many folders: `debug/src/__tests__/index.spec.ts` tests `debug/src/index.ts`,
    so a pack giving code to `properties/manager/index.tsx` does not show it as that file's test; a test named after a
    file no other file shares a name with still goes with it (`tests/test_money.py`, `shop/money.py`)."""
    project.write("packages/properties/manager/index.tsx",
                  "export function PropertyItem() {\n  return <div title='tooltip'>{property.name}</div>;\n}\n")
    project.write("packages/debug/src/index.ts", "export function debug(name: string) {\n  return console.log;\n}\n")
    project.write("packages/debug/src/__tests__/index.spec.ts",
                  "import { debug } from '../index';\n\ntest('property tooltip', () => {\n  expect(debug('x')).toBeTruthy();\n});\n")
    project.write("shop/money.py", "def tooltip_cents(value):\n    return round(value, 2)\n")
    project.write("tests/test_money.py", "def test_tooltip_cents():\n    assert tooltip_cents(0.125) == 0.12\n")
    project.init_git()
    text = project.rt_json("pack", "add tooltips to PropertyItem and tooltip_cents")["pack"]
    assert "### packages/properties/manager/index.tsx" in text and "### shop/money.py" in text
    assert "tests shop/money.py" in text
    assert "index.spec.ts" not in text


def test_one_of_a_thing_is_counted_in_the_singular(project):
    project.write("billing/rates.py", "INVOICE_RATE = 0.2\n")
    project.init_git()
    assert project.rt("index").splitlines()[0] == "index: 1 file, 1 definition (1 file parsed now)"
    assert project.rt("start", "x", "--no-baseline").startswith("started 1-x: 1 file snapshotted\n")
    project.write("billing/invoice.py", "from billing.rates import INVOICE_RATE\n\n\ndef invoice_total(x):\n    return x * INVOICE_RATE\n")
    assert "### billing/rates.py (1 line;" in project.rt_json("pack", "invoice rate")["pack"]   # a file's heading
    assert project.rt("slice", "billing/rates.py", "--symbol", "INVOICE_RAT", ret=1).endswith(
        "(`rt outline billing/rates.py` lists its 1 definition)\n")


def test_a_namespace_line_is_no_fragment():
    """laravel's `namespace Illuminate\\Process;` matched "process" and was shown as a block of its own."""
    from types import SimpleNamespace

    from rt.index.model import Definition
    from rt.pack.fragments import fragments

    body = "".join(f"    public function step{k}() {{ return {k}; }}\n" for k in range(80))
    text = f"<?php\n\nnamespace Illuminate\\Process;\n\nclass Pending\n{{\n{body}    public function quietly()\n" \
           f"    {{\n        return $this->process;\n    }}\n}}\n"
    entry = SimpleNamespace(defs=[Definition("Illuminate\\Process", "namespace", 3, 3, "namespace Illuminate\\Process;", ""),
                                  Definition("Pending", "class", 5, 90, "class Pending", ""),
                                  Definition("quietly", "method", 87, 90, "public function quietly()", "Pending")])
    shown = fragments("src/Process/Pending.php", text, entry, ["process quietly"], room=1500)
    assert shown and all(f.start != 3 for f in shown) and any(f.start <= 87 <= f.end for f in shown), shown


def test_an_empty_file_pinned_or_named_is_in_the_pack_as_empty(project):
    project.write("src/empty.py", "")
    project.write("src/brew.py", "def brew():\n    return 1\n")
    project.init_git()
    out = project.rt("pack", "fill in the plugin module", "--path", "src/empty.py")
    assert out.splitlines()[3:] == ["", "## Code", "### src/empty.py (empty file; pinned)"]   # no vague notice: it was pinned
    out = project.rt("pack", "fill in src/empty.py with a brew wrapper")
    assert "### src/empty.py (empty file; named in the task as src/empty.py)" in out.splitlines()

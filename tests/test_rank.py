"""Ranking from the index's postings: the task's words, the channels they match, what never ranks."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from rt.index.terms import keys_of_word, stem
from rt.pack.rank import kind_of, parse_task, unranked

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from genrepo import generate  # noqa: E402


def ranked(project, *args) -> list[str]:
    return [r["path"] for r in project.rt_json("pack", *args)["ranked"]]


def test_what_rt_install_writes_is_never_ranked_or_packed(project):
    project.write("calc.py", "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n")
    project.write("README.md", "# calc\n\nA tiny calculator.\n")
    project.init_git()
    project.rt("install")
    assert (project.root / ".claude/skills/runtask/SKILL.md").is_file()
    assert any((project.root / ".claude/agents").glob("rt-*.md"))
    for task in ("verify the task scope and review it", "make add handle None"):
        data = project.rt_json("pack", task)
        paths = [r["path"] for r in data["ranked"]] + data["files"] + [f["path"] for f in data["fragments"]]
        assert not [p for p in paths if p.startswith(".claude/")], task
    data = project.rt_json("pack", "make add handle None")
    assert data["ranked"][0]["path"] == "calc.py" and data["files"][0] == "calc.py"
    assert not data["vague"]   # one word picks the file in a small repository: no refusal


def test_a_stop_word_counts_when_the_repository_defines_that_name(project):
    project.write("calc.py", "def add(a, b):\n    return a + b\n")
    project.write("notes.py", "def handle_note(note):\n    return note.strip()\n")
    project.write("store.py", "def save(record):\n    # make the record durable\n    return record\n")
    project.init_git()
    terms = project.rt_json("pack", "make add handle None")["terms"]
    assert "add" in terms and "make" not in terms     # `add` is defined, `make` is not
    assert ranked(project, "make add handle None")[0] == "calc.py"


def test_task_words_identifiers_urls_and_quotes():
    q = parse_task("Make `parse_http_request` in Client.send() follow https://example.com/page?rel=next "
                   "links; toggleSidebar errors; see src/app/main.ts and the \"Save draft\" button")
    assert q.keys["parsehttprequest"] == q.keys["togglesidebar"] == 2.0   # identifiers whole, weighed most
    assert q.keys["client"] == q.keys["send"] == 2.0                      # Class.method: each part a name
    assert q.keys["exampl"] < 0.5 and q.keys["rel"] < 0.5                 # a URL's words weigh little
    assert q.keys[stem("save")] < 1.0 and q.keys["draft"] < 1.0                # quoted text too...
    assert q.phrases == ["Save draft"]                                    # ... which is looked up as UI text
    assert "src/app/main.ts" in q.paths and "example.com/page" not in " ".join(q.paths)
    assert q.keys[stem("links")] == 1.0 and "error" not in q.keys         # stop words dropped, the rest stemmed
    assert "parse_http_request" in q.words and "toggleSidebar" in q.words


def test_a_negation_a_contraction_an_issue_link_or_a_hash_is_no_word_of_the_task_and_an_apostrophe_ends_no_quote():
    defined = {"can"}.__contains__   # the repository defines `can`: "Can't" still is no look-up for it
    q = parse_task("Can't delete a comment: the menu doesn't show and we'll hide it, as it has (#77)\n\n"
                   "Closes #123, fixes pallets/click#45", defined)
    assert q.words == ["delete", "comment", "menu", "show", "hide"] and not q.paths
    assert "can" in parse_task("fix: can delete", defined).keys
    q = parse_task("Fix xss in subtitles\n\n(cherry picked from commit 5cc91f2ee03d06f1fc3eda3e924b3e25c6f95170), "
                   "broken since a1b2c3d; not 0x1f2e3d4c, oauth2 or #ff0000")
    assert set(q.keys) == {"xss", stem("subtitles"), stem("cherry"), stem("picked"), "commit", stem("since"),
                           "0x1f2e3d4c", "oauth", "oauth2", "ff", "ff0000"}   # a hash, whole or in pieces, is none
    q = parse_task('The "Can\'t save" toast and \u201cDon\u2019t have an account?\u201d link')
    assert q.phrases == ["Can't save", "Don\u2019t have an account?"]


def test_task_text_shaped_to_make_patterns_backtrack_is_read_as_a_plain_one():
    """Runs that made the task's patterns read the rest of the text from each of their characters (blank lines
    before a kind prefix, `1-1-1-...`, one long word, `ab,ab,...`, `![![...`): the same words as before, each read
    once. The kind prefix after blank lines, a kebab name with dots, a path and an e-mail still read as they did."""
    q = parse_task("\n\n  fix(editor): keep the caret" + "\n" * 20_000 + "cursor")
    assert q.scope == "editor" and {"caret", "cursor"} <= set(q.keys)
    q = parse_task("1-" * 20_000 + " see cancel-envelope.types.ts and src/app/main.ts, ask jane@example.com")
    assert "cancel-envelope.types.ts" in q.paths and "src/app/main.ts" in q.paths
    assert q.keys["jan"] < 0.5 and q.keys["cancelenvelope"] == 1.0   # an address weighs little; the kebab name whole
    q = parse_task("a" * 40_000 + " toggle the grid")
    assert {"toggl", "grid"} <= set(q.keys)
    assert q.languages == [] and parse_task("ab," * 10_000 + " nl and tr translations").languages == [("nl", ""), ("tr", "")]
    assert "imag" not in parse_task("![" * 10_000 + " ![image.png](https://x.io/a.png) fix it").keys


def test_a_kebab_case_file_the_task_names_leads(project):
    """`cancel-envelope.types.ts` is one path, not `cancel` and a path `envelope.types.ts` that no file's
    name ends with: the file it names leads, as a named path does."""
    for verb in ("cancel", "delete", "update", "create", "find"):
        for kind in ("types", "handler"):
            project.write(f"server/{verb}-envelope.{kind}.ts", f"export const {verb}{kind} = {{ route: 'envelope', "
                                                               f"description: 'x' }};\n")
    project.write("server/router.ts", "// cancel, delete and update envelope routes, with a description each\n")
    project.init_git()
    q = parse_task("docs: add descriptions to `cancel-envelope.types.ts` and my-file.py")
    assert q.paths == ["cancel-envelope.types.ts", "my-file.py"]
    assert ranked(project, "docs: add descriptions to `cancel-envelope.types.ts`")[0] == "server/cancel-envelope.types.ts"


def test_the_scope_a_task_names_leads_to_the_files_right_in_its_folder(project):
    """`cart: ...` (or `fix(cart): ...`) names where the change is: a Go package is one folder, so a file
    right in `cart/` outranks one in a folder below it that matches the task's words a little better."""
    assert [parse_task(t).scope for t in ("cart: fix it", "fix(cart-ui): x", "fix: x", "store/cart: y", "Fix it")] == \
        ["cart", "cartui", "", "cart", ""]
    project.write("app/cart/total.go", "package cart\n\n// Total sums the rounding of the order.\nfunc Total() int { return 1 }\n")
    project.write("app/cart/sub/total.go", "package sub\n\n// Total sums the rounding of the order, rounding twice.\n"
                                           "func Total() int { return 2 }\n")
    for i in range(30):
        project.write(f"app/other/f{i}.go", f"package other\n\nfunc F{i}() int {{ return {i} }}\n")
    project.init_git()
    assert ranked(project, "cart: fix the rounding of the order total")[0] == "app/cart/total.go"
    assert ranked(project, "fix the rounding of the order total")[0] == "app/cart/sub/total.go"


def test_a_scope_naming_a_file_without_its_ending_leads_to_that_file(project):
    """gogs writes its scope as the file's path without its ending: "user/profile: paging doesn't respect private
    repository count" edits `routers/user/profile.go` (10th before, under the locale file and the files defining
    `PROFILE` or counting repositories). So does a path the task names without an ending; a path naming many
    files this way (`a/index`) lifts none."""
    project.write("routers/user/profile.go", "package user\n\n// Profile renders a user's page.\n"
                                             "func Profile(c *context.Context) { c.HTML(200, PROFILE) }\n")
    project.write("routers/user/home.go", "package user\n\nconst PROFILE = \"user/profile\"\n\n"
                  "// Dashboard pages the private repositories, with their count.\nfunc Dashboard(paging int) int {\n"
                  "\treturn CountPrivateRepositories(paging)\n}\n")
    project.write("models/repo.go", "package models\n\n// CountPrivateRepositories counts the private repository "
                                    "of a user, paging by count.\nfunc CountPrivateRepositories(paging int) int "
                                    "{ return paging }\n")
    for i in range(30):
        project.write(f"models/m{i}.go", f"package models\n\nfunc M{i}() int {{ return {i} }}\n")
        project.write(f"web/p{i}/index.ts", f"export const p{i} = {i};\n")
    project.init_git()
    assert ranked(project, "user/profile: paging doesn't respect private repository count")[0] == "routers/user/profile.go"
    assert ranked(project, "paging in routers/user/profile doesn't respect the private count")[0] == "routers/user/profile.go"
    assert ranked(project, "web/index: paging doesn't respect the private count")[0] != "web/p0/index.ts"


def test_a_folder_the_task_names_leads_to_the_code_right_in_it(project):
    """fiber's "feat(middleware/proxy): Add DialDualStack option for upstream IPv6 support" edits
    `middleware/proxy/config.go` (16th before: files saying "proxy", "stack" and "option" led, and the folder's
    path, naming a doc `docs/api/middleware/proxy.md` without its ending, lifted only that); gogs' "vendor: update
    github.com/gogs/git-module" edits the vendored copy, which weighs as vendored code otherwise. Its tests and its
    other files stay where their words put them; a folder path ending many folders lifts none."""
    project.write("middleware/proxy/proxy.go", "package proxy\n\n// Balancer forwards to an upstream.\n"
                                               "func Balancer(c Config) Handler { return nil }\n")
    project.write("middleware/proxy/config.go", "package proxy\n\n// Config defines the config for middleware.\n"
                                                "type Config struct {\n\tServers []string\n}\n")
    project.write("middleware/proxy/proxy_test.go", "package proxy\n\nfunc Test_Proxy(t *testing.T) {}\n")
    project.write("docs/api/middleware/proxy.md", "# Proxy\n\nProxy middleware forwards requests to upstream servers.\n")
    project.write("ctx.go", "package fiber\n\n// IsProxyTrusted says whether the proxy option trusts IPv6 on the stack.\n"
                            "func IsProxyTrusted(option string, stack int) bool { return option == \"IPv6\" && stack > 0 }\n")
    project.write("client/client.go", "package client\n\n// SetDial sets the dial option of the proxy stack.\n"
                                      "func SetDial(option string) {}\n\n// SetProxyURL sets the upstream proxy.\n"
                                      "func SetProxyURL(upstream string) {}\n")
    project.write("app.go", "package fiber\n\n// Stack holds the middleware stack and its options for IPv6 dial.\n"
                            "type Stack struct{ Options []string }\n")
    for name in ("commit", "git", "repo_commit", "submodule", "tree"):
        project.write(f"vendor/github.com/gogs/git-module/{name}.go", f"package git\n\nfunc {name.title()}() {{}}\n")
    project.write("vendor/github.com/gogs/git-module/LICENSE", "MIT License: update, module, git\n")
    project.write("models/repo.go", "package models\n\n// UpdateRepository updates the git module of a repository.\n"
                                    "func UpdateRepository(module string) { git.Update(module) }\n")
    for i in range(4):
        project.write(f"pkg{i}/a/util/util.go", f"package util\n\n// Helper{i} trims the proxy option.\nfunc Helper{i}() {{}}\n")
    for i in range(30):
        project.write(f"other/f{i}.go", f"package other\n\nfunc F{i}() int {{ return {i} }}\n")
    project.init_git()
    top = ranked(project, "feat(middleware/proxy): Add DialDualStack option for upstream IPv6 support")
    assert set(top[:2]) == {"middleware/proxy/proxy.go", "middleware/proxy/config.go"}
    assert "middleware/proxy/proxy_test.go" not in top[:3]   # its test is no code to lift
    vendored = ranked(project, "vendor: update github.com/gogs/git-module")
    assert all(p.startswith("vendor/github.com/gogs/git-module/") and p.endswith(".go") for p in vendored[:3])
    lifted = [r["path"] for r in project.rt_json("pack", "vendor: update github.com/gogs/git-module")["ranked"]
              if any("in the folder the task names" in why for why in r.get("why", []))]
    assert lifted == vendored[:3]   # three files of the folder, not its licence
    util = project.rt_json("pack", "fix(a/util): trim the proxy option")["ranked"]
    assert not any("in the folder the task names" in why for r in util for why in r.get("why", []))


def test_string_literals_in_a_code_span_are_example_data():
    """`click.Choice(["foo", "bar"])` names code (`Choice`) and example values (`foo`, `bar`): the values
    weigh as quoted words, the code as identifiers."""
    q = parse_task('Make `@click.argument("method", type=click.Choice(["foo", \'bar\']))` show brackets once')
    assert q.keys[stem("choice")] == q.keys["argument"] == 2.0
    assert q.keys["method"] == q.keys["foo"] == q.keys["bar"] == 0.5


def test_light_stemming_of_english_words_never_of_identifiers():
    assert stem("errors") == stem("error") and stem("blocked") == stem("blocking") == stem("block")
    assert stem("toggling") == stem("toggle") == stem("toggles")
    assert stem("settings") != stem("set") and stem("string") == "string" and stem("status") == "status"
    assert "togglesidebar" in parse_task("`toggleSidebar`").keys   # the whole identifier is never stemmed
    # an acronym's plural is one piece: "backup ZIPs" looks for `zip`, not `zi` and `ps` (a lock file's words)
    assert set(parse_task("Handle backup ZIPs and getURLs").keys) == {"backup", "zip", "url", "geturls"}
    assert keys_of_word("HTTPServer") == ("http", "server", "httpserver") and keys_of_word("IDs") == ("ids",)


def test_another_form_of_a_task_word_finds_the_file(project):
    project.write("src/blocklist.py", "class Blocker:\n    def block(self, user):\n        self.blocked_user = user\n")
    project.write("src/users.py", "class User:\n    def rename(self, name):\n        self.name = name\n")
    project.write("src/mail.py", "def send(message):\n    return message\n")
    project.init_git()
    assert ranked(project, "Blocking a user fails")[0] == "src/blocklist.py"   # block, not blocking, is in the file


def test_an_identifier_written_in_the_task_beats_its_words_scattered(project):
    project.write("app/layout/frame.py", "def toggle_sidebar(state):\n    return not state\n")
    for i in range(6):   # each says toggle and sidebar in its name, none defines or calls the function
        project.write(f"app/panels/sidebar_toggle_{i}.py", f"# toggle the sidebar from panel {i}\n"
                      f"def sidebar_toggle_{i}():\n    return {{'sidebar': True, 'toggle': {i}}}\n")
    project.init_git()
    assert ranked(project, "toggle_sidebar keeps the sidebar open")[0] == "app/layout/frame.py"


def _ui_repo(project, n_buttons: int = 120) -> None:
    """A web app's source: a family of same-named button components, a large central editor, styles,
    a locale file per language, and a translation module written as code."""
    rng = random.Random(3)
    words = "primary secondary danger ghost outline icon round small large link submit reset close".split()
    for i in range(n_buttons):
        w = words[i % len(words)]
        project.write(f"src/components/buttons/{w.title()}{i}Button.tsx",
                      f"import React from 'react';\n\nexport function {w.title()}{i}Button() {{\n"
                      f"  return <button className=\"{w}\">{w} {i}</button>;\n}}\n")
    body = []
    for i in range(4000):
        if i % 400 == 7:
            body.append(f"  // the canvas redraw after a zoom gesture must keep the selection anchored ({i})\n")
        body.append(f"  const v{i} = compute{rng.randrange(50)}(state, {i});\n")
    project.write("src/editor/Editor.tsx", "export function Editor(state) {\n" + "".join(body) + "  return state;\n}\n")
    project.write("src/theme/palette.ts", "export const darkShade = '#111';\nexport function shade(color: string) {\n"
                  "  return color;\n}\n")
    project.write("src/styles/layout.css", ".navbar {\n  box-shadow: 0 2px 4px rgba(0,0,0,.2);\n  color: teal;\n}\n"
                  ".navbar-shadow-color { color: #333; }\n")
    for i in range(40):
        project.write(f"src/widgets/widget{i}.ts", f"export function widget{i}(color: string) {{\n  return color + {i};\n}}\n")
    en = {"toolbar": {"save": "Save draft", "publish": "Publish now", "close": "Close"}, "zoom": {"reset": "Reset zoom"}}
    de = {"toolbar": {"save": "Entwurf speichern", "publish": "Jetzt veröffentlichen", "close": "Schließen"},
          "zoom": {"reset": "Zoom zurücksetzen"}}
    project.write("src/locales/en.json", json.dumps(en, indent=2))
    project.write("src/locales/de.json", json.dumps(de, indent=2))
    for code in ("fr", "es", "it", "nl"):
        project.write(f"src/locales/{code}.json", json.dumps(en, indent=2))   # untranslated copies
    project.write("src/locales/pt.ts", "export default {\n  toolbar: { save: 'Save draft', publish: 'Publish now' },\n};\n")
    project.write("src/toolbar/SaveButton.tsx", "import { t } from '../i18n';\n\nexport function SaveButton() {\n"
                  "  return <button>{t('toolbar.save')}</button>;\n}\n")
    project.write("src/i18n.ts", "export function t(key: string) { return key; }\n")


def test_a_common_word_in_many_names_does_not_outweigh_rare_words_in_a_large_file(project):
    generate(project.root, 2000)   # 2,000 files more, whose names say render, button, label, session ...
    _ui_repo(project, 240)
    project.git("add", "-A")
    project.git("commit", "-qm", "ui")
    top = ranked(project, "redraw after a zoom gesture loses the selection anchor: render the button label again")
    assert top[0] == "src/editor/Editor.tsx"    # 4,000 lines, the rare words in its body


def test_the_pages_and_helpers_of_end_to_end_tests_rank_as_tests(project):
    """mermaid's `cypress/platform/*.html` (pages its Cypress tests load, full of diagram syntax) led a task about
    the class diagram's syntax, ahead of the grammar it edits. Cypress's folder and an `e2e/` folder hold tests."""
    project.write("packages/mermaid/src/diagrams/class/parser/classDiagram.jison", "%lex\n" + "".join(
        f"<INITIAL>\"rule{k}\" return 'RULE{k}';\n" for k in range(30)) + "\"<<\" return 'ANNOTATION_START'; /* class annotation */\n%%\n")
    page = "<html><body><pre class=\"mermaid\">\nclassDiagram\n" + "".join(
        f"class Shape{k} <<interface>>\nShape{k} : annotation syntax inline\n" for k in range(8)) + "</pre></body></html>\n"
    project.write("cypress/platform/class.html", page)
    project.write("packages/app-tests/e2e/fixtures/class.ts", "export const annotation = `class Shape <<interface>>`;\n"
                  "export const inlineAnnotationSyntax = 'class diagram annotation syntax';\n")
    project.init_git()
    got = ranked(project, "fix(classDiagram): support inline annotation syntax (class Shape <<interface>>)")
    assert got[0] == "packages/mermaid/src/diagrams/class/parser/classDiagram.jison", got


def test_files_without_definitions_are_not_scored_down(project):
    _ui_repo(project)
    project.init_git()
    assert ranked(project, "navbar shadow color is too dark")[0] == "src/styles/layout.css"   # the rare word, in a stylesheet


def test_quoted_ui_text_lifts_the_source_locale_and_the_key_users_boundedly(project):
    _ui_repo(project)
    project.init_git()
    data = project.rt_json("pack", 'The "Save draft" button should say "Save as draft"')
    score = {r["path"]: r["score"] for r in data["ranked"]}
    assert {r["path"] for r in data["ranked"][:2]} == {"src/toolbar/SaveButton.tsx", "src/locales/en.json"}
    copies = [p for p in score if p.startswith("src/locales/") and p != "src/locales/en.json"]
    assert all(score[p] < score["src/locales/en.json"] / 10 for p in copies)   # copies, modules too, stay far down
    assert score["src/toolbar/SaveButton.tsx"] < 3 * score["src/locales/en.json"]   # a bounded lift, not a flood
    one_word = project.rt_json("pack", 'rename "Close" to "Dismiss" in the toolbar')   # one quoted word: no lift
    assert not [w for r in one_word["ranked"] for w in r["why"] if "translates" in w or "uses key" in w]


def test_the_source_locale_file_leads_only_tasks_about_text(project):
    """It holds most English words of an interface: a task about logic that shares its words finds the code,
    a task naming a label or adding to the interface still finds the file."""
    _ui_repo(project)
    project.write("src/drafts/sync.ts", "export function syncDraft(draft, now) {\n  // a draft is saved once, then"
                  " published\n  return draft.version === now ? draft : draft;\n}\n")
    project.init_git()
    logic = ranked(project, "draft saved twice when publish runs now")
    assert logic.index("src/drafts/sync.ts") < logic.index("src/locales/en.json")
    assert ranked(project, "the label of save draft and publish now is unclear")[0] == "src/locales/en.json"
    # a path's words name a file, not the interface: gogs' "user/setting: check for IsErrEmailAlreadyUsed ..."
    logic = ranked(project, "drafts/setting: draft saved twice when publish runs now")
    assert logic.index("src/drafts/sync.ts") < logic.index("src/locales/en.json")


def test_an_import_hub_does_not_rise_with_the_files_it_serves(project):
    project.write("app/billing/invoice.py", "from app.core.db import session\n\n\n"
                  "def invoice_total(lines):\n    return sum(l.amount for l in lines)\n")
    project.write("app/core/db.py", "def session():\n    return None\n")
    project.write("app/core/log.py", "def log(message):\n    print(message)\n")
    project.init_git()
    assert ranked(project, "invoice total is wrong") == ["app/billing/invoice.py"]   # not its import, db.py


def test_ranking_reads_postings_not_every_file_row(project, monkeypatch):
    generate(project.root, 2000)
    project.rt("index")
    from rt.index import index as index_mod
    read = []
    real = index_mod.Index._read

    def every_row(self):
        raise AssertionError("rt pack loaded every file row")
    monkeypatch.setattr(index_mod.Index, "files", property(every_row))
    monkeypatch.setattr(index_mod.Index, "_read", lambda self, name: read.append(name) or real(self, name))
    data = project.rt_json("pack", "invoice cart session")
    assert data["files"] and data["fragments"]
    assert not [n for n in read if n.startswith("c")]       # the word counts are read only to rebuild


def test_postings_follow_edits_additions_and_removals(project):
    project.write("src/alpha.py", "def alpha():\n    return 'plain'\n")
    project.write("src/beta.py", "def beta():\n    return 'plain'\n")
    project.init_git()
    assert "src/alpha.py" not in ranked(project, "quaternion")
    project.write("src/alpha.py", "def alpha():\n    return 'quaternion rotation'\n")
    project.write("src/gamma.py", "def gamma():\n    return 'quaternion'\n")
    (project.root / "src/beta.py").unlink()
    top = ranked(project, "quaternion rotation")
    assert top[:2] == ["src/alpha.py", "src/gamma.py"] and "src/beta.py" not in top
    project.rt("index", "--rebuild")
    assert ranked(project, "quaternion rotation")[:2] == ["src/alpha.py", "src/gamma.py"]


def test_a_large_update_reuses_the_word_counts_of_unchanged_files(project, monkeypatch):
    for i in range(120):
        project.write(f"pkg/mod_{i}.py", f"def handler_{i}(value):\n    return value + {i}  # gadget{i}\n")
    project.init_git()
    project.rt("index")
    for i in range(70):   # more than the delta takes: a full update, reusing the 50 files that stayed
        project.write(f"pkg/mod_{i}.py", f"def handler_{i}(value):\n    return value * {i}  # widget{i}\n")
    from rt.index import terms
    counted = []
    real = terms.text_counts
    monkeypatch.setattr(terms, "text_counts", lambda text: counted.append(text) or real(text))
    assert ranked(project, "gadget100")[0] == "pkg/mod_100.py"     # an unchanged file: its counts came along
    assert ranked(project, "widget3")[0] == "pkg/mod_3.py"
    assert len(counted) == 70                                      # only the changed files were counted again


def test_a_regional_english_file_beside_the_english_one_is_a_translation(project):
    en = {"sms": "SMS gateway", "provider": "Notification provider", "gateway": "Gateway URL"}
    project.write("src/lang/en.json", json.dumps(en, indent=2))
    project.write("src/lang/en_GB.json", json.dumps(en, indent=2))   # a copy kept in step, never the source
    project.write("src/lang/de.json", json.dumps({"sms": "SMS-Gateway"}, indent=2))
    project.write("src/sms.js", "// sends an sms through the gateway\nexport function send(msg) { return msg; }\n")
    project.init_git()
    score = {r["path"]: r["score"] for r in project.rt_json("pack", "add SMS gateway notification provider")["ranked"]}
    assert score["src/lang/en.json"] > 5 * score["src/lang/en_GB.json"]


def test_a_regional_english_folder_beside_the_us_english_one_is_a_translation(project):
    """i18next's layout, with no plain `en`: `en_US/translation.json` is the source, `en_GB/` a copy kept in
    step. Before, both weighed as the source, tied, and the copy took a place ahead of it by its path."""
    en = {"Share link copied": "Share link copied", "Copy link": "Copy link", "Sidebar": "Sidebar"}
    for variant in ("en_GB", "en_US"):
        project.write(f"shared/i18n/locales/{variant}/translation.json", json.dumps(en, indent=2))
    project.write("shared/i18n/locales/de_DE/translation.json", json.dumps({"Copy link": "Link kopieren"}, indent=2))
    project.write("app/share.ts", "// copies the share link\nexport function copyShareLink(url: string) { return url; }\n")
    project.init_git()
    for task in ("the share link copied message shows twice", 'the "Share link copied" toast shows twice'):
        score = {r["path"]: r["score"] for r in project.rt_json("pack", task)["ranked"]}
        assert score["shared/i18n/locales/en_US/translation.json"] > 5 * score["shared/i18n/locales/en_GB/translation.json"], task


def test_gogs_ini_locale_files_weigh_as_translations(project):
    """gogs' `conf/locale/locale_<code>.ini`: the US English file is the source, `locale_en-GB.ini` beside it a copy,
    the others translations; before, all three weighed as data, the German file ranked by its English key names."""
    for code in ("en-US", "en-GB", "de-DE"):
        text = "Webhook delivery" if code != "de-DE" else "Webhook-Zustellung"
        project.write(f"conf/locale/locale_{code}.ini", f"[repo]\nsettings.webhook.delivery = {text}\n"
                                                       f"settings.webhook.redelivery = Redeliver\n")
    project.write("internal/route/repo/webhook.go", "package repo\n\n// Redeliver sends a webhook delivery again\n"
                  "func Redeliver(c *context.Context) { c.Tr(\"repo.settings.webhook.redelivery\") }\n")
    project.init_git()
    assert [kind_of(f"conf/locale/locale_{c}.ini") for c in ("en-US", "de-DE")] == ["source-locale", "locale"]
    score = {r["path"]: r["score"] for r in project.rt_json("pack", "show the webhook delivery redeliver label")["ranked"]}
    assert score["conf/locale/locale_en-US.ini"] > 5 * score["conf/locale/locale_en-GB.ini"]
    assert score["conf/locale/locale_en-US.ini"] > 5 * score["conf/locale/locale_de-DE.ini"]


def test_a_task_naming_the_translations_finds_the_source_locale_file(project):
    """"Improvements for SMSC i18n", "chore: extract translations": such a task edits the English locale file,
    which may hold no other word of it. Its translations into other languages stay far down."""
    en = {"smscLogin": "Login", "smscPassword": "Password", "smscSenderName": "Sender name"}
    project.write("src/lang/en.json", json.dumps(en, indent=2))
    project.write("src/lang/de.json", json.dumps({"smscLogin": "Anmelden"}, indent=2))
    project.write("src/components/notifications/SMSC.vue", '<template>\n  <input id="smsc-login" :placeholder="$t(\'smscLogin\')">\n'
                  '  <input id="smsc-password" :placeholder="$t(\'smscPassword\')">\n</template>\n')
    project.write("server/notification-providers/smsc.js", "// Sends through the SMSC gateway\n"
                  "class SMSC { async send(notification, msg) { return smscSend(notification.smscLogin, msg); } }\n")
    for name in ("slack", "teams", "ntfy"):
        project.write(f"server/notification-providers/{name}.js", f"class P {{ async send(msg) {{ return '{name}' + msg; }} }}\n")
    project.write("src/i18n.js", "// the i18n set-up: loads the language files\nexport const i18n = { locale: 'en' };\n")
    project.init_git()
    for task in ("Improvements for SMSC i18n", "chore: extract translations"):
        score = {r["path"]: r["score"] for r in project.rt_json("pack", task)["ranked"]}
        assert "src/lang/en.json" in list(score)[:2], task
        assert score.get("src/lang/de.json", 0.0) < score["src/lang/en.json"] / 5, task


def _django_app(project, apps=("admin", "users", "documents", "images", "search")) -> None:
    """A Django project with a gettext catalogue per app, as `makemessages` writes them: each message's source
    references above it, the template's header."""
    for app in apps:
        entries = "".join(f'\n#: {app}/api/views.py:{i} {app}/templates/{app}/edit.html:{i}\n'
                          f'msgid "Edit {app} permission {i}"\nmsgstr ""\n' for i in range(1, 30))
        project.write(f"wagtail/{app}/locale/en/LC_MESSAGES/django.po",
                      '# SOME DESCRIPTIVE TITLE.\n#, fuzzy\nmsgid ""\nmsgstr ""\n' + entries)
        project.write(f"wagtail/{app}/views.py", f"def edit(request):\n    return render(request, '{app}/edit.html')\n")
    project.write("wagtail/actions/copy_for_translation.py",
                  "class CopyPageForTranslationAction:\n    def check(self, user):\n"
                  "        # the source page's permission: edit or view\n        return user.has_perm('edit')\n")
    project.write("wagtail/admin/api/views.py", "class PagesAdminAPIViewSet:\n    def check_query_parameters(self, queryset):\n"
                  "        return queryset  # the admin API's page listing\n")


def test_a_gettext_catalogues_source_references_are_no_words_of_it(project):
    """`#: wagtail/admin/api/views.py:40` names where a message is used: its path words ("api", "views") are not
    the catalogue's, and made each app's English catalogue outrank the admin API's code for a task about it."""
    _django_app(project)
    project.init_git()
    got = project.rt_json("pack", "Fix admin API views not applying sufficient checks")["ranked"]
    assert got[0]["path"] == "wagtail/admin/api/views.py"
    assert not [r for r in got if r["path"].endswith(".po") and "api" in " ".join(r["why"])]


def test_only_a_few_source_catalogues_gain_from_a_task_naming_the_translations(project):
    """wagtail keeps an English catalogue per app: "Check edit permission on source page in "copy page for
    translation" action" lifted all 19 of them over the action it changed. The task's other words choose the few."""
    _django_app(project, apps=("admin", "users", "documents", "images", "search", "snippets", "sites", "embeds"))
    project.init_git()
    got = project.rt_json("pack", 'Check edit permission on source page in "copy page for translation" action')["ranked"]
    lifted = [r["path"] for r in got if "the task names the translations" in r["why"]]
    assert 1 <= len(lifted) <= 3
    assert "wagtail/actions/copy_for_translation.py" in [r["path"] for r in got[:4]]
    project.write("src/lang/en.json", json.dumps({"title": "Title"}))   # one or two source files: each is lifted
    project.git("rm", "-q", "-r", "wagtail")
    project.write("src/title.js", "export const title = t('title');\n")
    project.git("add", "-A")
    project.git("commit", "-qm", "one catalogue")
    got = project.rt_json("pack", "chore: extract translations")["ranked"]
    assert got[0]["path"] == "src/lang/en.json" and "the task names the translations" in got[0]["why"]


def test_a_language_the_task_names_with_its_translations_lifts_its_locale_files(project):
    """"Translated using Weblate (English (United Kingdom))" edits `en-gb.json`, a translation that weighs little (it
    was 63rd to 338th in jellyfin-web); "update chinese i18n" the Chinese files; "Last Polish before Stable" names no
    language's translation, nor does a task about German users' dates."""
    texts = {"play": "Play", "settings": "Display settings", "english": "English (United Kingdom)", "lang": "Language"}
    for code in ("en-us", "en-gb", "de", "fr", "pl", "zh-cn", "zh-tw", "pt-br", "pt-pt"):
        project.write(f"src/strings/{code}.json", json.dumps({k: f"{v} ({code})" for k, v in texts.items()}, indent=1))
    project.write("src/components/displaySettings/displaySettings.template.html",
                  "<select id='language'><option value='en-GB'>English (United Kingdom)</option></select>\n"
                  "<!-- the display language of the web client; translations come from Weblate -->\n")
    project.write("src/scripts/globalize.js", "// loads the translation of the user's language\nexport function "
                  "loadTranslation(language) {\n  return import(`../strings/${language}.json`);\n}\n")
    project.write("src/scripts/dates.js", "// dates for German, English and French users\nexport function "
                  "formatDate(date, language) {\n  return date.toLocaleDateString(language);\n}\n")
    project.write("src/polish.js", "// the last polish of a release\nexport const stable = true;\n")
    project.init_git()

    def first(task, n=3):
        return [r["path"] for r in project.rt_json("pack", task)["ranked"][:n]]

    assert first("Translated using Weblate (English (United Kingdom)) Translation: Jellyfin/Jellyfin Web", 1) == \
        ["src/strings/en-gb.json"]
    assert "src/strings/en-gb.json" not in first("Translated using Weblate (German) Translation: Jellyfin/Jellyfin Web")
    assert "src/strings/de.json" in first("Translated using Weblate (German) Translation: Jellyfin/Jellyfin Web")
    assert {"src/strings/zh-cn.json", "src/strings/zh-tw.json"} <= set(first("chore: update chinese i18n at settings", 4))
    assert "src/strings/pt-br.json" in first("Brazilian Portuguese translation of the settings", 2)
    assert "src/strings/pt-pt.json" not in first("Brazilian Portuguese translation of the settings", 4)
    assert "src/strings/zh-cn.json" in first("feat: update zh-hans i18n", 2)
    assert "src/strings/pl.json" not in first("Last Polish before Stable", 6)
    assert "src/strings/de.json" not in first("Fix the dates for German users", 6)


def test_a_file_the_task_names_in_a_language_it_names_leads(project):
    """BookStack's Crowdin commits, "New translations entities.php (Spanish)": Laravel keeps an `entities.php` per
    language, too many for the name alone to choose (it was in no first 200); with the language, one."""
    for code in ("en", "es", "de", "fr", "it", "nl"):
        for name in ("activities", "auth", "common", "entities", "errors"):
            project.write(f"lang/{code}/{name}.php", f"<?php\nreturn [\n    'title' => '{name} ({code})',\n];\n")
    project.write("app/Entities/Entity.php", "<?php\n// entities: books, chapters, pages; their names translated\nclass Entity {}\n")
    project.write("app/Translation/FileLoader.php", "<?php\n// loads the translations of entities and the rest\nclass FileLoader {}\n")
    project.init_git()
    got = project.rt_json("pack", "New translations entities.php (Spanish)")["ranked"]
    assert got[0]["path"] == "lang/es/entities.php"

def test_a_new_language_lifts_the_files_listing_the_languages(project):
    """"Add Hebrew language support" registers the language where the project lists its languages (Uptime Kuma's
    `src/i18n.js`: 9th and 11th for two such commits, memos' `web/src/i18n.ts` 12th): the file saying the quoted
    codes or English names of half its locale files' languages. A generated file's base64 holds the same two letters
    unquoted; a file naming two languages, or a `Changelog`, lists none; a task naming no language, or one listed
    already ("zh-CN" is zh-Hans; a translation service's commit, a language whose file is to come), lifts nothing."""
    langs = {"de": "Deutsch", "fr": "Fran\u00e7ais", "ja": "\u65e5\u672c\u8a9e", "pt-BR": "Portugu\u00eas", "zh-CN": "\u4e2d\u6587", "en": "English"}
    for code in langs:
        project.write(f"src/lang/{code}.json", json.dumps({"language": "Language", "addMonitor": f"Add monitor ({code})"}))
    listed = dict(langs, ko="\ud55c\uad6d\uc5b4")   # Korean listed, its locale file not there yet
    project.write("src/i18n.js", "const languageList = {\n" + "".join(f'    "{c}": "{n}",\n' for c, n in listed.items())
                  + "};\nexport function setLocale(code) { return languageList[code]; }\n")
    project.write("Changelog", "1.2: Added German, French, Japanese, Portuguese and Chinese translations\n")
    project.write("src/proto/monitor_pb.js", "// generated\nexport const file = desc(\"CgdtZW+de/fr+ja/pt+zh/en+BR/CN"
                  "+he\");\nexport function addMonitor() {}\n")
    project.write("src/util/dates.js", "// dates in German and French\nexport const formats = { 'de': 'DD.MM.', 'fr': 'DD/MM' };\n")
    for i in range(8):
        project.write(f"src/components/LanguageSupport{i}.vue", "<template><label>{{ $t('language') }}</label>\n"
                      "<!-- add the language of the user's choice; support for each language -->\n</template>\n")
    project.init_git()
    got = project.rt_json("pack", "feat: Add Hebrew language support")["ranked"]
    assert "src/i18n.js" in [r["path"] for r in got[:2]]
    assert next(r["why"] for r in got if r["path"] == "src/i18n.js")[-1] == "lists the languages"
    assert [r["path"] for r in got if "lists the languages" in r["why"]] == ["src/i18n.js"]
    for task in ("Add English (United Kingdom) language", "add sv and nl translations"):   # "en" is listed, "en-GB" not
        assert "src/i18n.js" in [r["path"] for r in project.rt_json("pack", task)["ranked"]
                                 if "lists the languages" in r["why"]], task
    for task in ("feat: add support for the user's language in settings", "Translated using Weblate (German)",
                 "feat: update zh-hans i18n", "Add Korean translation"):   # no language, or one listed already
        got = project.rt_json("pack", task)["ranked"]
        assert not [r for r in got if "lists the languages" in r["why"]], task


def test_a_folder_of_like_files_the_task_names_lifts_the_file_registering_them(project):
    """"feat: add NTP monitor type" adds `server/monitor-types/ntp.js` and registers it where every monitor type is
    (Uptime Kuma's `server/uptime-kuma-server.js`, 34th): a file importing half the folder's files, at least FAMILY,
    gains half the best score. A task naming only part of the folder's name ("monitor"), or its words apart ("the type
    of each monitor"), or a folder of one word (`src/element/`, whose `index.ts` exports every file), or a file
    importing two of them, registers nothing."""
    kinds = ("dns", "http", "tcp", "grpc", "mqtt", "snmp")
    for kind in kinds:
        project.write(f"server/monitor-types/{kind}.js", f"class {kind.upper()}MonitorType {{\n  async check(monitor) {{}}\n}}\n"
                      f"module.exports = {{ {kind.upper()}MonitorType }};\n")
    project.write("server/uptime-kuma-server.js", "".join(f'const {{ {k.upper()}MonitorType }} = require("./monitor-types/{k}");\n'
                                                          for k in kinds) + "class UptimeKumaServer {}\n")
    project.write("server/check.js", 'const { DNSMonitorType } = require("./monitor-types/dns");\n'
                  'const { HTTPMonitorType } = require("./monitor-types/http");\n')
    parts = ("bounds", "collision", "mutate", "newElement", "sizes", "typeChecks")
    for part in parts:   # a one-word folder name is said by tasks about anything in it
        project.write(f"src/element/{part}.ts", f"export function {part}(element) {{ return element; }}\n")
    project.write("src/element/index.ts", "".join(f'export {{ {p} }} from "./{p}";\n' for p in parts))
    for i in range(6):
        project.write(f"server/model_{i}.js", f"// the type of a monitor on the network, and its time\nfunction check{i}(monitor) "
                      "{\n  return monitor.type === 'ntp' && monitor.time;\n}\n")
    project.init_git()
    got = project.rt_json("pack", "feat: add NTP monitor type for network time protocol monitoring")["ranked"]
    registry = next(r for r in got if r["path"] == "server/uptime-kuma-server.js")
    assert registry["score"] >= 0.5 * got[0]["score"]
    assert [r["path"] for r in got if "registers the folder the task names" in r["why"]] == ["server/uptime-kuma-server.js"]
    for task in ("fix: the monitor's timeout on the network", "fix: division by zero in an element's bounds",
                 "feat: the type of each monitor on the network"):
        got = project.rt_json("pack", task)["ranked"]
        assert not [r for r in got if "registers the folder the task names" in r["why"]], task


def test_the_language_of_a_locale_file_and_of_a_task():
    from rt.index.i18n import language_of, same_language
    assert [language_of(p) for p in ("locale/zh_CN/LC_MESSAGES/django.po", "res/values-zh-rCN/strings.xml",
                                     "de.lproj/Localizable.strings", "messages.de.xlf", "conf/locale/locale_pt-BR.ini",
                                     "public/locales/en/common.json", "src/lang/sr-Latn-RS.json", "src/lang/web.json")] == \
        [("zh", "cn"), ("zh", "cn"), ("de", ""), ("de", ""), ("pt", "br"), ("en", ""), ("sr", "rs"), ("", "")]
    assert same_language(("zh", "cn"), ("zh", "hans")) and not same_language(("zh", "tw"), ("zh", "hans"))
    assert same_language(("no", ""), ("nb", "")) and same_language(("de", "ch"), ("de", ""))
    assert parse_task("Translated using Weblate (Chinese (Simplified Han script))").languages == [("zh", "hans")]
    assert parse_task("Portuguese (Brazil) and Norwegian Bokm\u00e5l").languages == [("pt", "br"), ("nb", "")]
    assert parse_task("a no-op for de-DE, pt_BR and the en text").languages == [("de", "de"), ("pt", "br")]
    assert parse_task("add nl and tr translations").languages == [("nl", ""), ("tr", "")]   # bare codes, before
    assert parse_task("chore: add fa locale").languages == [("fa", "")]                    # a word of translating
    assert parse_task("update it translations").languages == parse_task("add new translations").languages == []

def test_a_quoted_text_run_together_in_a_name_lifts_the_few_files_naming_it(project):
    """Uptime Kuma's "Fix: SMTP notification "Ignore TLS Error" option" changed the provider reading
    `notification.smtpIgnoreTLSError`, which says the words only as pieces of that name (6th, behind files saying
    "ignore", "TLS" and "error" apart). A name in many files ("Send document" as `sendDocument`) chooses nothing."""
    project.write("src/lang/en.json", json.dumps({"ignoreTLSError": "Ignore TLS Error", "send": "Send document"}, indent=1))
    project.write("src/components/notifications/SMTP.vue", "<template><label>{{ $t('ignoreTLSError') }}</label>\n"
                  "<input v-model=\"$parent.notification.smtpIgnoreTLSError\" type=\"checkbox\"></template>\n")
    project.write("server/notification-providers/smtp.js", "class SMTP {\n  send(notification) {\n    return { tls: {"
                  " rejectUnauthorized: !notification.smtpIgnoreTLSError } };\n  }\n}\n")
    for i in range(6):
        project.write(f"server/notifications/smtp{i}.js", "// an option to ignore a TLS error of the SMTP server, "
                      "for each notification\nexport function check(notification, ignoreTls) {\n  if (ignoreTls) return "
                      "'ignore the TLS error';\n  // the TLS error option\n  return notification.option;\n}\n")
        project.write(f"src/pages/Document{i}.vue", f"<template><button @click=\"sendDocument\">Send document {i}</button></template>\n")
    project.init_git()
    got = project.rt_json("pack", 'Fix: SMTP notification "Ignore TLS Error" option')["ranked"]
    assert "server/notification-providers/smtp.js" in [r["path"] for r in got[:3]]
    assert 'names "Ignore TLS Error" run together' in next(r["why"] for r in got if r["path"].endswith("smtp.js"))
    got = project.rt_json("pack", 'Rename the "Send document" button')["ranked"]
    assert not [r for r in got if "run together" in " ".join(r["why"])]

def test_a_catalogue_that_changes_apart_from_the_code_weighs_as_a_translation(project):
    """A source catalogue whose commits seldom change code with it is a tool's output (`makemessages`, a
    translation service's sync): a translation's weight. One that changes with its components is kept by hand."""
    _django_app(project, apps=("admin",))
    project.write("src/lang/en.json", json.dumps({"editPermission": "Edit admin permission", "api": "Admin API views"}))
    project.write("src/EditPermission.vue", "<template><label>{{ $t('editPermission') }}</label></template>\n")
    project.init_git()
    for i in range(3):   # the catalogue regenerated on its own; the JSON file edited with its component
        project.write("wagtail/admin/locale/en/LC_MESSAGES/django.po",
                      project.read("wagtail/admin/locale/en/LC_MESSAGES/django.po") + f'\nmsgid "Edit admin permission {i}b"\nmsgstr ""\n')
        project.git("commit", "-qam", "Generate new strings for translation")
        project.write("src/lang/en.json", json.dumps({"editPermission": f"Edit admin permission {i}", "api": "Admin API views"}))
        project.write("src/EditPermission.vue", f"<template><label>{{{{ $t('editPermission') }}}} {i}</label></template>\n")
        project.git("commit", "-qam", "Reword the permission label")
    score = {r["path"]: r["score"] for r in project.rt_json("pack", "Show the edit admin permission label")["ranked"]}
    catalogue, kept = score["wagtail/admin/locale/en/LC_MESSAGES/django.po"], score["src/lang/en.json"]
    assert catalogue < kept / 5
    assert score["wagtail/admin/views.py"] > catalogue


def test_a_dependency_bump_finds_the_manifests_declaring_it(project):
    """Dependabot's and Renovate's wording: the manifest declaring the package (in the folder named) is what a bump
    edits, though it weighs as data and the code installing dependencies says "deps" and "version" more often."""
    kit = '{\n  "devDependencies": {\n    "@sveltejs/kit": "^2.42.1",\n    "vite": "^5.1.5"\n  }\n}\n'
    for folder in ("", "repro/", "docs/"):
        project.write(f"{folder}package.json", kit)
    project.write("packages/cli/src/install-deps.ts", "// installs the deps at the version asked\nexport function installDeps("
                  "deps: string[], version: string) {\n  return deps.map((dep) => `${dep}@${version}`);\n}\n")
    project.write("Cargo.toml", '[package]\nname = "bat"\n\n[dependencies.gix]\nversion = "0.85.0"\n')
    project.write("go.mod", "module example.com/app\n\nrequire (\n\tgithub.com/google/cel-go v0.28.1\n)\n")
    project.write("src/diff.rs", "// the gix crate's diff, a version of git's\npub fn diff() {}\n")
    project.write("app.go", 'package app\n\n// Version of the framework\nconst Version = "3.4.0"\n')
    project.write(".github/workflows/ci.yml", "jobs:\n  build:\n    steps:\n      - uses: prometheus/promci/build@1394141 # v0.8.5\n")
    project.init_git()
    assert ranked(project, "chore(deps): bump @sveltejs/kit from 2.42.1 to 2.60.1 in /repro")[0] == "repro/package.json"
    assert ranked(project, "build(deps): bump vite from 5.1.5 to 5.1.7 in /")[0] == "package.json"
    assert set(ranked(project, "chore(deps-dev): bump @sveltejs/kit from 2.49.2 to 2.49.5")[:3]) == \
        {"package.json", "repro/package.json", "docs/package.json"}
    assert ranked(project, "build(deps): bump gix from 0.85.0 to 0.86.0")[0] == "Cargo.toml"
    assert ranked(project, "build(deps): bump cel-go from v0.28.1 to v0.29.2")[0] == "go.mod"
    assert ranked(project, "Bump vite to >=5.1.7 in /")[0] == "package.json"
    assert ranked(project, "chore(deps): update prometheus/promci action to v0.9.0")[0] == ".github/workflows/ci.yml"
    assert ranked(project, "chore: bump version to v3.5.0")[0] == "app.go"   # a release: no dependency named


def test_vendored_code_weighs_as_context_not_as_the_projects_own(project):
    """A vendored library says the task's words often (it is the library for them) and at length; the
    project's own code using it is what a task edits."""
    lib = "".join(f"// Retry with exponential backoff: attempt {i} waits longer than the last attempt.\n"
                  f"func Backoff{i}(attempts int) int {{ return attempts * {i} }} // retry backoff\n" for i in range(40))
    project.write("vendor/github.com/cenk/backoff/retry.go", "package backoff\n\n" + lib)
    project.write("middlewares/retry/retry.go", "package retry\n\n// Retry middleware: retries a request on a network error.\n"
                  "func New(attempts int) *Retry { return &Retry{attempts: attempts} }\n\ntype Retry struct{ attempts int }\n")
    project.write("server/server.go", "package server\n\nfunc Start() error { return nil }\n")
    project.init_git()
    paths = ranked(project, "Retry middleware: exponential backoff between attempts")
    assert paths.index("middlewares/retry/retry.go") < paths.index("vendor/github.com/cenk/backoff/retry.go")
    # fmt's copy of GoogleTest in `test/gtest/`: its 12,399-line gtest.h was shown as the nearest test
    assert [kind_of(p) for p in ("test/gtest/gtest/gtest.h", "extern/json/json.hpp", "lib/thirdparty/a.c",
                                 "include/spdlog/fmt/bundled/core.h", "test/format-test.cc", "src/external.c")] == \
        ["vendored"] * 4 + ["test", "code"]
    # the browser libraries a web app serves: BookStack's `public/libs/tinymce/tinymce.d.ts` led its editor's tasks;
    # a `lib/` of the app's own (linkwarden's `apps/web/lib/`, a `src/lib/`) is its code
    assert [kind_of(p) for p in ("public/libs/tinymce/tinymce.d.ts", "public/js/libs/jquery.are-you-sure.js",
                                 "wwwroot/lib/bootstrap/dist/js/bootstrap.js", "static/lib/htmx.js",
                                 "apps/web/lib/api/archives.ts", "src/lib/utils.ts", "public/app.js")] == \
        ["vendored"] * 4 + ["code"] * 3


def test_a_release_number_finds_where_the_project_keeps_its_version(project):
    """A release commit's message is the number ("v1.8.42"), which no file holds yet: the file defining the
    version is what it edits. A number that is no release (`1.5`, an address) adds nothing."""
    project.write("fiber.go", 'package fiber\n\n// Version of the framework\nconst Version = "1.8.41"\n\n'
                  "func New() *App { return &App{} }\n")
    project.write("app.go", "package fiber\n\n// App serves requests; see the v1 migration notes.\ntype App struct{}\n")
    project.write("go.mod", "module github.com/gofiber/fiber\n\nrequire github.com/valyala/fasthttp v1.9.0\n")
    project.init_git()
    for task in ("🧹 v1.8.42", "Changelog for 1.8.42"):
        assert ranked(project, task)[0] == "fiber.go", task
    assert "version" not in parse_task("wait 1.5 s for 127.0.0.1, then retry").keys


def test_a_word_every_module_says_still_chooses_by_the_names_it_is_in(project, monkeypatch):
    """`export` opens every TypeScript module, so its rarity in text is nil; in file names it is rare, and
    a file named by it and by another task word is the one a task saying both means."""
    for i in range(300):
        project.write(f"src/parts/part{i}.ts", f"export function part{i}(value: number) {{\n  return value + {i};\n}}\n")
    for i in range(40):   # email and days said in many files' text; expiry in a few
        project.write(f"src/mail/sender{i}.ts", f"export function send{i}(email: string, days: number) {{\n"
                      f"  // email the user every few days\n  return [email, days, {i}];\n}}\n")
    for i in range(2):
        project.write(f"src/keys/limits{i}.ts", f"export const limit{i} = {i};\n// the key's expiry\n")
    for name in ("ExportSuccessEmail", "ExportFailureEmail"):
        project.write(f"src/emails/{name}.tsx", f"export class {name} {{\n  subject() {{\n"
                      "    return 'Your export is ready';\n  }\n}\n")
    project.write("src/emails/WelcomeEmail.tsx", "export class WelcomeEmail {\n  subject() {\n    return 'Welcome';\n  }\n}\n")
    project.init_git()
    task = "Add days until expiry to export email"
    named = {"src/emails/ExportSuccessEmail.tsx", "src/emails/ExportFailureEmail.tsx"}
    assert set(ranked(project, task)[:2]) == named
    monkeypatch.setattr("rt.pack.rank.PATH_IDF", 0.0)
    assert not named & set(ranked(project, task)[:5])


def test_a_picture_in_the_task_is_not_its_words(project):
    """A task pasted from a pull request shows its screenshots (`![image.png](https://...)`, `<img src=...>`): the
    picture's file name and address say nothing of the change, and a mixed-case part of an address
    (`T2klNLEk0wxLh4NRDzhk`) is not a name the task says."""
    for i in range(30):
        project.write(f"src/views/view{i}.ts", f"export const view{i} = () => render('{i}');\n")
    project.write("src/utils/image.ts", "// convert an image to png\nexport function convertToPng(image) { return image; }\n"
                                        "export const T2klNLEk0wxLh4NRDzhk = 'png';\n")
    project.write("src/components/reference-link/styles.css.ts",
                  "export const link = style({ wordBreak: 'break-word' });   // a reference node's word break\n")
    project.init_git()
    task = ("fix(core): reference node word break\n\nbefore:\n\n"
            "![image.png](https://assets.example.com/T2klNLEk0wxLh4NRDzhk/2320279b.png \"a title\")\n\n"
            "after: <img width=\"300\" alt=\"image.png\" src=\"https://assets.example.com/8869024b.png\">\n")
    q = parse_task(task)
    assert "png" not in q.keys and "imag" not in q.keys and "t2klnlek0wxlh4nrdzhk" not in q.keys
    assert parse_task("see https://example.com/T2klNLEk0wxLh4NRDzhk/a").keys["t2klnlek0wxlh4nrdzhk"] < 0.5
    mail = parse_task("Login fails for jane.doe@example.com after react@18.2.0").keys   # an e-mail's words: a URL's
    assert mail["jan"] < 0.5 and mail["exampl"] < 0.5 and mail["com"] < 0.5 and mail["react"] == 1.0
    signed = parse_task("feat: add search in environment selector\n\nCo-authored-by: jamesgeorge007 "
                        "<25279263+jamesgeorge007@users.noreply.github.com>\nSigned-off-by: Foo Bar <foo@bar.com>").keys
    assert sorted(signed) == sorted(parse_task("feat: add search in environment selector").keys)   # a trailer: who
    assert ranked(project, task)[0] == "src/components/reference-link/styles.css.ts"


def test_a_template_of_code_ranks_as_code(project):
    """phoenix's `priv/templates/phx.gen.auth/auth.ex.eex` (the Elixir a generator writes) is what "Clear :return_to
    session key after logging in" edits; as data it ranked below the guides and the built JavaScript."""
    project.write("priv/templates/auth/auth.ex.eex",
                  "defmodule <%= inspect auth_module %> do\n  def log_in_user(conn, user) do\n"
                  "    user_return_to = get_session(conn, :user_return_to)\n    conn\n    |> renew_session()\n"
                  "    |> redirect(to: user_return_to || signed_in_path(conn))\n  end\nend\n")
    project.write("guides/authentication.md", "# Logging in\n\nAfter logging in, the session key `:user_return_to` "
                  "sends the user back.\nThe session is renewed after logging in.\n")
    project.write("lib/phoenix/router.ex", "defmodule Phoenix.Router do\n  def match(conn), do: conn\nend\n")
    project.init_git()
    assert ranked(project, "Clear :return_to session key after logging in")[0] == "priv/templates/auth/auth.ex.eex"


def test_a_numbered_or_dated_migration_is_a_step_taken_once(project):
    """Kavita's "Misc Stuff" led to `Migrations/20201224155621_MiscCleanup.cs`, linkwarden's "add number of
    columns slider" to Prisma's `ALTER TABLE ... ADD COLUMN` steps: a migration is written once, a new step
    is a new file. The model snapshot beside them, edited with every step, and code that migrates are code."""
    for i, name in enumerate(("AddColumns", "MiscCleanup", "SliderColumns")):
        project.write(f"API/Data/Migrations/2020121{i}205325_{name}.cs",
                      f"class {name} {{ void Up() {{ AddColumn(\"columns\"); AddColumn(\"slider\"); }} }}\n")
        project.write(f"prisma/migrations/2024010{i}000000_{name.lower()}/migration.sql",
                      "ALTER TABLE \"User\" ADD COLUMN \"columns\" INTEGER; -- slider columns\n")
    project.write("API/Data/Migrations/DataContextModelSnapshot.cs", "class DataContextModelSnapshot { }\n")
    project.write("components/ViewDropdown.tsx", "export function ViewDropdown() {\n  const columns = useColumns();\n"
                                                  "  return <input type=\"range\" value={columns} />;\n}\n")
    for i in range(20):
        project.write(f"components/Other{i}.tsx", f"export const Other{i} = () => <div>{i}</div>;\n")
    project.init_git()
    assert ranked(project, "add number of columns slider")[0] == "components/ViewDropdown.tsx"
    assert [kind_of(p) for p in ("API/Data/Migrations/DataContextModelSnapshot.cs", "db/migrate/20240101_users.rb",
                                 "app/migrations/0002_x.py", "lib/controllers/migration/importData.ts")] == \
        ["code", "migration", "migration", "code"]


def test_a_lock_file_is_never_ranked_unless_the_task_names_it(project):
    """bat's "Use once_cell instead of lazy_static" put `Cargo.lock` fourth: a package manager writes it, nobody
    edits it. It is left out, also of what the files changed with it are lent, but a task naming it finds it."""
    project.write("Cargo.toml", "[package]\nname = \"bat\"\n\n[dependencies]\nlazy_static = \"1\"\n")
    project.write("Cargo.lock", "".join(f"[[package]]\nname = \"once_cell\"\nversion = \"1.{i}\"\n\n"
                                        f"[[package]]\nname = \"lazy_static\"\nversion = \"1.{i}\"\n\n" for i in range(40)))
    project.write("src/assets.rs", "use lazy_static::lazy_static;\n\nlazy_static! {\n    static ref SYNTAXES: Vec<u8> = "
                                   "load();\n}\n\npub fn load() -> Vec<u8> { vec![] }\n")
    for i in range(20):
        project.write(f"src/m{i}.rs", f"pub fn f{i}() -> u32 {{ {i} }}\n")
    project.init_git()
    for _ in range(3):   # the lock file changes with the code each time
        project.write("src/assets.rs", project.read("src/assets.rs") + "// lazy\n")
        project.write("Cargo.lock", project.read("Cargo.lock") + "# once\n")
        project.git("commit", "-q", "-am", "use once_cell")
    assert "Cargo.lock" not in ranked(project, "Use once_cell instead of lazy_static")
    assert ranked(project, "Use once_cell instead of lazy_static")[0] == "src/assets.rs"
    assert ranked(project, "update Cargo.lock for once_cell")[0] == "Cargo.lock"
    locks = ["yarn.lock", "web/package-lock.json", "pnpm-lock.yaml", "a/b-lock.yml", "bun.lockb", "go.sum", "ios/Package.resolved",
             "gradle.lockfile", "src/App/packages.lock.json", "npm-shrinkwrap.json", "Gemfile.lock"]
    others = ["src/lock.ts", "src/clock.rs", "docs/go.sum.md", "third_party/x/yarn.lock", "lock.json", "a/package.json"]
    assert all(unranked(p) for p in locks) and not any(unranked(p) for p in others)   # a vendored copy's is vendored code


def test_a_word_no_file_holds_run_together_from_two_looks_for_both(project):
    """Kavita's "bugfix: widthoverride label being none%": no file says `widthoverride`; the reader's
    `widthOverrideLabel$` says `width` and `override`. A word some file holds is never split, nor one whose pieces
    no name holds side by side (memos' "BEGIN IMMEDIATE" looked for `immed` and `iate`)."""
    project.write("reader/reader.component.ts", "export class ReaderComponent {\n  widthOverrideLabel$ = of('');\n"
                                                "  label = '';\n}\n")
    for i in range(12):
        project.write(f"cards/card{i}.component.html", f"<span class=\"label\">{{{{ none }}}} {i}</span>\n")
    project.write("cards/sizes.ts", "export const width = 1;\nexport const overflow = 'none';\n")
    project.init_git()
    assert ranked(project, "bugfix: widthoverride label being none%")[0] == "reader/reader.component.ts"
    assert project.rt_json("pack", "the widthoverride label")["terms"] == ["widthoverride", "label", "width", "override"]
    assert project.rt_json("pack", "the overflow label")["terms"] == ["overflow", "label"]
    project.write("cards/junk.ts", "export const immedValue = 1, iateCount = 2;\n")   # two pieces, never side by side
    project.git("add", "-A")
    project.git("commit", "-q", "-m", "junk")
    assert project.rt_json("pack", "begin immediate label")["terms"] == ["begin", "immediate", "label"]


def test_laravels_translations_are_locale_files(project):
    """BookStack's "Users: Improved user response for failed invite sending" showed `lang/he/errors.php` and
    `lang/sr/errors.php` as code: Laravel keeps each language's texts in `lang/<code>/*.php` arrays. The other
    languages' are translations, the English one the source locale file."""
    texts = {"en": "Failed to send the invite email", "he": "Failed to send invite (he)", "sr": "Failed invite sr"}
    for code, text in texts.items():
        project.write(f"lang/{code}/errors.php", f"<?php\n\nreturn [\n    'users_invite_failed' => '{text} "
                                                 f"to the user: invite sending failed',\n];\n")
    project.write("app/Access/UserInviteService.php", "<?php\n\nclass UserInviteService\n{\n    public function "
                  "sendInvitation($user)\n    {\n        // invite email sending\n        return $this->send($user);\n"
                  "    }\n}\n")
    for i in range(20):
        project.write(f"app/Other/Thing{i}.php", f"<?php\n\nclass Thing{i}\n{{\n}}\n")
    project.init_git()
    order = ranked(project, "Users: Improved user response for failed invite sending")
    assert order.index("app/Access/UserInviteService.php") < order.index("lang/he/errors.php")
    assert order.index("lang/en/errors.php") < order.index("lang/he/errors.php")
    assert [kind_of(p) for p in ("lang/en/errors.php", "lang/he/errors.php")] == ["source-locale", "locale"]


def test_angulars_extracted_messages_weigh_as_a_translation(project):
    """paperless-ngx's `src-ui/messages.xlf` holds every text of its templates and led "Fix: hide some saved view
    operations on management page without permissions": Angular's tool extracts it apart from the change (26 of
    300 commits, none with the app's code), so it weighs as a translation, not as the source locale file."""
    texts = "".join(f'<trans-unit id="{i}"><source>{w} saved view operations on the management page, permissions {i}'
                    f'</source></trans-unit>\n' for i, w in enumerate(["Hide", "Show", "Edit", "Delete"] * 10))
    project.write("src-ui/messages.xlf", f'<xliff version="1.2"><file><body>\n{texts}</body></file></xliff>\n')
    project.write("src-ui/src/app/management-list.component.ts",
                  "export class ManagementListComponent {\n  // hide the saved view operations without permissions\n"
                  "  canEdit(view) { return this.permissions.has(view); }\n}\n")
    for i in range(20):
        project.write(f"src-ui/src/app/other{i}.component.ts", f"export class Other{i} {{}}\n")
    project.init_git()
    order = ranked(project, "Fix: hide some saved view operations on management page without permissions")
    assert order[0] == "src-ui/src/app/management-list.component.ts"
    assert kind_of("src-ui/messages.xlf") == kind_of("src-ui/src/locale/messages.de_DE.xlf") == "locale"


def test_words_said_only_below_the_first_paragraph_weigh_less(project):
    """A commit message or a request opens with its goal; the paragraphs below it give details ("Remove unused
    code", "Was wrongfully commited"), whose words, said only there, must not outweigh the goal's."""
    for i in range(30):
        project.write(f"src/views/view{i}.ts", f"export const view{i} = () => render('{i}');\n")
    project.write("src/recipe/ingredients.ts", "// the ingredients of a recipe\nexport function ingredients(recipe, mode) {\n"
                                               "  return mode === 'edit' ? recipe.ingredients : recipe.ingredients.slice(0, 3);\n}\n")
    project.write("src/theme.ts", "// unused code, commited by mistake: unused until the theme has a mode\n"
                                  "export const unused = 'code';\nexport function commited(mode) { return mode; }\n")
    project.init_git()
    task = "Always show ingredients in edit mode\n\n* Remove unused code\n\nWas wrongfully commited"
    assert ranked(project, task)[0] == "src/recipe/ingredients.ts"
    assert ranked(project, " ".join(task.split()))[0] == "src/theme.ts"   # the same words in one paragraph
    q = parse_task(task)
    assert q.keys["ingredient"] == 1.0 and q.keys["unus"] < 1.0 and q.details == {"unus", "cod", "wrongfully", "commit"}
    asked = []   # each stop word looked up once (a cold /runtask counts them: `context.PARTIAL_WORDS`)
    parse_task(task.replace("Always", "Always make"), asked.append)
    assert "make" in asked and len(asked) == len(set(asked))
    merged = parse_task("Merge pull request #12 from jane/fix-search\n\nSupport searching for tv programs")
    assert not merged.details and merged.keys["program"] == 1.0   # a merge's first line says no goal: the task is below
    assert parse_task("fix crash\n\nin `parse_config()` and parseConfig").keys["parseconfig"] == 2.0   # a name: as said

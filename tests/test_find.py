"""rt find: from a text a user sees to the translation, its key, the code using the key, literals and paths."""
from __future__ import annotations

import json

import pytest

from rt.index.i18n import code_keys, entries, is_locale, is_source_locale
from rt.pack.rank import kind_of


def _rows(out: str) -> list[str]:
    return out.splitlines()


def test_translation_to_key_to_code(project):
    project.write("locales/en/common.json", '{\n  "cart": {\n    "checkout": "Proceed to checkout",\n'
                                           '    "items_one": "{{count}} item",\n    "items_other": "{{count}} items in the cart"\n  }\n}\n')
    project.write("src/Cart.tsx", "export function Cart({ n }) {\n  const { t } = useTranslation('common');\n"
                                  "  return <div>\n    <button>{t('cart.checkout')}</button>\n"
                                  "    <p>{t('common:cart.items', { count: n })}</p>\n    <Trans i18nKey=\"cart.checkout\" />\n"
                                  "  </div>;\n}\n")
    project.write("src/intl.tsx", "const t = useTranslations('cart');\nexport const B = () => <b>{t('checkout')}</b>;\n"
                                  "export const C = () => <FormattedMessage id=\"cart.checkout\" />;\n")
    project.write("src/Legacy.jsx", "export const Old = () => <a title=\"Proceed to checkout\">Proceed to checkout</a>;\n")
    project.write("README.md", "Click Proceed to checkout.\n")
    project.init_git()
    assert _rows(project.rt("find", "proceed to  CHECKOUT")) == [
        "locales/en/common.json:3  translation cart.checkout  = 'Proceed to checkout'",
        "src/Cart.tsx:4  uses key cart.checkout (translation at locales/en/common.json:3)  <button>{t('cart.checkout')}</button>",
        "src/Cart.tsx:6  uses key cart.checkout (translation at locales/en/common.json:3)  <Trans i18nKey=\"cart.checkout\" />",
        "src/intl.tsx:2  uses key cart.checkout (translation at locales/en/common.json:3)  export const B = () => <b>{t('checkout')}</b>;",
        "src/intl.tsx:3  uses key cart.checkout (translation at locales/en/common.json:3)  export const C = () => <FormattedMessage id=\"cart.checkout\" />;",
        "src/Legacy.jsx:1  string literal  export const Old = () => <a title=\"Proceed to checkout\">Proceed to checkout</a>;",
        "README.md:1  text  Click Proceed to checkout.",
    ]
    project.write("src/actions.ts", "export const go = { label: 'cart.checkout', run() {} };\n")
    assert "src/actions.ts:1  names key cart.checkout (translation at locales/en/common.json:3)" in project.rt(
        "find", "Proceed to checkout")
    plural = _rows(project.rt("find", "items in the cart"))
    assert plural[1].startswith("src/Cart.tsx:5  uses key cart.items_other")


@pytest.mark.parametrize("path, content, text, key", [
    ("locale/de/LC_MESSAGES/django.po", ('msgid ""\nmsgstr "Content-Type: text/plain"\n\nmsgid "Save changes"\n'
                                        'msgstr "Änderungen speichern"\n'), "Änderungen speichern", "Save changes"),
    ("config/locales/en.yml", "en:\n  profile:\n    title: \"Your profile\"\n", "Your profile", "profile.title"),
    ("src/main/resources/messages_en.properties", "# c\nprofile.title=Your profile\n", "Your profile", "profile.title"),
    ("lib/l10n/app_en.arb", '{"@@locale": "en", "profileTitle": "Your profile", "@profileTitle": {}}', "Your profile",
     "profileTitle"),
    ("res/values/strings.xml", '<resources>\n  <string name="profile_title">Your profile</string>\n</resources>\n',
     "Your profile", "profile_title"),
    ("en.lproj/Localizable.strings", '/* c */\n"profile.title" = "Your profile";\n', "Your profile", "profile.title"),
    ("lang/en/auth.php", "<?php\n\nreturn [\n    'profile' => [\n        'title' => 'Your profile', // shown\n    ],\n];\n",
     "Your profile", "auth.profile.title"),
    ("src-ui/messages.xlf", '<xliff version="1.2">\n<file><body>\n<trans-unit id="profile.title" datatype="html">\n'
                            '  <source>Your profile</source>\n</trans-unit>\n</body></file>\n</xliff>\n', "Your profile",
     "profile.title"),
    ("i18n/en/app.ftl", "# c\nprofile-title = Your profile\n    .tooltip = Open it\n", "Your profile", "profile-title"),
])
def test_each_locale_format(project, path, content, text, key):
    project.write(path, content)
    project.write("app/code.py", f'from i18n import _, t\nLABEL = _("{key}")\nOTHER = t("{key}")\n')
    project.init_git()
    rows = _rows(project.rt("find", text))
    assert rows[0].startswith(f"{path}:") and f"translation {key}" in rows[0]
    assert rows[1].startswith(f"app/code.py:2  uses key {key}")


def test_laravels_translations_and_the_code_asking_for_them(project):
    """BookStack's `lang/en/errors.php` array: its texts are translations keyed `errors.<key>`, and Blade's
    `trans()` and `@lang()` and PHP's `__()` and `trans_choice()` are where they are used."""
    project.write("lang/en/errors.php", "<?php\n\nreturn [\n    // Users\n    'users_invite_failed' => 'The user was "
                                        "created but the invite could not be sent',\n    'it\\'s' => 'It\\'s gone',\n];\n")
    project.write("lang/fr/errors.php", "<?php\n\nreturn [\n    'users_invite_failed' => 'L\\'invitation n\\'a pas pu "
                                        "être envoyée',\n];\n")
    project.write("resources/views/users/create.blade.php", "<p>{{ trans('errors.users_invite_failed') }}</p>\n"
                                                            "<p>@lang('errors.it\\'s')</p>\n")
    project.write("app/Users/UserController.php", "<?php\n\nclass UserController\n{\n    public function store()\n    {\n"
                  "        $this->showErrorNotification(__('errors.users_invite_failed'));\n"
                  "        return trans_choice('errors.users_invite_failed', 2);\n    }\n}\n")
    project.init_git()
    rows = _rows(project.rt("find", "invite could not be sent"))
    assert rows[0].startswith("lang/en/errors.php:5  translation errors.users_invite_failed")
    assert [r.split("  ")[0] for r in rows[1:4]] == ["app/Users/UserController.php:7", "app/Users/UserController.php:8",
                                                     "resources/views/users/create.blade.php:1"]
    assert _rows(project.rt("find", "It's gone"))[0].startswith("lang/en/errors.php:6  translation errors.it's")


def _xliff(units: list[tuple[str, str, str | None]]) -> str:
    return ('<?xml version="1.0" encoding="UTF-8" ?>\n<xliff version="1.2">\n  <file source-language="en-US">\n    <body>\n'
            + "".join(f'      <trans-unit id="{i}" datatype="html">\n        <source>{s}</source>\n'
                      + (f"        <target>{t}</target>\n" if t is not None else "")
                      + '        <context-group purpose="location"><context>src/app/a.html</context></context-group>\n'
                        "      </trans-unit>\n" for i, s, t in units)
            + "    </body>\n  </file>\n</xliff>\n")


def test_angulars_xliff_messages_the_source_first_and_the_copies_counted(project):
    """paperless-ngx: Angular extracts its templates' texts into `messages.xlf`, one `messages.<code>.xlf` per
    language. Each held the text in its `<source>`: `rt find "Share link bundle"` listed 1,361 text hits. The
    source file's unit is the translation; a language whose `<target>` is the English text, or has none, is a
    copy counted in one row (with a Turkish `İ` before it, whose lower case is longer: the lines stay right), one
    translating it holds it only as its unit's source, like a key."""
    units = [("1", "Delete <x id=\"INTERPOLATION\"/> now &amp; here", None), ("2", "Create share link", None)]
    project.write("src-ui/messages.xlf", _xliff(units))
    project.write("src-ui/src/locale/messages.de_DE.xlf", _xliff([("1", "x", "Jetzt löschen"),
                                                                  ("2", "Create share link", "Freigabe erstellen")]))
    project.write("src-ui/src/locale/messages.fr_FR.xlf", _xliff([("1", "x", "Supprimer"), ("2", "Create share link", None)]))
    project.write("src-ui/src/locale/messages.tr_TR.xlf", _xliff([("0", "First", "İlk İlk İlk"),
                                                                  ("2", "Create share link", "Create share link")]))
    project.write("src-ui/src/app/share.component.html", "<button i18n>Create share link</button>\n")
    project.init_git()
    rows = _rows(project.rt("find", "create share link"))
    assert rows[0] == "src-ui/messages.xlf:10  translation 2  = 'Create share link'"
    assert rows[1].startswith("2 more locale files under src-ui/src/locale/ hold it untranslated")
    assert rows[2].startswith("1 more locale file under src-ui/src/locale/ holds it only as a key")   # de: in <source>
    assert rows[3].startswith("src-ui/src/app/share.component.html:1  text") and len(rows) == 4
    assert _rows(project.rt("find", "now & here"))[0] == "src-ui/messages.xlf:6  translation 1  = 'Delete now & here'"
    assert project.rt_json("find", "create share link")["copies"] == ["src-ui/src/locale/messages.fr_FR.xlf",
                                                                       "src-ui/src/locale/messages.tr_TR.xlf"]


def test_a_rails_views_lazy_keys_are_its_full_keys(project):
    """maybe-finance: `t(".data_not_available")` in `app/views/pages/dashboard/_net_worth_chart.html.erb` is
    `pages.dashboard.net_worth_chart.data_not_available` (Rails' lazy look-up: the view's path, a partial's `_`
    dropped); a lazy key outside `app/views/` stays as written."""
    project.write("config/locales/views/pages/en.yml", "---\nen:\n  pages:\n    dashboard:\n      net_worth_chart:\n"
                  "        data_not_available: Data not available for the selected period\n")
    project.write("app/views/pages/dashboard/_net_worth_chart.html.erb",
                  "<div>\n  <p><%= t(\".data_not_available\") %></p>\n</div>\n")
    project.write("app/helpers/chart_helper.rb", "def empty_chart\n  t(\".data_not_available\")\nend\n")
    project.init_git()
    rows = _rows(project.rt("find", "Data not available"))
    assert rows[0].startswith("config/locales/views/pages/en.yml:6  translation "
                              "pages.dashboard.net_worth_chart.data_not_available")
    assert rows[1].startswith("app/views/pages/dashboard/_net_worth_chart.html.erb:2  uses key "
                              "pages.dashboard.net_worth_chart.data_not_available") and len(rows) == 2


def test_fluents_messages_and_rusts_fl_macro(project):
    """cosmic-files: `i18n/<code>/cosmic_files.ftl` (Project Fluent) and `fl!("empty-folder")` in its Rust.
    `rt find "Empty folder"` gave text lines only; an attribute is `key.attribute`, and a value continued on
    indented lines (a select expression) is one text."""
    project.write("i18n/en/cosmic_files.ftl", "# Files\nempty-folder = Empty folder\nempty-folder-hidden = Empty "
                  "folder (has hidden items)\n    .title = Hidden\noperations = {$n ->\n    [one] operation\n"
                  "   *[other] operations\n  } running\n")
    project.write("i18n/en-GB/cosmic_files.ftl", "empty-folder = Empty folder\n")
    project.write("i18n/de/cosmic_files.ftl", "empty-folder = Leerer Ordner\n")
    project.write("src/tab.rs", "fn empty(hidden: bool) -> String {\n    if hidden {\n        fl!(\"empty-folder-hidden\")\n"
                                "    } else {\n        fl!(\"empty-folder\")\n    }\n}\n")
    project.init_git()
    rows = _rows(project.rt("find", "Empty folder"))
    assert [r.split("  ")[:2] for r in rows[:2]] == [["i18n/en/cosmic_files.ftl:2", "translation empty-folder"],
                                                     ["i18n/en/cosmic_files.ftl:3", "translation empty-folder-hidden"]]
    assert rows[2].startswith("1 more locale file under i18n/en-GB/ holds it untranslated")
    assert [r.split("  ")[0] for r in rows[3:]] == ["src/tab.rs:3", "src/tab.rs:5"]
    assert _rows(project.rt("find", "operation"))[0] == \
        "i18n/en/cosmic_files.ftl:5  translation operations  = '{$n -> [one] operation *[other] operations } running'"
    assert "translation empty-folder-hidden.title" in [h["why"] for h in project.rt_json("find", "Hidden")["hits"]]


def test_ini_locale_files_and_gos_tr_calls(project):
    """gogs: `conf/locale/locale_<code>.ini`, `[section]` then `key = Text`, asked for as `section.key` by Go's
    `c.Tr("admin.auths.edit")` and its templates' `{{.i18n.Tr "admin.auths.edit"}}`. `rt find` gave three text lines
    (the source file, its regional copy `locale_en-GB.ini`, a language not translating it)."""
    project.write("conf/locale/locale_en-US.ini", "app_desc = A painless Git service\n\n[admin]\n; the panel\n"
                  "auths.edit = Edit Authentication Setting\nauths.quoted = \"Quoted; kept = as is\"\n")
    project.write("conf/locale/locale_en-GB.ini", "[admin]\nauths.edit=Edit Authentication Setting\n")
    project.write("conf/locale/locale_sv-SE.ini", "[admin]\nauths.edit=Edit Authentication Setting\n")
    project.write("conf/locale/locale_de-DE.ini", "[admin]\nauths.edit=Authentifizierung bearbeiten\n")
    project.write("templates/admin/auth/edit.tmpl", "<h4>\n  {{.i18n.Tr \"admin.auths.edit\"}}\n</h4>\n"
                                                    "<p>{{$.i18n.Tr \"app_desc\" .Name}}</p>\n")
    project.write("internal/route/admin/auths.go", "package admin\n\nfunc EditAuthSource(c *context.Context) {\n"
                  "\tc.Data[\"Title\"] = c.Tr(\"admin.auths.edit\")\n}\n")
    project.init_git()
    rows = _rows(project.rt("find", "Edit authentication setting"))
    assert rows[0] == "conf/locale/locale_en-US.ini:5  translation admin.auths.edit  = 'Edit Authentication Setting'"
    assert rows[1].startswith("2 more locale files under conf/locale/ hold it untranslated")
    assert [r.split("  ")[:2] for r in rows[2:]] == [
        ["internal/route/admin/auths.go:4", "uses key admin.auths.edit (translation at conf/locale/locale_en-US.ini:5)"],
        ["templates/admin/auth/edit.tmpl:2", "uses key admin.auths.edit (translation at conf/locale/locale_en-US.ini:5)"]]
    assert _rows(project.rt("find", "painless git"))[0].startswith("conf/locale/locale_en-US.ini:1  translation app_desc")
    assert _rows(project.rt("find", "kept = as is"))[0] == \
        "conf/locale/locale_en-US.ini:6  translation admin.auths.quoted  = 'Quoted; kept = as is'"


def test_an_ini_files_lines_holding_a_word_read_alone_give_the_entries_a_whole_read_gives():
    """A look-up reads only the lines of an INI file holding its word (gogs: 31 files of 1,300 lines each), each
    with its section and line number as a whole read has them."""
    from rt.index.i18n import Locale
    text = ("top = Edit at the top\r\n\n[admin]\n; edit me\nauths.edit = Edit Authentication\nauths.new = New\n"
            "  [ repo ]\nsettings = \"Edit settings\"\nEDIT_NAME = Name\n[empty]\n") * 3
    whole = entries("conf/locale/locale_en-US.ini", text)
    keep = lambda v: "edit" in v.lower()   # noqa: E731
    assert Locale("conf/locale/locale_en-US.ini", text).entries(keep, "edit") == [e for e in whole if keep(e[1])]
    assert [e[0] for e in whole[:5]] == ["top", "admin.auths.edit", "admin.auths.new", "repo.settings", "repo.EDIT_NAME"]
    assert whole[1][2] == 5 and whole[5][2] == 11   # lines as the file numbers them


def test_hugos_toml_translations_and_its_templates(project):
    """A Hugo theme's `i18n/en.toml`: `[key]` then `other = "Text"` (a plural form), or `key = "Text"`; a template
    asks for it with `{{ i18n "key" }}` or `{{ T "key" }}`."""
    project.write("i18n/en.toml", 'postedOn = "Posted on"\n\n[readMore]\none = "Read more"\nother = "Read more"\n')
    project.write("i18n/fr.toml", '[readMore]\nother = "Lire la suite"\n')
    project.write("layouts/partials/summary.html", '<a href="{{ .Permalink }}">{{ i18n "readMore" }}</a>\n'
                                                   '<span>{{- T "postedOn" -}}</span>\n')
    project.init_git()
    rows = _rows(project.rt("find", "read more"))
    assert rows[0] == "i18n/en.toml:4  translation readMore  = 'Read more'"
    assert rows[1].startswith("layouts/partials/summary.html:1  uses key readMore")
    assert _rows(project.rt("find", "Posted on"))[1].startswith("layouts/partials/summary.html:2  uses key postedOn")


def test_a_browser_extensions_messages_and_its_get_message_calls(project):
    """A WebExtension's `_locales/<code>/messages.json` holds `{"key": {"message": "Text", "description": ...}}`; its
    code asks for `browser.i18n.getMessage("key")`, its manifest and pages for `__MSG_key__`."""
    project.write("src/_locales/en/messages.json", '{\n  "extensionName": {\n    "message": "Tab Cleaner",\n'
                  '    "description": "The name"\n  },\n  "closeDuplicates": {\n    "message": "Close duplicate tabs",\n'
                  '    "description": "A button closing duplicate tabs"\n  }\n}\n')
    project.write("src/_locales/de/messages.json", '{"closeDuplicates": {"message": "Doppelte Tabs schlie\u00dfen"}}\n')
    project.write("src/popup.js", "const label = browser.i18n.getMessage('closeDuplicates');\n"
                                  "chrome.i18n.getMessage(\"extensionName\");\n")
    project.write("src/manifest.json", '{"name": "__MSG_extensionName__", "default_locale": "en"}\n')
    project.init_git()
    rows = _rows(project.rt("find", "close duplicate tabs"))
    assert rows == ["src/_locales/en/messages.json:7  translation closeDuplicates  = 'Close duplicate tabs'",
                    "src/popup.js:1  uses key closeDuplicates (translation at src/_locales/en/messages.json:7)  "
                    "const label = browser.i18n.getMessage('closeDuplicates');"]
    assert [r.split("  ")[:2] for r in _rows(project.rt("find", "Tab Cleaner"))] == [
        ["src/_locales/en/messages.json:3", "translation extensionName"],
        ["src/manifest.json:1", "uses key extensionName (translation at src/_locales/en/messages.json:3)"],
        ["src/popup.js:2", "uses key extensionName (translation at src/_locales/en/messages.json:3)"]]


def test_dotnet_resx_resources_and_the_code_reading_them(project):
    """ShareX: `Properties/Resources.resx` holds `<data name="Key"><value>Text</value></data>` (one
    `Resources.<culture>.resx` per language), which C# reads as `Resources.Key`; a form's own `Form.resx` holds its
    controls' texts. A commented sample, an image and a typed value are no texts."""
    head = ('<?xml version="1.0" encoding="utf-8"?>\n<root>\n  <!--\n    <data name="Name1"><value>this is my long '
            'string</value></data>\n  -->\n')
    project.write("App/Properties/Resources.resx", head + '  <data name="HSB_ToString_" xml:space="preserve">\n'
                  '    <value>Hue: {0}, Saturation: {1}</value>\n  </data>\n  <data name="Crosshair" type="System.Resources.'
                  'ResXFileRef"><value>..\\Resources\\Crosshair.cur</value></data>\n</root>\n')
    project.write("App/Properties/Resources.de.resx", head + '  <data name="HSB_ToString_" xml:space="preserve">\n'
                  '    <value>Farbton: {0}, Sättigung: {1}</value>\n  </data>\n</root>\n')
    project.write("App/Colors/HSB.cs", "namespace App\n{\n    public struct HSB\n    {\n        public override string "
                  "ToString()\n        {\n            return string.Format(Resources.HSB_ToString_, Hue, Saturation);\n"
                  "        }\n    }\n}\n")
    project.write("App/Forms/InputBox.resx", head + '  <data name="btnOK.Text" xml:space="preserve">\n    <value>Confirm '
                  'the input</value>\n  </data>\n  <data name="btnOK.Size" type="System.Drawing.Size, System.Drawing">\n'
                  '    <value>75, 23</value>\n  </data>\n  <data name="&gt;&gt;btnOK.Name" xml:space="preserve">\n'
                  '    <value>btnOK: Confirm the input</value>\n  </data>\n</root>\n')
    project.write("App/Forms/InputBox.Designer.cs", "partial class InputBox\n{\n    void InitializeComponent()\n    {\n"
                  "        resources.ApplyResources(this.btnOK, \"btnOK\");\n    }\n}\n")
    project.init_git()
    rows = _rows(project.rt("find", "Hue: {0}, Saturation"))
    assert rows == ["App/Properties/Resources.resx:7  translation HSB_ToString_  = 'Hue: {0}, Saturation: {1}'",
                    "App/Colors/HSB.cs:7  uses key HSB_ToString_ (translation at App/Properties/Resources.resx:7)  "
                    "return string.Format(Resources.HSB_ToString_, Hue, Saturation);"]
    assert [r.split("  ")[:2] for r in _rows(project.rt("find", "confirm the input"))] == [
        ["App/Forms/InputBox.resx:7", "translation btnOK.Text"],
        ["App/Forms/InputBox.Designer.cs:5", "uses key btnOK.Text (translation at App/Forms/InputBox.resx:7)"]]
    assert "found nowhere" in project.rt("find", "this is my long string", ret=1)   # the commented sample
    assert is_source_locale("App/Properties/Resources.resx") and not is_source_locale("App/Properties/Resources.zh-Hans.resx")
    assert [kind_of(p) for p in ("App/Properties/Resources.resx", "App/Properties/Resources.de.resx")] == ["data", "locale"]


def test_an_xcode_string_catalog_and_the_swift_reading_it(project):
    """Xcode's `Localizable.xcstrings` holds every language in one JSON file: a key is the English text (SwiftUI's
    `Text("Welcome back")`) unless the source language's own value says otherwise (`"welcome_title"`); a plural is
    its `other` form. Swift asks for it with `Text`, `Button`, `String(localized:)`, `NSLocalizedString`."""
    catalog = {"sourceLanguage": "en", "strings": {
        "Welcome back, %@": {"localizations": {"de": {"stringUnit": {"state": "translated", "value": "Willkommen"}}}},
        "files_count": {"localizations": {"en": {"variations": {"plural": {
            "one": {"stringUnit": {"state": "translated", "value": "%lld file"}},
            "other": {"stringUnit": {"state": "translated", "value": "%lld files selected"}}}}}}},
        "welcome_title": {"extractionState": "manual", "localizations": {
            "en": {"stringUnit": {"state": "translated", "value": "Glad to see you again"}}}}}, "version": "1.0"}
    project.write("App/Localizable.xcstrings", json.dumps(catalog, indent=2, sort_keys=True).replace('": ', '" : '))
    project.write("App/HomeView.swift", "import SwiftUI\n\nstruct HomeView: View {\n    var body: some View {\n"
                  "        Text(\"Welcome back, %@\").navigationTitle(\"welcome_title\")\n        Button(\"welcome_title\") {}\n"
                  "        let s = String(localized: \"files_count\")\n"
                  "        let t = NSLocalizedString(\"welcome_title\", comment: \"\")\n    }\n}\n")
    project.init_git()
    assert [r.split("  ")[:2] for r in _rows(project.rt("find", "glad to see you"))] == [
        ["App/Localizable.xcstrings:42", "translation welcome_title"],
        ["App/HomeView.swift:5", "uses key welcome_title (translation at App/Localizable.xcstrings:42)"],
        ["App/HomeView.swift:6", "uses key welcome_title (translation at App/Localizable.xcstrings:42)"],
        ["App/HomeView.swift:8", "uses key welcome_title (translation at App/Localizable.xcstrings:42)"]]
    assert [r.split("  ")[:2] for r in _rows(project.rt("find", "files selected"))] == [
        ["App/Localizable.xcstrings:28", "translation files_count"],
        ["App/HomeView.swift:7", "uses key files_count (translation at App/Localizable.xcstrings:28)"]]
    assert _rows(project.rt("find", "Welcome back"))[0].startswith("App/Localizable.xcstrings:4  translation Welcome back, %@")
    assert is_source_locale("App/Localizable.xcstrings")


def _qt_ts(messages: list[tuple[str, str | None]]) -> str:
    return ('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n<TS version="2.1" language="de">\n<context>\n'
            '    <name>MainWindow</name>\n'
            + "".join(f'    <message>\n        <location filename="../gui/mainwindow.cpp" line="12"/>\n'
                      f'        <source>{s}</source>\n'
                      + (f'        <translation>{t}</translation>\n' if t is not None else
                         '        <translation type="unfinished"></translation>\n') + '    </message>\n'
                      for s, t in messages)
            + "</context>\n</TS>\n")


def test_a_kept_locale_file_keeps_the_units_of_its_last_words_only():
    """A hook server keeps each locale file's reading through a session: the units read for each word a look-up asked
    about are kept for the last 8 words, not for every word ever asked."""
    from rt.index.i18n import Locale
    loc = Locale("src/lang/app_de.ts", _qt_ts([(f"word{i} text", f"wort{i}") for i in range(20)]))
    assert [loc.entries(lambda v: True, f"word{i} ")[0][:2] for i in range(20)] == [
        (f"word{i} text", f"wort{i}") for i in range(20)]
    assert list(loc.held) == [f"word{i} " for i in range(12, 20)]


def test_qt_linguist_translations_and_the_tr_calls(project):
    """qBittorrent keeps `src/lang/qbittorrent_<code>.ts`, Qt Linguist's XML (no TypeScript), each message keyed by
    its English source text, which the C++ asks for with `tr("...")` and QML with `qsTr("...")`. Each language's file
    held the text in its `<source>`: they were listed as text, and ranked as code."""
    project.write("src/lang/qbittorrent_de.ts", _qt_ts([("Open &amp;torrent file", "&amp;Torrent-Datei öffnen"),
                                                       ("Pause all torrents", None)]))
    project.write("src/lang/qbittorrent_fr.ts", _qt_ts([("Open &amp;torrent file", "Ouvrir un &amp;torrent")]))
    project.write("src/gui/mainwindow.cpp", "void MainWindow::setup()\n{\n    m_open->setText(tr(\"Open &torrent file\"));\n"
                                            "    m_pause->setText(tr(\"Pause all torrents\"));\n}\n")
    project.write("src/gui/qml/Main.qml", "Button { text: qsTr(\"Pause all torrents\") }\n")
    project.init_git()
    rows = _rows(project.rt("find", "Pause all torrents"))   # not translated yet: the text is its key alone
    assert rows[0].startswith("1 more locale file under src/lang/ holds it only as a key")
    assert [r.split("  ")[:2] for r in rows[1:]] == [["src/gui/mainwindow.cpp:4", "string literal"],
                                                     ["src/gui/qml/Main.qml:1", "string literal"]]
    rows = _rows(project.rt("find", "Open &torrent file"))
    assert rows[0].startswith("2 more locale files under src/lang/ hold it only as a key")
    assert rows[1].startswith("src/gui/mainwindow.cpp:3  string literal")
    assert [r.split("  ")[:2] for r in _rows(project.rt("find", "Torrent-Datei öffnen"))] == [
        ["src/lang/qbittorrent_de.ts:9", "translation Open &torrent file"],
        ["src/gui/mainwindow.cpp:3", "uses key Open &torrent file (translation at src/lang/qbittorrent_de.ts:9)"]]
    assert [kind_of(p) for p in ("src/lang/qbittorrent_de.ts", "src/gui/mainwindow.cpp")] == ["locale", "code"]
    assert not is_locale("src/api/user_id.ts")


def test_invalid_locale_json_is_searched_as_text(project):
    project.write("locales/en.json", '{ "cart": { "empty": "Your cart is empty", }\n')
    project.write("src/a.ts", "const msg = 'Your cart is empty';\n")
    project.init_git()
    assert _rows(project.rt("find", "Your cart is empty")) == [
        "locales/en.json:1  string literal  { \"cart\": { \"empty\": \"Your cart is empty\", }",
        "src/a.ts:1  string literal  const msg = 'Your cart is empty';"]


def test_text_without_spaces_cjk(project):
    project.write("locales/zh.json", '{"cart": {"empty": "您的购物车是空的"}}\n')
    project.write("src/a.ts", "t('cart.empty')\n")
    project.init_git()
    rows = _rows(project.rt("find", "购物车"))
    assert rows == ["locales/zh.json:1  translation cart.empty  = '您的购物车是空的'",
                    "src/a.ts:1  uses key cart.empty (translation at locales/zh.json:1)  t('cart.empty')"]


def test_path_hits_and_nothing_found(project):
    project.write("src/components/LoginButton.tsx", "export const X = 1;\n")
    project.init_git()
    assert project.rt("find", "loginbutton").splitlines() == ["src/components/LoginButton.tsx  path matches"]
    out = project.rt("find", "no such words anywhere", ret=1)
    assert out.startswith("'no such words anywhere': found nowhere")
    assert project.rt_json("find", "no such words anywhere", ret=1)["found"] is False
    project.rt("find", "  ", ret=2)
    assert project.last_err == 'rt: error: give the text to find, for example: rt find "Proceed to checkout"\n'


def test_product_files_come_before_tests(project):
    project.write("tests/test_ui.py", "assert page.title == 'Welcome back'\n")
    project.write("src/ui.py", "TITLE = 'Welcome back'\n")
    project.write("src/ui.test.ts", "expect(title).toBe('Welcome back');\n")
    project.init_git()
    assert [r.split(":")[0] for r in _rows(project.rt("find", "welcome back"))] == [
        "src/ui.py", "src/ui.test.ts", "tests/test_ui.py"]


def test_an_apostrophe_opens_no_string_and_documentation_comes_after_the_code(project):
    project.write("docs/GUIDE.md", "Ripgrep's \"binary data\" mode is described below.\n")
    project.write("src/search.py", "# it's binary data we skip\nWARN = f'binary data in {path}'\n"
                                   "HINT = rb'binary data'\n")
    project.write("src/search.rs", "// Don't print binary data to a terminal.\n")
    project.init_git()
    assert _rows(project.rt("find", "binary data")) == [
        "src/search.py:1  text  # it's binary data we skip",
        "src/search.py:2  string literal  WARN = f'binary data in {path}'",
        "src/search.py:3  string literal  HINT = rb'binary data'",
        "src/search.rs:1  text  // Don't print binary data to a terminal.",
        "docs/GUIDE.md:1  text  Ripgrep's \"binary data\" mode is described below."]


def test_a_text_with_its_quotes_written_the_other_way_is_found_and_said_so(project):
    """Copied from an issue or a chat, "Don’t" has the curly apostrophe the locale file's "Don't" has not."""
    project.write("locales/en.json", '{\n  "token_help": "Don\'t know how to get the token?"\n}\n')
    project.write("src/hint.ts", "export const HINT = 'We\u2019ll email you';\n")
    project.init_git()
    assert _rows(project.rt("find", "Don\u2019t know how")) == [
        "'Don\u2019t know how' is found as \"Don't know how\", its quotes written the other way:",
        "locales/en.json:2  translation token_help  = \"Don't know how to get the token?\""]
    assert project.rt_json("find", "We'll email")["as"] == "We\u2019ll email"
    assert project.rt("find", "Can\u2019t find me", ret=1).startswith("'Can\u2019t find me': found nowhere")


def test_find_caps_output(project):
    for i in range(50):
        project.write(f"m{i:02}.py", "print('hello there')\n")
    project.init_git()
    rows = _rows(project.rt("find", "hello there"))
    assert len(rows) == 41 and rows[-1].startswith("... and 10 more hits")
    assert len(project.rt_json("find", "hello there")["hits"]) == 50


def test_code_keys_and_locale_detection():
    assert code_keys("i18n.t('a.b'); $t(\"c\"); this.$t('d'); x.t('no'); gettext('Hi there'); "
                     "intl.formatMessage({ id: 'e.f' })") == ["Hi there", "a.b", "c", "d", "e.f"]
    assert code_keys("<FormattedMessage id='g' defaultMessage='x' />") == ["g"]
    assert is_locale("locales/en/common.json") and is_locale("src/i18n/fr-FR.json") and is_locale("de.po")
    assert is_locale("src/languages/ru-RU.js") and is_locale("languages/de.json")   # modules written as code too
    assert not is_locale("src/languages/index.js")
    assert is_locale("lang/he/errors.php") and is_source_locale("resources/lang/en/auth.php")   # Laravel's arrays
    assert not is_locale("app/Http/Controllers/LanguageController.php") and not is_locale("lang/index.php")
    assert not is_locale("package.json") and not is_locale("res/layout/strings.xml") and not is_locale("src/data.json")
    assert is_source_locale("conf/locale/locale_en-US.ini") and is_locale("options/locale/locale_zh-CN.ini")
    assert not is_locale("conf/app.ini") and not is_locale("setup.ini") and not is_locale("config/en.toml")
    assert not is_source_locale("conf/locale/locale_de-DE.ini") and not is_locale("locale/pyproject.toml")
    assert entries("x.json", "[1, 2]") == [] and entries("x.json", "{oops") == []


def test_lines_with_matches_case_and_spacing_within_a_line_only():
    """A text is found in a line whatever its case and runs of spaces or tabs, never across lines; a
    character whose lower case is longer (İ) does not shift which lines are reported."""
    from rt.lookup.find import _lines_with
    text = "a\nproceed to checkout\n\tPROCEED\t to   checkout!\nproceed to\ncheckout\nxproceed to checkoutx"
    assert _lines_with(text, "proceed to checkout") == [
        (2, "proceed to checkout"), (3, "\tPROCEED\t to   checkout!"), (6, "xproceed to checkoutx")]
    text = "İstanbul\nproceed to checkout\nİ proceed  TO checkout\r\nno"
    assert _lines_with(text, "proceed to checkout") == [(2, "proceed to checkout"), (3, "İ proceed  TO checkout")]
    # line breaks of every kind (as `core.lines` cuts: not a form feed or U+2028), one match per line
    text = "a\r\nproceed to checkout\r\nb\x0cproceed to checkout\u2028c\rProceed to Checkout"
    assert _lines_with(text, "proceed to checkout") == [
        (2, "proceed to checkout"), (3, "b\x0cproceed to checkout\u2028c"), (4, "Proceed to Checkout")]
    assert _lines_with("proceed to checkout\nProceed to checkout", "proceed to checkout") == [
        (1, "proceed to checkout"), (2, "Proceed to checkout")]
    text = "\n\nproceed\nproceed to checkout\n\nproceed to checkout, proceed to checkout\n"
    assert _lines_with(text, "proceed to checkout") == [(4, "proceed to checkout"),
                                                        (6, "proceed to checkout, proceed to checkout")]


LOCALE_JSON = ('{\n  "cart": {\n    "title": "Your cart",\n    "empty": "Your cart is empty",\n'
               '    "sizes": [1, 2],\n    "checkout": {\n      "title": "Proceed to checkout",\n'
               '      "n": 3\n    }\n  },\n  "say \\"hi\\"": "Hi there",\n  "Größe": "Size of your cart",\n'
               '  "title": "Checkout"\n}\n')


def test_locale_entries_kept_are_those_of_the_whole_file_at_the_same_lines():
    """`entries(..., keep)` looks for the lines of the kept entries only; each must be where the whole
    file's reading puts it, a key repeated in other objects (title) and keys written with escapes included."""
    whole = entries("locales/en.json", LOCALE_JSON)
    assert whole == [("cart.title", "Your cart", 3), ("cart.empty", "Your cart is empty", 4),
                     ("cart.checkout.title", "Proceed to checkout", 7), ('say "hi"', "Hi there", 11),
                     ("Größe", "Size of your cart", 12), ("title", "Checkout", 13)]
    for keep in (lambda v: "checkout" in v.lower(), lambda v: v == "Size of your cart", lambda v: False,
                 lambda v: v.startswith("Your")):
        assert entries("locales/en.json", LOCALE_JSON, keep) == [e for e in whole if keep(e[1])]
    po = 'msgid "Save"\nmsgstr "Speichern"\n\nmsgid "Open"\nmsgstr "Öffnen"\n'
    assert entries("de.po", po, lambda v: v == "Öffnen") == [("Open", "Öffnen", 4)]


def test_no_value_holds_reads_the_raw_json():
    from rt.lookup.find import _no_value_holds

    def holds(value: str) -> bool:
        return "cart title" in value.lower()
    assert _no_value_holds('{"cart": {"title": "Warenkorb"}}', "cart", holds)
    assert _no_value_holds('{\n  "cart": {\n    "cartTitle": "Warenkorb"\n  }\n}\n', "cart", holds)
    assert _no_value_holds('{"Cart title": "Titel", "b": "my cart", "c": "cart\\ntitle"}', "cart", holds)   # values, none holding it
    assert not _no_value_holds('{"cart": "the cart title"}', "cart", holds)   # the key, then a value holding it
    assert not _no_value_holds('{"a": "x", "b": "my cart\\t title"}', "cart", lambda v: "cart title" in " ".join(v.split()))
    assert not _no_value_holds('{"a": "\\u0063art"}', "art", holds)   # an escape could spell the word
    assert not _no_value_holds('{"a": "{{cart}}"}', "{{cart}}", holds)   # not a plain word: parsed
    assert not _no_value_holds('{"a": ["cart title"]}', "cart", holds)


def test_find_skips_locale_files_holding_the_words_only_in_keys(project):
    project.write("locales/de.json", '{"cart": {"title": "Warenkorb", "hint": "Cart: the title"}}\n')
    project.write("locales/en.json", '{\n  "cart": {\n    "title": "Cart title here"\n  }\n}\n')
    project.write("locales/fr.json", '{"cart": "cart title en fran\\u00e7ais"}\n')
    project.write("locales/es.json", '{"cart": {"x": "\\u0043art title"}}\n')   # the word in a key, and escaped
    project.write("src/a.ts", "t('cart.title');\n")
    project.init_git()
    rows = _rows(project.rt("find", "cart title"))
    assert rows[:3] == ["locales/en.json:3  translation cart.title  = 'Cart title here'",
                        "locales/es.json:1  translation cart.x  = 'Cart title'",
                        "locales/fr.json:1  translation cart  = 'cart title en français'"]
    assert not any(r.startswith("locales/de.json") for r in rows)
    assert "src/a.ts:1  uses key cart.title (translation at locales/en.json:3)  t('cart.title');" in rows


def test_find_counts_in_one_row_the_locale_files_holding_the_text_only_as_a_key(project):
    """Where the keys are the English texts, every language's file holds the text in its key: one row says
    how many and where (a changed English key changes there too), `--json` lists them; not a row each."""
    project.write("locales/en.json", '{\n  "Share link copied": "Share link copied"\n}\n')
    for lang, text in (("de", "Freigabelink wurde kopiert"), ("fr", "Lien de partage copié"), ("nl", "Deel-link gekopieerd")):
        project.write(f"locales/{lang}.json", f'{{\n  "Share link copied": "{text}"\n}}\n')
    project.write("src/share.ts", "toast(t(\"Share link copied\"));\n")
    project.init_git()
    rows = _rows(project.rt("find", "Share link copied"))
    assert rows[:2] == ["locales/en.json:2  translation Share link copied  = 'Share link copied'",
                        "3 more locale files under locales/ hold it only as a key (`rt find ... --json` lists them)"]
    assert not any(r.startswith(("locales/de.json", "locales/fr.json", "locales/nl.json")) for r in rows)
    assert project.rt_json("find", "Share link copied")["key_only"] == ["locales/de.json", "locales/fr.json", "locales/nl.json"]


def test_the_source_locale_file_comes_first_and_its_untranslated_copies_are_counted_in_one_row(project):
    """Languages sorting before English (`af`, `ca`) that hold the English text untranslated under the same key
    are copies: one row counts them, and the key's uses point at the English line; a key only another language
    has is a translation of its own and keeps its row."""
    project.write("locales/en.json", '{\n  "gen": {\n    "code": "Generate code"\n  }\n}\n')
    project.write("locales/af.json", '{\n  "gen": {\n    "code": "Generate code"\n  }\n}\n')
    project.write("locales/ca.json", '{\n  "gen": {\n    "code": "Generate code"\n  },\n  "old": "Generate code now"\n}\n')
    project.write("locales/de.json", '{\n  "gen": {\n    "code": "Code generieren"\n  }\n}\n')
    project.write("src/Modal.vue", "<template>\n  <h1>{{ t('gen.code') }}</h1>\n</template>\n")
    project.init_git()
    rows = _rows(project.rt("find", "Generate code"))
    assert rows[:4] == [
        "locales/en.json:3  translation gen.code  = 'Generate code'",
        "locales/ca.json:5  translation old  = 'Generate code now'",
        "2 more locale files under locales/ hold it untranslated, under the same key (`rt find ... --json` lists them)",
        "src/Modal.vue:2  uses key gen.code (translation at locales/en.json:3)  <h1>{{ t('gen.code') }}</h1>",
    ]
    assert project.rt_json("find", "Generate code")["copies"] == ["locales/af.json", "locales/ca.json"]


def test_a_regional_english_copy_is_counted_and_a_key_only_file_read_as_json_is_not_a_literal(project):
    """`en_GB` beside `en_US` is a translation: the key's uses name `en_US`'s line. A file parsed whole (its
    `İ` makes its lower case longer than its text) holding the text only in a key is counted with the others,
    not shown as a string literal."""
    for lang in ("en_GB", "en_US"):
        project.write(f"locales/{lang}/translation.json", '{\n  "Include nested documents": "Include nested documents"\n}\n')
    project.write("locales/tr_TR/translation.json", '{\n  "Include nested documents": "İç içe belgeleri dahil et"\n}\n')
    project.write("src/Copy.tsx", 'export const C = () => <Switch label={t("Include nested documents")} />;\n')
    project.init_git()
    rows = _rows(project.rt("find", "Include nested documents"))
    assert rows == [
        "locales/en_US/translation.json:2  translation Include nested documents  = 'Include nested documents'",
        "1 more locale file under locales/en_GB/ holds it untranslated, under the same key (`rt find ... --json` lists them)",
        "1 more locale file under locales/tr_TR/ holds it only as a key (`rt find ... --json` lists them)",
        "src/Copy.tsx:1  uses key Include nested documents (translation at locales/en_US/translation.json:2)  "
        "export const C = () => <Switch label={t(\"Include nested documents\")} />;",
    ]


def test_gettext_catalogues_of_other_languages_hold_the_english_text_as_their_msgid_only(project):
    """Every language's `.po` repeats the English text as its `msgid`: a key, counted in one row, not a string
    literal a row each (an empty `msgstr` is the text untranslated)."""
    project.write("locale/en/web.po", 'msgid ""\nmsgstr ""\n\nmsgid "Save changes"\nmsgstr "Save changes"\n')
    project.write("locale/de/web.po", 'msgid ""\nmsgstr ""\n\nmsgid "Save changes"\nmsgstr "Änderungen speichern"\n')
    project.write("locale/fr/web.po", 'msgid ""\nmsgstr ""\n\nmsgid "Save changes"\nmsgstr ""\n')
    project.init_git()
    assert _rows(project.rt("find", "Save changes")) == [
        "locale/en/web.po:4  translation Save changes  = 'Save changes'",
        "1 more locale file under locale/fr/ holds it untranslated, under the same key (`rt find ... --json` lists them)",
        "1 more locale file under locale/de/ holds it only as a key (`rt find ... --json` lists them)"]


def test_odd_lower_names_every_character_whose_lower_case_moves_an_ascii_word():
    """`_read` trusts the bytes' lower case unless the text has a character of `_ODD_LOWER` and the word its
    letter: every other character lowers to one character, ASCII only from ASCII, and İ is the only one
    whose lower case is longer (checked over every code point of this Python's Unicode)."""
    from rt.lookup.find import _ODD_LOWER
    odd = {chr(c): "".join(x for x in chr(c).lower() if x.isascii()) for c in range(0x80, 0x110000)
           if not 0xD800 <= c < 0xE000 and (len(chr(c).lower()) != 1 or any(x.isascii() for x in chr(c).lower()))}
    assert odd == _ODD_LOWER
    assert [c for c in odd if len(c.lower()) != 1] == ["\u0130"]
    from rt.lookup.find import _no_value_holds   # a text holding İ is parsed, whichever way its lines were found
    assert not _no_value_holds('{"İ": "x",\n "cart": "y"}', "cart", lambda v: False)
    assert not _no_value_holds('{"İ": "x",\n "cart": "y"}', "cart", lambda v: False, [(2, ' "cart": "y"}')])


@pytest.mark.parametrize("raw", [
    '{\n  "Cart title": "Titel",\n  "b": "my CART title"\n}\n'.encode(),
    '{\n  "Größe": "cart title größe",\n  "x": "ÇART title",\n  "y": "Cart\\ttitle"\n}\n'.encode(),
    '\ufeff{"cart": "x",\n"Cart  Title": "Warenkorb",\n"z": "\\u0063art title"}'.encode(),
    '{"a": "Kelvin \u212aart", "b": "cart title"}\n{"c": "İ cart title", "d": "İ"}\n'.encode(),   # İ, the Kelvin sign
    '{"a": "cart\u2028title", "b": "cart title"}\r\n{"c": "cart\x85title"}\n'.encode(),
    b'{"a": "caf\xe9 cart title", "b": "cart \x85 title"}\n',   # Latin-1: \x85 is a line break there
    b'{"a": "caf\xe9 cart",\n "cart title": "x"}\n',
    b"cart title\nno\n\nCART   TITLE here\nlast cart title",
    b"", b"nothing here\n",
])
def test_byte_route_finds_what_the_text_route_finds(tmp_path, raw):
    """`_read` finds the lines holding the first word in the file's bytes where it can: `_lines_with` and
    `_no_value_holds` then answer exactly as from the decoded text, for UTF-8, Latin-1, a BOM, odd lower
    cases, other line breaks and escapes."""
    from rt.core import decode
    from rt.lookup.find import _lines_with, _no_value_holds, _read, _Source
    text = decode(raw)
    src = _Source("f.json", raw)   # one for every query, as a long-lived process keeps it
    for q in ("cart title", "cart", "title", "größe", "çart title", "kart", "ti"):
        first = q.split(" ", 1)[0]
        got, lines = _read(src, first)
        assert got == text
        assert _lines_with(text, q, lines) == _lines_with(text, q), q
        for holds in (lambda v: q in " ".join(v.split()).lower(), lambda v: False):
            assert _no_value_holds(text, first, holds, lines) == _no_value_holds(text, first, holds), q


@pytest.mark.parametrize("sep", ["\n", "\r\n"])
def test_locale_entries_lines_after_a_key_quoted_in_a_value_or_a_key_holding_a_line_break(sep):
    """Each key's line is the first line from the line of the key before that holds it quoted as JSON writes
    it: a key quoted inside an escaped value is passed over, a key holding a break `str.splitlines` cuts at
    is found on no line (it keeps the line before), and the lines after it count that break."""
    text = sep.join(['{', '  "a": "say \\"title\\" here",', '  "title": "Title",', '  "n": {"title": "Deep"}', '}', ''])
    assert entries("locales/en.json", text) == [("a", 'say "title" here', 2), ("title", "Title", 3),
                                                ("n.title", "Deep", 4)]
    text = sep.join(['{', '  "title": "Title",', '  "x\u2028y": "Two",', '  "n": {"title": "Deep"}', '}', ''])
    assert entries("locales/en.json", text, lambda v: v != "Title") == [("x\u2028y", "Two", 2), ("n.title", "Deep", 5)]
    # the same key in an object and right after it (hoppscotch: `"token": {... "update_failure": "..."},` then
    # `"update_failure": "..."`): the second is after the first, not on its line again; so on one line too
    for brk in ("\u2028", ""):
        text = sep.join(['{', '  "p": {', f'    "t": {{"fail": "Token{brk}"}},', '    "fail": "Provider"', '  },',
                         '  "q": {"fail": "A", "fail2": "B"}', '}', ''])
        assert entries("locales/en.json", text) == [("p.t.fail", f"Token{brk}", 3), ("p.fail", "Provider", 4 + bool(brk)),
                                                    ("q.fail", "A", 6 + bool(brk)), ("q.fail2", "B", 6 + bool(brk))]


@pytest.mark.parametrize("raw", [
    b'{\n  "Cart title": "Titel",\n  "b": "my CART title"\n}\n',
    b'{\n  "Cart title": "Warenkorb",\n  "Cart title again": "Wieder",\n  "x": {"cart title": "y"}\n}\n',
    b'{\n  "cart title" : "x",\n  "a\\"cart title": "y",\n  "cart\\\\ title": "z"\n}\n',   # a space, escapes in keys
    b'{"cart title": "x", "cart": "my cart title"}\n{"n": ["cart title"], "cart": true, "t": "cart"}\n',
    b'{\n  "k": "{{cartTitle}} cart title",\n  "Cart title": "Warenkorb {{cart}}"\n}\n',
    b'{\n  "Cart title": "Warenkorb",\n  cart: "unquoted key"\n}\n',
    '{\n  "Größe cart title": "Größe",\n  "ü": "cart"\n}\n'.encode(),
    b'{\n  "Cart title": "x"\n}\n{"\xe9": "cart title"}\n',
    '{"İ cart title": "x"}\n'.encode(), '{"cart title": "\u212a"}\n'.encode(),
    b'{\r\n  "cart title": "x"\r\n}\r\n', b'{"a": "\\u0063art title", "cart title": "x"}\n',
    b'{\n  "n": [\n    "my cart title"\n  ],\n  "k":\n    "cart title",\n  "cart title": "x"\n}\n',   # values first on a line
])
def test_a_kept_locale_file_gives_no_value_holds_only_the_lines_it_reads(raw):
    """A JSON locale file looked up before in a long-lived process: `_value_lines` gives `_no_value_holds` only the
    lines holding the first word outside the keys it passes over unread, and it answers as from every line; the
    query in the file's bytes means `_lines_with` finds a line."""
    from rt.lookup.find import (
        _lines_with,
        _no_value_holds,
        _norm,
        _read,
        _Source,
        _value_lines,
    )
    src = _Source("locales/de.json", raw)
    assert _value_lines(src, "cart") is None   # not looked up before: every line is read
    src.hits = 1
    for q in ("cart title", "cart", "title", "cart title again", "größe cart", "{{cart}}"):
        first = q.split(" ", 1)[0]
        text, lines = _read(src, first)
        some = _value_lines(src, first)
        if some is None:
            continue
        assert set(some) <= set(lines or []), q
        for holds in (lambda v, q=q: q in _norm(v), lambda v: False, lambda v: True):
            assert _no_value_holds(text, first, holds, some) == _no_value_holds(text, first, holds, lines), q
        if q.isascii() and q.encode() in src.low:
            assert _lines_with(text, q, lines), q

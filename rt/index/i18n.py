"""Translations: the keys code uses (`t('a.b')`, `<Trans i18nKey>`, `FormattedMessage id`, gettext `_()`, Go's
`.Tr`, C#'s `Resources.Key`, Qt's `tr()` ...) and the entries of locale files (nested JSON, gettext .po, YAML,
.properties, .arb, Android strings.xml, iOS .strings and .xcstrings, XLIFF, Fluent, Laravel's PHP arrays, INI and
TOML, .resx, Qt Linguist's .ts), so `rt find` can go from a text a user sees to its key and on to the code using
the key.
"""
from __future__ import annotations

import json
import re
from bisect import bisect_right
from itertools import accumulate

from rt.core import line_ends

_Q = r"""(?:'([^'\\\n]{1,300})'|"([^"\\\n]{1,300})"|`([^`$\\\n]{1,300})`)"""
_CALL_ARG = re.compile(r"\(\s*" + _Q)
_CALLEE = re.compile(
    r"(?:^|[^\w$.])(?:t|\$t|tc|\$tc|te|\$te|i18n\.t|i18next\.t|this\.\$t|translate|intl\.formatMessage|"
    r"_|gettext|ngettext|pgettext|gettext_lazy|ugettext|ugettext_lazy|gettext_noop|__|_n|_x|_e|esc_html__|"
    r"trans|trans_choice|@lang|@choice|Lang::get|Lang::choice|fl!|tr|qsTr|QT_TR_NOOP)\s*$|\.Tr\s*$|\bi18n\.getMessage\s*$")
_SWIFTUI = re.compile(r"(?:(?:^|[^\w.])(?:Text|Button|Label|Toggle|Section|Picker|TextField|SecureField|Link|Menu|"
                      r"NSLocalizedString|LocalizedStringKey|LocalizedStringResource)|\.navigationTitle)\s*$")
"""Swift's calls whose first string is a localized key: SwiftUI's views take a `LocalizedStringKey`."""
_ATTRS = r"\b(?:i18nKey|i18n-key|v-t|keypath)\s*=\s*\{?\s*" + _Q
_MESSAGE_IDS = (r"(?s)(?:<FormattedMessage\b[^>]*?\bid|\bdefaultMessage\b[^}]*?\bid|\bid(?=\s*:[^}]*defaultMessage))"
                r"\s*[=:]\s*\{?\s*" + _Q)
_ID_FIRST = r"\{\s*id\s*:\s*" + _Q
_NAMESPACE = r"\b(?:useTranslations|getTranslations|useTranslation|withTranslation)\(\s*(?:\{\s*namespace\s*:\s*)?" + _Q
_TEMPLATE_CALL = r"(?:\.Tr|[{(]-?\s*(?:i18n|T))\s+" + _Q
"""A Go template's `{{.i18n.Tr "key"}}` (gogs, Gitea) and Hugo's `{{ i18n "key" }}` and `{{ T "key" }}`."""
_DOTNET = (".cs", ".vb", ".xaml", ".cshtml", ".razor")
_RESOURCE = r"\b\w*(?:Resources?|Strings|Lang|Language|Localization|Texts|Messages)\.([A-Za-z_]\w*)\b"
"""A .NET resource's strongly typed name: `Resources.HSB_ToString_` reads the `HSB_ToString_` of `Resources.resx`."""
_HINTS = ((_ATTRS, ("i18nKey", "i18n-key", "v-t", "keypath")), (_MESSAGE_IDS, ("FormattedMessage", "defaultMessage")),
          (_ID_FIRST, ("id",)), (_TEMPLATE_CALL, (".Tr ", "i18n ", "T ")), (r"__MSG_(\w+)__", ("__MSG_",)))
"""Each pattern runs only on text holding one of its words: most files hold none. Kept as text and compiled
by `re`'s cache at their first use, so a process that reads no file holding their words compiles none."""


def _at(m: re.Match) -> int:
    """Where the string literal of a key match starts."""
    return next(m.start(i) for i in (1, 2, 3) if m.group(i) is not None)


def _literal(m: re.Match, first: int = 1) -> str:
    return next(g for g in m.groups()[first - 1:first + 2] if g is not None)


def code_keys(text: str, path: str = "") -> list[str]:
    """Translation keys (or gettext msgids) this code uses, sorted; namespaced forms included."""
    return sorted({key for key, _ in key_uses(text, path)})


def key_uses(text: str, path: str = "") -> list[tuple[str, int]]:
    """(key, offset of its string) for each translation key this code (at `path`) uses, namespaced forms included:
    a string counts only as a translate call's argument or a key attribute, never for being equal to one. A Rails
    view's lazy key is its full one (`t(".title")` in `app/views/books/_form.html.erb` is `books.form.title`)."""
    if "(" not in text and "=" not in text and "{{" not in text and "__MSG_" not in text:
        return []
    found: list[tuple[str, int]] = []
    swift = path.endswith(".swift")
    for m in _CALL_ARG.finditer(text):   # a call with a string first: is the callee a translate function?
        if _CALLEE.search(text, max(0, m.start() - 24), m.start()) or \
                swift and _SWIFTUI.search(text, max(0, m.start() - 30), m.start()):
            found.append((_literal(m), _at(m)))
    if swift and "localized:" in text:
        found += [(_literal(m), _at(m)) for m in re.finditer(r"\bString\(localized:\s*" + _Q, text)]
    for rx, hints in _HINTS:
        if any(h in text for h in hints):
            found += [(_literal(m), _at(m)) for m in re.finditer(rx, text)]
    if path.endswith(_DOTNET) and "." in text:   # C#'s `Resources.Key`, XAML's `{x:Static p:Resources.Key}`, and
        # a form's `resources.ApplyResources(this.btnOK, "btnOK")`, which sets `btnOK.Text` from the form's `.resx`
        found += [(m.group(1), m.start(1)) for m in re.finditer(_RESOURCE, text)]
        if "ApplyResources" in text:
            found += [(m.group(1) + ".Text", m.start(1)) for m in re.finditer(r'ApplyResources\([^,()]+,\s*"([^"]+)"', text)]
    namespaces = {_literal(m) for m in re.finditer(_NAMESPACE, text)} if "Translation" in text else set()
    view = _view_scope(path)
    out = []
    for k, at in found:
        if view and k.startswith(".") and len(k) > 1:
            k = view + k
        out.append((k, at))
        if ":" in k and not k.startswith(":"):          # i18next `ns:key`
            out.append((k.split(":", 1)[1], at))
        out += [(f"{ns}.{k}", at) for ns in namespaces]  # next-intl useTranslations('ns') then t('key')
    return [(k.strip(), at) for k, at in out if k.strip()]


def _view_scope(path: str) -> str:
    """The key scope Rails gives a view's lazy look-ups: its path under `app/views/`, a partial's `_` and the
    extensions dropped (`app/views/pages/dashboard/_net_worth_chart.html.erb`: `pages.dashboard.net_worth_chart`)."""
    if not path.startswith("app/views/"):
        return ""
    folder, _, name = path[len("app/views/"):].rpartition("/")
    name = name.split(".", 1)[0].lstrip("_")
    return ".".join([*folder.split("/"), name] if folder else [name])


# ---------------------------------------------------------------- locale files

LOCALE_DIRS = frozenset({"locales", "locale", "i18n", "lang", "langs", "languages", "translations", "messages", "l10n", "intl",
                         "lproj", "_locales"})
_LOCALE_CODE = re.compile(r"^[a-z]{2,3}(?:[-_][A-Za-z]{2,4}){0,2}(?:@[a-z]+)?$")
"""A language code: `de`, `pt_BR`, `zh-Hans-CN`, gettext's and Qt's `sr@latin`."""
_PLURAL = re.compile(r"_(?:zero|one|two|few|many|other|plural)$")


def is_locale(path: str) -> bool:
    """Whether `path` looks like a translation file, by its name and folder."""
    parts = path.lower().split("/")
    name = parts[-1]
    stem, _, ext = name.rpartition(".")
    folders = set(parts[:-1])
    if ext in ("po", "pot", "arb", "strings", "xlf", "xliff", "ftl", "resx", "xcstrings"):
        return True
    if name == "strings.xml":
        return any(p == "values" or p.startswith("values-") for p in parts[:-1])
    in_dir = bool(folders & LOCALE_DIRS) or any(p.endswith(".lproj") for p in folders)
    if ext == "properties":
        return in_dir or "messages" in stem or "_" in stem and _LOCALE_CODE.match(stem.rsplit("_", 1)[-1]) is not None
    if ext in ("json", "yml", "yaml"):
        return in_dir or _LOCALE_CODE.match(stem) is not None and stem not in ("package", "tsconfig")
    if ext in ("ini", "toml"):   # gogs' `conf/locale/locale_en-US.ini`, a Hugo theme's `i18n/en.toml`
        code = _coded(stem)
        return code not in ("", *_NOT_CODES) and (in_dir or code != stem and ext == "ini")
    if ext in ("js", "ts", "mjs", "cjs", "php"):   # a translation module written as code: `locales/de.ts`,
        # `i18n/fr/index.js`, Laravel's `lang/fr/errors.php`, Qt Linguist's `lang/app_de.ts` (XML, no TypeScript)
        return in_dir and any(_LOCALE_CODE.match(p) and p not in _NOT_CODES for p in (_coded(stem), *parts[-2:-1]))
    return False


def _coded(stem: str) -> str:
    """The language code a locale file's name holds: the whole stem (`en-US`), or what follows a word and `_`
    (`locale_en-US`, `messages_de`); "" when it holds none."""
    if _LOCALE_CODE.match(stem):
        return stem
    word, _, code = stem.partition("_")
    return code if word.isalpha() and _LOCALE_CODE.match(code) else ""


_NOT_CODES = frozenset({"index", "utils", "util", "types", "type", "main", "base", "core", "lib", "src", "app", "api",
                        "test", "spec", "config", "setup", "init", "load", "i18n", "lang", "locale", "messages"})
"""Short names that look like a language code but name a module."""
_SOURCE = r"^(?:en|source|base|default|pot)(?:[-_](?:us|gb|en))?$"
"""Compiled by `re`'s cache when the ranking first asks (`rt find` never does)."""


def is_source_locale(path: str) -> bool:
    """Whether a locale file is the source (English) one, which a task worded in English edits:
    `en.json`, `en_US/translation.json`, `locales/en/common.json`, `values/strings.xml`, a `.pot`."""
    if not is_locale(path):
        return False
    parts = path.lower().split("/")
    name = parts[-1]
    if name.endswith((".pot", ".xcstrings")) or name == "strings.xml" and parts[-2:-1] == ["values"]:
        return True   # an Xcode string catalog holds every language, the source first
    if name.endswith((".xlf", ".xliff")):   # Angular's extracted `messages.xlf`; `messages.en_US.xlf` translates it
        return name.count(".") == 1
    if name.endswith(".resx"):   # .NET's `Resources.resx`; `Resources.de.resx` translates it
        culture = name[:-5].rpartition(".")[2]
        return "." not in name[:-5] or not _LOCALE_CODE.match(culture) or culture.startswith(("en-", "en_")) or culture == "en"
    stem = name.split(".", 1)[0]
    return any(re.match(_SOURCE, p) for p in (stem, _coded(stem), *parts[-3:-1])) or name.startswith(("en.", "en-", "en_"))


LANGUAGES = dict(pair.split(":") for pair in """afrikaans:af albanian:sq arabic:ar armenian:hy azerbaijani:az basque:eu
belarusian:be bengali:bn bosnian:bs bulgarian:bg burmese:my catalan:ca chinese:zh croatian:hr czech:cs danish:da dutch:nl
english:en esperanto:eo estonian:et filipino:fil finnish:fi french:fr galician:gl georgian:ka german:de greek:el gujarati:gu
hebrew:he hindi:hi hungarian:hu icelandic:is indonesian:id irish:ga italian:it japanese:ja kannada:kn kazakh:kk khmer:km
korean:ko kurdish:ku latvian:lv lithuanian:lt luxembourgish:lb macedonian:mk malay:ms malayalam:ml marathi:mr mongolian:mn
nepali:ne norwegian:nb occitan:oc persian:fa polish:pl portuguese:pt punjabi:pa romanian:ro russian:ru serbian:sr
sinhala:si slovak:sk slovenian:sl spanish:es swahili:sw swedish:sv tamil:ta telugu:te thai:th turkish:tr ukrainian:uk
urdu:ur uzbek:uz vietnamese:vi welsh:cy""".split())
"""A language's English name -> its ISO 639 code, as translation services name a language ("Translated using Weblate
(German)") and people do ("update the Chinese translation")."""
_SAME = {"nb": ("no", "nn"), "he": ("iw",), "id": ("in",), "fil": ("tl",)}
"""Codes of one language in other spellings (Norwegian Bokmål's `nb`, `no`; Hebrew's old `iw`)."""
_SCRIPTS = {"hans": ("cn", "sg"), "hant": ("tw", "hk", "mo")}
"""Chinese written simplified (`zh-Hans`, `zh_CN`) or traditional (`zh-Hant`, `zh-TW`)."""


def language_of(path: str) -> tuple[str, str]:
    """A locale file's language and region or script, lower-case (`de`, ""; `pt`, `br`; `zh`, `hans`), from its name
    (`pt-BR.json`, `locale_en-GB.ini`, `messages.de.xlf`) or its folder's (`zh_CN/LC_MESSAGES/`, `values-de/`,
    `de.lproj/`); ("", "") when it names none."""
    parts = path.lower().split("/")
    names = parts[-1].split(".")[:-1][::-1] + [p.removeprefix("values-").removesuffix(".lproj") for p in parts[-3:-1][::-1]]
    for name in names:
        lang, *rest = _coded(name).replace("_", "-").split("-")
        if lang in _CODES and lang not in _NOT_CODES:
            region = next((r for r in rest if r not in ("latn", "cyrl")), "")
            return lang, region[1:] if len(region) == 3 and region[0] == "r" else region   # Android's `values-zh-rCN`
    return "", ""


def same_language(file: tuple[str, str], named: tuple[str, str]) -> bool:
    """Whether a locale file's language and region (`language_of`) are those a task names: the language's, and the
    region's where both say one (`zh-Hans` is `zh_CN`)."""
    lang, region = file
    want, where = named
    if lang != want and lang not in _SAME.get(want, ()):
        return False
    if not where or not region:
        return True
    return region == where or region in _SCRIPTS.get(where, ()) or where in _SCRIPTS.get(region, ())


_CODES = frozenset(LANGUAGES.values()) | {c for alts in _SAME.values() for c in alts}


def regional_copy(path: str, paths) -> bool:
    """Whether a source locale file is a regional English one, named so by its file (`en_GB.json`, `en-US.json`)
    or its folder (`en_GB/translation.json`), beside the source: a plain `en` one, else a US English one. The
    regional file is a copy kept in step, a translation."""
    folder, _, name = path.rpartition("/")
    stem, _, ext = name.partition(".")
    code = _coded(stem)
    if code[:3].lower() in ("en_", "en-"):   # `en_GB.json`, gogs' `locale_en-GB.ini`
        variant, head, tail = code, f"{folder}/{stem[:len(stem) - len(code)]}", f".{ext}"
    else:
        parent, _, variant = folder.rpartition("/")
        if variant[:3].lower() not in ("en_", "en-"):
            return False
        head, tail = f"{parent}/", f"/{name}"
    alts = ["en"] + ([] if variant[3:].lower() == "us" else [variant[:3] + "US", variant[:3] + "us"])
    return any(f"{head}{alt}{tail}".lstrip("/") in paths for alt in alts)


def entries(path: str, text: str, keep=None) -> list[tuple[str, str, int]]:
    """(key, translated text, line) of a locale file, in file order; [] when it cannot be read as one.
    With `keep`, only the entries whose text it accepts: a file of 2,000 keys where one matches looks
    for the line of that one only, not of every key."""
    return Locale(path, text).entries(keep)


class Locale:
    """A locale file read from its text once, for `entries`: a long-lived process keeps one per file (in
    `rt find`'s memo, `index.Derived`), so its next look-up parses nothing. For JSON, the line of each key is
    looked for only as far as a look-up has asked, and remembered: each key of the document, in order, from
    the line of the one before."""

    def __init__(self, path: str, text: str):
        ext = path.rsplit(".", 1)[-1].lower()
        self.text = text
        self.keys: list[tuple[str, str | None, str]] | None = None   # JSON: (key as written, dotted path for a text, text)
        self.lines: list[int] = []   # JSON: the line of each of the first keys, as far as found
        self.cursor = (0, 0)   # JSON: the 0-based line the last key found is on, and where its key ends (in the
        # text; in that line when read line by line): the next key is looked for after it, not on its line
        # again (`"token": {... "update_failure": ...}, "update_failure": ...` on two lines)
        self.ends: list[int] | None = None   # JSON: `line_ends(text)`, once a line is looked for
        self.split: list[str] | None = None   # JSON holding a line break json.dumps keeps (U+0085, U+2028, U+2029): its lines
        self.lows: tuple[str, list[int], list[int]] | None = None   # JSON: for `_holding`, once asked
        self.out: list[tuple[str, str, int]] = []   # the other formats: every entry
        self.units = False   # XLIFF or Qt's XML not read yet: a look-up with a word reads only the units holding it
        self.held: dict[str, list[tuple[str, str, int]]] = {}   # XLIFF or Qt: word -> the entries of its units
        self.ini = ""   # INI or TOML not read yet: a look-up with a word reads only the lines holding it
        self.qt = qt_linguist(path, text)   # its units are Qt's messages, not XLIFF's
        if ext in ("json", "arb"):
            self.keys = _json_keys(text, ext == "arb", "_locales/" in path)
        elif ext == "xcstrings":
            self.keys = _catalog_keys(text)
        elif ext in ("po", "pot"):
            self.out = _po_entries(text)
        elif ext in ("yml", "yaml"):
            self.out = _yaml_entries(text)
        elif ext == "properties":
            self.out = _properties_entries(text)
        elif ext in ("xlf", "xliff"):
            self.units = True
        elif ext == "ftl":
            self.out = _fluent_entries(text)
        elif ext == "resx":
            self.out = _resx_entries(text)
        elif self.qt:
            self.units = True
        elif ext in ("ini", "toml"):
            self.ini = ext
        elif ext == "php":
            self.out = _php_entries(text, path.rsplit("/", 1)[-1][:-4])
        elif ext == "xml":
            self.out = [(m.group(1), _xml_text(m.group(2)), text.count("\n", 0, m.start()) + 1)
                        for m in re.finditer(r'<string\b[^>]*\bname="([^"]+)"[^>]*>(.*?)</string>', text, re.DOTALL)]
        elif ext == "strings":
            self.out = [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1)
                        for m in re.finditer(r'^\s*"((?:[^"\\]|\\.)*)"\s*=\s*"((?:[^"\\]|\\.)*)"\s*;', text, re.MULTILINE)]

    @property
    def parsed(self) -> bool:
        """Whether the file was read as a locale file with entries (invalid JSON is not)."""
        if self.units:
            return "<message" in self.text if self.qt else "<trans-unit" in self.text or "<unit" in self.text
        if self.ini:
            return "=" in self.text
        return bool(self.keys if self.keys is not None else self.out)

    def entries(self, keep=None, word: str = "") -> list[tuple[str, str, int]]:
        """The entries whose text `keep` accepts (all without it). `word`: what the lower case of every text
        `keep` accepts holds (a query's first word); then only the texts holding it are tried, found in one
        search over them all (JSON)."""
        keys = self.keys
        if self.units and word.isascii() and word and keep is not None:   # `İ`'s lower case is no case of it
            return [e for e in self._units_holding(word) if keep(e[1])]
        if self.ini and word.isascii() and word and keep is not None:
            return [e for e in _ini_entries(self.text, self.ini == "toml", word) if keep(e[1])]
        if self.ini:
            self.out, self.ini = _ini_entries(self.text, self.ini == "toml"), ""
        if self.units:
            self.out, self.units = self._read_units(self.text), False
        if keys is None:
            return self.out if keep is None else [e for e in self.out if keep(e[1])]
        if word and "\0" not in word and keep is not None:
            wanted = [i for i in self._holding(word) if keep(keys[i][2])]
        else:
            wanted = [i for i, (_, key, v) in enumerate(keys) if key is not None and (keep is None or keep(v))]
        if not wanted:
            return []
        self._find_lines(wanted[-1] + 1)
        return [(keys[i][1], keys[i][2], self.lines[i]) for i in wanted]

    def _read_units(self, text: str, line: int = 1) -> list[tuple[str, str, int]]:
        return (_qt_entries if self.qt else _xliff_entries)(text, line)

    def _units_holding(self, word: str) -> list[tuple[str, str, int]]:
        """The entries of the XLIFF units whose text holds `word` in any case, reading only those: a file of
        Angular's is a megabyte of XML for a few hits. `word` is ASCII: found in the text as it is, in any case
        (a lower case longer than its letter, Turkish `İ`, would move the places in a lower-cased copy). Kept per
        word: a look-up asks for a file's units more than once."""
        if word in self.held:
            return self.held[word]
        text = self.text
        tag = "message" if self.qt else "trans-unit" if "<trans-unit" in text else "unit"   # Qt's; XLIFF 1.2's, 2.0's
        spans: dict[int, int] = {}
        low = text.lower()
        if len(low) == len(text):   # every place the same: str.find, in C
            find = low.find
        else:
            found = re.compile(re.escape(word), re.IGNORECASE)

            def find(word: str, at: int) -> int:
                m = found.search(text, at)
                return -1 if m is None else m.start()
        at = 0
        while (hit := find(word, at)) != -1:
            start, end = text.rfind(f"<{tag}", 0, hit), text.find(f"</{tag}>", hit + len(word))
            if end == -1:
                break
            if start != -1:   # the word in a unit, not before the first one
                spans[start] = text.find(">", end) + 1
            at = end
        out, line, pos = [], 1, 0
        for start, end in sorted(spans.items()):
            line += text.count("\n", pos, start)
            pos = start
            out += self._read_units(text[start:end], line)
        if len(self.held) >= 8:   # a hook server keeps this object through a session's look-ups: the last words only
            del self.held[next(iter(self.held))]
        self.held[word] = out
        return out

    def _holding(self, word: str) -> list[int]:
        """The index in `keys` of each text whose lower case holds `word` (which holds no NUL), in order."""
        if self.lows is None:
            texts = [i for i, (_, key, _) in enumerate(self.keys) if key is not None]
            lows = [self.keys[i][2].lower() for i in texts]
            self.lows = ("\0".join(lows), [0, *accumulate(len(low) + 1 for low in lows)], texts)
        joined, starts, texts = self.lows
        out = []
        at = joined.find(word)
        while at != -1:
            j = bisect_right(starts, at) - 1
            out.append(texts[j])
            at = joined.find(word, starts[j + 1])
        return out

    def _find_lines(self, upto: int) -> None:
        """The line of each key before `upto`; the texts are filtered first, so the lines are looked for only
        up to the last entry kept."""
        text, keys, found = self.text, self.keys, self.lines
        cursor, after = self.cursor
        if len(found) >= upto:
            return
        if self.ends is None:
            self.split = text.splitlines() if any(c in text for c in "\x85\u2028\u2029") else None
            self.ends = line_ends(text)
        lines, ends = self.split, self.ends
        for i in range(len(found), upto):
            k = keys[i][0]
            if k.isascii() and k.isprintable() and '"' not in k and "\\" not in k:
                needles: tuple[str, ...] = (f'"{k}"',)   # what json.dumps writes for it, either way
            else:
                needles = (json.dumps(k, ensure_ascii=False), json.dumps(k))
            if lines is not None:   # a key may hold a line break json.dumps leaves as it is: line by line
                for j in range(cursor, len(ends)):
                    hit = _first(lines[j], needles, after if j == cursor else 0)
                    if hit:
                        cursor, after = j, hit
                        break
            else:   # the first needle after the last key, in one search: no needle holds a line break
                hit = _first(text, needles, after)
                if hit:
                    cursor, after = bisect_right(ends, hit - 1), hit
            found.append(cursor + 1)
        self.cursor = cursor, after


def _first(text: str, needles: tuple[str, ...], start: int) -> int:
    """Where the first of `needles` found in `text` from `start` on ends; 0 when none is there."""
    at, n = min(((text.find(n, start), n) for n in needles), key=lambda x: (x[0] == -1, x[0]))
    return 0 if at == -1 else at + len(n)


def _json_keys(text: str, skip_meta: bool, messages: bool = False) -> list[tuple[str, str | None, str]]:
    """Every key of the document in order: (the key as written, its dotted path for a string leaf, the text);
    [] for invalid JSON (the file is still searched as text) or a document that is no object. With `messages`
    (a WebExtension's `_locales/`), `{"name": {"message": "Text", "description": ...}}` is the text of `name`."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    keys: list[tuple[str, str | None, str]] = []

    def walk(node: dict, prefix: str) -> None:
        for k, v in node.items():
            if skip_meta and k.startswith("@"):
                continue
            key = f"{prefix}.{k}" if prefix else k
            if messages and isinstance(v, dict) and isinstance(v.get("message"), str):
                keys.extend([(k, None, ""), ("message", key, v["message"])])   # the line of its text, not of the name
            elif isinstance(v, dict):
                keys.append((k, None, ""))
                walk(v, key)
            else:
                keys.append((k, key, v) if isinstance(v, str) else (k, None, ""))
    walk(data, "")
    return keys


def _catalog_keys(text: str) -> list[tuple[str, str | None, str]]:
    """An Xcode string catalog's keys as `_json_keys` gives them, each string's only: its text is the source
    language's value (a plural's `other` form), found at that value's line, else the key itself (SwiftUI's
    `Text("Welcome back")` keys it by its English text)."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    strings = data.get("strings") if isinstance(data, dict) else None
    if not isinstance(strings, dict):
        return []
    source = data.get("sourceLanguage", "en")
    keys: list[tuple[str, str | None, str]] = [("strings", None, "")]
    for key, entry in strings.items():
        unit = entry.get("localizations", {}).get(source) if isinstance(entry, dict) else None
        steps = ["localizations", source]
        if isinstance(unit, dict) and "variations" in unit:
            forms = unit["variations"].get("plural") or {}
            form = "other" if "other" in forms else next(iter(forms), None)
            unit = forms.get(form) if form else None
            steps += ["variations", "plural", form]
        value = unit.get("stringUnit", {}).get("value") if isinstance(unit, dict) else None
        if isinstance(value, str):
            keys += [(key, None, "")] + [(s, None, "") for s in steps + ["stringUnit"]] + [("value", key, value)]
        else:
            keys.append((key, key, key))
    return keys


_PO_NOTES = re.compile(r"^#(?!\.)[^\n]*\n?", re.MULTILINE)
_PO_NOTES_BYTES = re.compile(_PO_NOTES.pattern.encode(), re.MULTILINE)


def ranked_text(lang: str, text):
    """The part of a file's text (str or bytes) the ranking counts words in: a gettext catalogue's without its
    comment lines (`#:` source references, `#,` flags, `#|` old msgids, the translators' header) but the
    developers' `#.` notes. wagtail's English `django.po` files name the source paths of every message, and their
    path words ("api", "views", "forms") lifted them over the code for tasks saying no interface text."""
    if lang != "gettext":
        return text
    return _PO_NOTES.sub("", text) if isinstance(text, str) else _PO_NOTES_BYTES.sub(b"", text)


def _po_entries(text: str) -> list[tuple[str, str, int]]:
    out: list[tuple[str, str, int]] = []
    msgid, msgstr, field_name, start = None, "", None, 0

    def flush() -> None:
        if msgid:   # the header entry has an empty msgid
            out.append((msgid, msgstr or msgid, start))

    for i, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        m = re.match(r'(msgid|msgstr(?:\[\d+\])?|msgctxt|msgid_plural)\s+"(.*)"$', s)
        if m:
            if m.group(1) == "msgid":
                flush()
                msgid, msgstr, start = _unescape(m.group(2)), "", i
            elif m.group(1).startswith("msgstr") and not msgstr:
                msgstr = _unescape(m.group(2))
            field_name = m.group(1)
        elif s.startswith('"') and s.endswith('"') and len(s) >= 2:
            if field_name == "msgid":
                msgid = (msgid or "") + _unescape(s[1:-1])
            elif field_name and field_name.startswith("msgstr"):
                msgstr += _unescape(s[1:-1])
    flush()
    return out


def _yaml_entries(text: str) -> list[tuple[str, str, int]]:
    """Nested `key: value` maps of plain scalars, the part of YAML locale files use; the top key is
    dropped when it is a locale code (Rails `en:`)."""
    out: list[tuple[str, str, int]] = []
    stack: list[tuple[int, str]] = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith(("#", "-", "---")):
            continue
        m = re.match(r"^(\s*)(\"[^\"]*\"|'[^']*'|[^:#]+?)\s*:(?:\s+(.*))?$", line)
        if not m:
            continue
        indent, key, value = len(m.group(1)), m.group(2).strip("\"'"), (m.group(3) or "").strip()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if not value or value in ("|", ">", "|-", ">-"):
            stack.append((indent, key))
            continue
        if value[:1] in ("'", '"') and value[-1:] == value[:1] and len(value) >= 2:
            value = value[1:-1]
        else:
            value = re.sub(r"\s+#.*$", "", value)
        out.append((".".join([k for _, k in stack] + [key]), value, i))
    if out and all("." in k for k, _, _ in out):
        tops = {k.split(".", 1)[0] for k, _, _ in out}
        if len(tops) == 1 and _LOCALE_CODE.match(next(iter(tops))):
            out = [(k.split(".", 1)[1], v, ln) for k, v, ln in out]
    return out


_PHP_STR = r"'((?:[^'\\\n]|\\.)*)'" + r'|"((?:[^"\\\n]|\\.)*)"'
_PHP_PAIR = rf"^\s*(?:{_PHP_STR})\s*=>\s*(?:(\[|array\s*\()|(?:{_PHP_STR})\s*,?\s*(?://.*)?$)"
"""A line of a Laravel translation array: `'key' => 'Text',` or `'group' => [`; compiled by `re`'s cache when a
PHP locale file is first read."""


def _fluent_entries(text: str) -> list[tuple[str, str, int]]:
    """Project Fluent's `key = Text` messages (Rust's `fl!("key")`), their `.attribute = Text` as `key.attribute`,
    and a value continued on indented lines, joined by spaces."""
    out: list[tuple[str, str, int]] = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.match(r"^(-?[A-Za-z][\w-]*)\s*=\s?(.*)$", line)
        if m:
            out.append((m.group(1), m.group(2).strip(), i))
            continue
        m = re.match(r"^\s+\.([A-Za-z][\w-]*)\s*=\s?(.*)$", line)
        if m and out:
            out.append((out[-1][0].split(".", 1)[0] + "." + m.group(1), m.group(2).strip(), i))
        elif line[:1].isspace() and out:   # a value continued (a select expression's variants among it)
            key, value, at = out[-1]
            out[-1] = (key, f"{value} {line.strip()}".strip(), at)
    return out


_INI_PAIR = r"""^\s*([^\s=;#\[][^=]*?)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|`([^`]*)`|'([^']*)'|(.*?))\s*$"""
"""`key = Text`, the text bare or quoted; compiled by `re`'s cache when such a file is first read."""
_FORMS = frozenset({"zero", "one", "two", "few", "many", "other"})


def _ini_entries(text: str, toml: bool, word: str = "") -> list[tuple[str, str, int]]:
    """`[section]` then `key = Text` (gogs' and Gitea's INI, asked for as `section.key`); in TOML (Hugo's `i18n/`)
    a section's plural forms (`[readMore]` then `other = "Read more"`) are the section's own text. With `word`
    (lower case, ASCII), only the lines holding it are read: gogs' 31 files of 1,300 lines for one look-up."""
    out: list[tuple[str, str, int]] = []
    for i, line, section in _ini_lines(text, word):
        m = re.match(_INI_PAIR, line)
        if not m or line.lstrip()[:1] in (";", "#", "["):
            continue
        key = m.group(1).strip("\"'")
        value = next(g for g in m.groups()[1:] if g is not None)
        if m.group(2) is not None:
            value = _unescape(value)
        if toml and section and key in _FORMS:
            if any(k == section for k, _, _ in out[-len(_FORMS):]):
                continue   # the text is the first form's
            key = ""
        out.append((f"{section}.{key}".strip(".") if section else key, value, i))
    return out


def _ini_lines(text: str, word: str):
    """(number, line, its section) of each line of an INI or TOML text; with `word`, of the lines holding it only."""
    low = text.lower() if word else ""
    if not word or len(low) != len(text):   # every line: a lower case of another length moves the places
        section = ""
        for i, line in enumerate(text.split("\n"), 1):
            s = line.strip()
            if s[:1] == "[" and s.endswith("]"):
                section = s.strip("[] \t").strip("\"'")
            yield i, line.rstrip("\r"), section
        return
    heads = [(m.start(), m.group(1).strip(" \t\"'")) for m in re.finditer(r"(?m)^[ \t]*\[([^\]\n]*)\][ \t]*\r?$", text)]
    starts = [at for at, _ in heads]
    line, pos, at = 1, 0, low.find(word)
    while at != -1:
        begin, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
        end = len(text) if end == -1 else end
        line += text.count("\n", pos, begin)
        pos = begin
        j = bisect_right(starts, begin) - 1
        yield line, text[begin:end].rstrip("\r"), heads[j][1] if j >= 0 else ""
        at = low.find(word, end)


def _resx_entries(text: str) -> list[tuple[str, str, int]]:
    """.NET's `<data name="Key" xml:space="preserve"><value>Text</value></data>`, at the line of its text; a
    commented sample, a file reference, a typed value (an image, a size) and the form designer's `>>` records
    are no text."""
    text = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.DOTALL)
    out: list[tuple[str, str, int]] = []
    line, pos = 1, 0
    for m in re.finditer(r'<data\s+name="([^"]+)"([^>]*)>\s*<value>(.*?)</value>', text, re.DOTALL):
        name = _plain(m.group(1))
        if "type=" not in m.group(2) and not name.startswith(">>"):   # `>>btnOK.Name`: the designer's own
            line += text.count("\n", pos, m.start(3))
            pos = m.start(3)
            out.append((name, _plain(m.group(3)), line))
    return out


def qt_linguist(path: str, text: str) -> bool:
    """Whether a `.ts` file is Qt Linguist's XML (`<TS version="2.1">`), not TypeScript."""
    return path.endswith(".ts") and "<TS" in text[:400]


def _qt_entries(text: str, line: int = 1) -> list[tuple[str, str, int]]:
    """Qt Linguist's `<message><source>Text</source><translation>Text</translation></message>`, keyed by the
    English source text the code passes to `tr()`; a message not translated yet, or translated as the same
    English text (`qbittorrent_en_GB.ts`), has no text of its own: its key alone."""
    out: list[tuple[str, str, int]] = []
    pos = 0   # lines counted from the last message on, not from the text's start each time
    for m in re.finditer(r"<message\b[^>]*>\s*(?:<location\b[^>]*>\s*)*<source>(.*?)</source>(.*?)</message>", text,
                         re.DOTALL):
        key = _plain(m.group(1))
        done = re.search(r"<translation\b[^>]*>(.*?)</translation>", m.group(2), re.DOTALL)
        value = _plain(done.group(1)) if done else ""
        at = m.start(2) + done.start(1) if done else m.start(1)
        line += text.count("\n", pos, at)
        pos = at
        out.append((key, "" if value == key else value, line))
    return out


def _php_entries(text: str, name: str) -> list[tuple[str, str, int]]:
    """Laravel's `return ['key' => 'Text', 'group' => ['key' => ...]];`, a pair a line, keyed as its code asks for
    them: the file's name first (`__('errors.permission')` reads `lang/en/errors.php`)."""
    out: list[tuple[str, str, int]] = []
    stack: list[str] = [name]
    for i, line in enumerate(text.splitlines(), 1):
        m = re.match(_PHP_PAIR, line)
        if m:
            key = re.sub(r"\\(.)", r"\1", m.group(1) if m.group(1) is not None else m.group(2))
            if m.group(3):
                stack.append(key)
            else:
                value = m.group(4) if m.group(4) is not None else m.group(5)
                out.append((".".join(stack + [key]), re.sub(r"\\(.)", r"\1", value), i))
        elif len(stack) > 1 and re.match(r"^\s*[\])],?\s*$", line):
            stack.pop()
    return out


def _properties_entries(text: str) -> list[tuple[str, str, int]]:
    out: list[tuple[str, str, int]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        start, line = i + 1, lines[i].strip()
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line[:-1] + lines[i].strip()
        i += 1
        if not line or line[0] in "#!":
            continue
        m = re.match(r"((?:[^=:\s\\]|\\.)+)\s*[=:\s]\s*(.*)$", line)
        if m:
            out.append((m.group(1), _unescape(m.group(2)), start))
    return out


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s)


_XLIFF_UNIT = r'<(trans-unit|unit)\b[^>]*?\bid="([^"]*)"[^>]*>(.*?)</\1>'


def _xliff_entries(text: str, line: int = 1) -> list[tuple[str, str, int]]:
    """XLIFF 1.2's `<trans-unit id>` and 2.0's `<unit id>`: each one's translation (`<target>`), else its source
    text, at the line where that text starts (`text` starting at `line`). Angular extracts its templates' texts
    into `messages.xlf`."""
    out: list[tuple[str, str, int]] = []
    pos = 0   # lines counted from the last entry on, not from the text's start each time
    for m in re.finditer(_XLIFF_UNIT, text, re.DOTALL):
        inner = m.group(3)
        part = re.search(r"<target\b[^>]*>(.*?)</target>", inner, re.DOTALL) or \
            re.search(r"<source\b[^>]*>(.*?)</source>", inner, re.DOTALL)
        if part:
            at = m.start(3) + part.start(1)
            line += text.count("\n", pos, at)
            pos = at
            value = part.group(1)
            out.append((m.group(2), " ".join(_plain(value).split()), line))
    return out


def _plain(s: str) -> str:
    """`_xml_text`, without its passes over a text holding no markup or entity (most)."""
    return _xml_text(s) if "<" in s or "&" in s else s


def _xml_text(s: str) -> str:
    s = re.sub(r"<!\[CDATA\[(.*?)\]\]>", r"\1", s, flags=re.DOTALL)
    s = re.sub(r"<[^>]+>", "", s).replace("\\'", "'").replace('\\"', '"')
    return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&apos;", "'").replace("&amp;", "&")


def base_key(key: str) -> str:
    """`items_one` -> `items`: i18next plural forms are used in code by their base key."""
    return _PLURAL.sub("", key)

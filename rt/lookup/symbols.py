"""Precise look-ups instead of whole-file reads: `rt symbol`, `rt refs`, `rt slice`, `rt outline`.

All four answer from the index (`rt/index/index.py`), reading at most the few files they print lines of.
"""
from __future__ import annotations

import re
from bisect import bisect_right

from rt.core import (
    ExitCode,
    PathError,
    Result,
    UsageError,
    closest_paths,
    command_arg,
    counted,
    folders_up,
    is_test,
    line_ends,
    lines,
    read_text,
    shown,
    to_rel,
)
from rt.index.index import Index, load
from rt.index.model import Definition

MAX_REF_FILES = 20
MAX_DEFINERS = 8
"""Up to this many defining files, `rt refs` finds every importer; beyond, only among the files it shows."""
MAX_LINE = 400
MAX_DEFS = 50
OUTLINE_HINT = 150
"""Files longer than this are read through `rt outline` then `rt slice`, not whole."""
FOLDER_FILES = 100
FOLDER_NAMES = 6
"""`rt outline FOLDER` lists the folder's own files, this many at most (`--json` all), each with its first
FOLDER_NAMES top-level definitions, and its folders with their file counts: a folder's map for the cost of a listing."""


def _qualified(d: Definition) -> str:
    return f"{d.parent}.{d.name}" if d.parent else d.name


def find_definitions(idx: Index, name: str) -> list[tuple[str, Definition]]:
    """Definitions of `name`; `Parent.name` narrows to members of that class or type."""
    if "." in name.strip("."):
        parent, _, leaf = name.rpartition(".")
        return [(p, d) for p, d in idx.definitions(leaf) if d.parent == parent or d.parent.endswith("." + parent)]
    return idx.definitions(name)


def _nowhere(idx: Index, name: str, what: str) -> Result:
    near = _named_like(idx, name)
    text = (f"{name}: {what} in the {idx.meta['files']} indexed files; "
            + (f"did you mean {', '.join(near)}? " if near else "")
            + f"`rt find \"{name}\"` searches paths, translations and text")
    return Result(text, {"name": name, "found": False, "closest": near}, ExitCode.FINDING)


NEAR_FILES = 200
"""The most files whose definitions a miss compares with the name asked for (`_named_like`)."""


def _named_like(idx: Index, name: str) -> list[str]:
    """Defined names like `name` (another case, a misspelling), found through the ranking's postings of the
    words in definition names: the files defining names with its rarest words, whose definitions `_near`
    compares. Only a miss pays for it."""
    from rt.index.terms import keys_of_word
    keys = {k for part in name.split(".") if part   # `Cart.totl`: the files defining `Cart` hold `Cart.total`
            for k in (*keys_of_word(part), part.lower())}   # `usestores`: `useStores` is kept whole, never stemmed
    lists = sorted((p for p in (idx.postings("nterms", k) for k in sorted(keys)) if p), key=len)
    numbers: dict[int, None] = {}   # the files of the rarest words first, NEAR_FILES at most
    for postings in lists:
        numbers.update((v if type(v) is int else v[0], None) for v in postings[:NEAR_FILES - len(numbers)])
        if len(numbers) >= NEAR_FILES:
            break
    qualified = "." in name.strip(".")   # `Class.method` asked: the same form back; a bare name: bare names
    names = sorted({_qualified(d) if qualified else d.name
                    for n in numbers if (e := idx.entry(idx.path_of(n))) for d in e.defs})
    return _near(name, names)


# ---------------------------------------------------------------- symbol

def args_symbol(p) -> None:
    p.add_argument("name", help="a function, class, method, type or constant name; Class.method narrows")


def cmd_symbol(ctx, args) -> Result:
    if not args.name.strip(" ."):
        raise UsageError("give the name to look up, for example: rt symbol render")
    idx = load(ctx)
    hits = find_definitions(idx, args.name)
    if not hits:
        return _nowhere(idx, args.name, "no definition")
    hits = sorted(hits, key=lambda h: is_test(h[0]))   # the product's definitions first, each in path order
    rows = [f"{shown(p)}:{d.start}-{d.end}  {d.kind} {_qualified(d)}  {d.signature}" for p, d in hits[:MAX_DEFS]]
    if len(hits) > MAX_DEFS:
        rows.append(f"... and {len(hits) - MAX_DEFS} more definitions")
    return Result("\n".join(rows), {"name": args.name, "found": True, "definitions": [
        {"path": p, "name": d.name, "kind": d.kind, "start": d.start, "end": d.end, "signature": d.signature,
         "parent": d.parent} for p, d in hits]})


def _near(wanted: str, names: list[str], n: int = 3) -> list[str]:
    """The definitions named like `wanted`, best first: the same name in another case, else names close to its
    last part (a misspelling; `Class.method` compared by `method`)."""
    import difflib
    low = wanted.lower()
    same = [q for q in names if low in (q.lower(), q.rpartition(".")[2].lower())]
    if same:
        return same[:n]
    by_leaf: dict[str, list[str]] = {}
    for q in names:
        by_leaf.setdefault(q.rpartition(".")[2].lower(), []).append(q)
    picks: list[str] = []
    for leaf in difflib.get_close_matches(low.rpartition(".")[2], list(by_leaf), n=n, cutoff=0.6):
        picks += by_leaf[leaf]
    return picks[:n]


# ---------------------------------------------------------------- refs

def args_refs(p) -> None:
    p.add_argument("name", help="an identifier: its uses are listed file by file")


def cmd_refs(ctx, args) -> Result:
    if not args.name.strip(" ."):
        raise UsageError("give the name to look up, for example: rt refs render")
    idx = load(ctx)
    name = args.name.rpartition(".")[2] if "." in args.name.strip(".") else args.name
    users = idx.users(name)
    if not users:
        return _nowhere(idx, args.name, "used nowhere")
    defining = sorted({p for p, _ in find_definitions(idx, args.name)})
    if len(defining) <= MAX_DEFINERS:
        importing = {imp for p in defining for imp in idx.importers(p)} & set(users)
        note = f", {len(importing - set(defining))} import its definition" if defining else ""
    else:   # defined all over (`render`, `get`): look at the imports of the files shown only
        definers = set(defining)
        visible = [p for p in users if p not in definers][:MAX_REF_FILES]
        importing = {p for p in visible if definers.intersection(idx.imports_of(p))}
        note = f", defined in {len(defining)} files (imports marked among the files shown)"
    rank = {p: 1 for p in importing} | {p: 0 for p in defining}
    ordered = sorted(users, key=lambda p: (rank.get(p, 2), is_test(p), p))   # a test's uses after the product's
    rows, files = [], []
    for path in ordered[:MAX_REF_FILES]:
        mark = "defines" if rank.get(path) == 0 else "imports" if rank.get(path) == 1 else ""
        text = read_text(ctx.repo, path) or ""
        lines = lines_using(name, text)
        listed = ", ".join(map(str, lines[:12])) + (f", ... ({len(lines)} lines)" if len(lines) > 12 else "")
        rows.append(f"{shown(path)}{f' ({mark} it)' if mark else ''}: {listed}")   # "defines 258, 298" read as two definitions
        files.append({"path": path, "mark": mark, "lines": lines})
    more = len(ordered) - len(files)
    head = f"{name}: used in {counted(len(ordered), 'file')}{note}"
    tail = [f"... and {more} more files (`rt refs {name} --json` lists them all)"] if more else []
    return Result("\n".join([head] + rows + tail), {"name": name, "found": True, "files": files,
                                                    "more": ordered[len(files):], "total": len(ordered),
                                                    "defined_in": defining, "importers": sorted(importing)})


def _is_word(c: str) -> bool:
    return c.isalnum() or c in "_$"


def lines_using(name: str, text: str) -> list[int]:
    """Line numbers (1-based, as `rt slice` counts them) where `name` stands as a whole word. A plain
    substring search with the word test after it: many times faster on long files than a regex with
    look-arounds, which cannot skip ahead to the name."""
    hits = []
    at = text.find(name)
    while at != -1:
        end = at + len(name)
        if (at == 0 or not _is_word(text[at - 1])) and (end == len(text) or not _is_word(text[end])):
            hits.append(at)
        at = text.find(name, at + 1)
    if not hits:
        return []
    ends = line_ends(text)
    return sorted({bisect_right(ends, at) + 1 for at in hits})


# ---------------------------------------------------------------- slice

def args_slice(p) -> None:
    p.add_argument("file", help="a file inside the repository")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--lines", metavar="A:B", help="line range, 1-based and inclusive (A: or :B for open ends; A-B too)")
    which.add_argument("--symbol", metavar="NAME", help="the range of a definition in that file (Class.method narrows)")
    p.add_argument("--budget", type=int, metavar="TOKENS", help="cut the slice to fit a context window of this many tokens")


def _in_folder(rel: str, paths: list[str]) -> tuple[str, list[str]]:
    """The folder `rel` as a prefix ("" for the repository's root), and the paths under it without it, sorted."""
    prefix = "" if rel in ("", ".") else rel.rstrip("/") + "/"
    return prefix, sorted(p[len(prefix):] for p in paths if p.startswith(prefix))


def _not_a_file(ctx, user_path: str, rel: str, paths: list[str], what: str) -> PathError:
    """The error for a path that names no file to read: for a folder, its indexed files (a look-up takes one);
    else the paths closest to it."""
    prefix, inside = _in_folder(rel, paths)
    if inside:
        return PathError(f"{user_path}: a folder of {counted(len(inside), 'indexed file')}; give one of them, "
                         f"for example {', '.join(shown(prefix + p) for p in inside[:3])}")
    if (ctx.repo.root / rel).is_dir():
        return PathError(f"{user_path}: a folder holding no file rt indexes")
    folders = folders_up(paths) - {"."}
    if user_path.endswith("/"):   # a folder meant: the folders like it, not files
        near = [f"{f}/" for f in closest_paths(rel.rstrip("/"), sorted(folders))]
        return PathError(f"{user_path}: no such folder" + (f"; closest: {', '.join(map(shown, near))}" if near else ""))
    if "." not in rel.rsplit("/", 1)[-1]:   # no extension: a folder, as likely as a file
        near = [f"{p}/" if p in folders else p for p in closest_paths(rel, paths + sorted(folders))]
        return PathError(f"{user_path}: no such file or folder" + (f"; closest: {', '.join(map(shown, near))}" if near else ""))
    near = closest_paths(rel, paths)
    return PathError(f"{user_path}: {what}" + (f"; closest: {', '.join(map(shown, near))}" if near else ""))


def _file_lines(ctx, user_path: str) -> tuple[str, list[str]]:
    rel = to_rel(ctx.repo, user_path)
    path = ctx.repo.root / rel
    if not path.is_file():
        raise _not_a_file(ctx, user_path, rel, load(ctx).paths, "no such file")
    text = read_text(ctx.repo, rel)
    if text is None:
        raise UsageError(f"{rel}: binary, too large or unreadable; rt only slices text files")
    return rel, lines(text)


def parse_range(spec: str, total: int) -> tuple[int, int, int]:
    """(first, last, last asked for) of `A:B`, `A:`, `:B` or `A`, or `A-B` as `rt symbol` and `rt outline` print
    ranges; the end is cut to the file's length."""
    m = re.fullmatch(r"\s*([0-9]*)\s*[:-]\s*([0-9]*)\s*", spec)   # ASCII digits: `\d` takes ١ and ٣ too
    if m:
        a, b = _number(m[1]) if m[1] else 1, _number(m[2]) if m[2] else total
    elif re.fullmatch(r"\s*[0-9]+\s*", spec):
        a = b = _number(spec.strip())
    else:
        raise UsageError(f"--lines {spec!r}: give A:B, for example --lines 10:40")
    if a > total:   # first: `--lines 50:10` of a 5-line file is past its end before it is a backward range
        raise UsageError(f"--lines {spec}: beyond the end, the file has {counted(total, 'line')}")
    if a < 1 or b < a:
        raise UsageError(f"--lines {spec}: the range must start at 1 or later and not end before it starts")
    return a, min(b, total), b


def _number(digits: str) -> int:
    """A line number as given; one of thousands of digits (past Python's int-conversion limit, a ValueError) is
    past any file's end all the same."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) < 20 else 10 ** 19


def cut(line: str) -> str:
    """A line as shown: long ones (minified code, data) cut with a visible marker."""
    return line if len(line) <= MAX_LINE else f"{line[:MAX_LINE]} [... {len(line) - MAX_LINE} more characters cut]"


def render(lines: list[str], a: int, b: int) -> str:
    width = len(str(b))
    return "\n".join(f"{i:>{width}}| {cut(lines[i - 1])}" for i in range(a, b + 1))


def cmd_slice(ctx, args) -> Result:
    if args.lines is None and not (args.symbol or "").strip():
        raise UsageError("give the definition's name, for example: rt slice src/app.py --symbol render")
    rel, lines = _file_lines(ctx, args.file)
    total = len(lines)
    if args.lines is not None:
        a, b, asked = parse_range(args.lines, total)
        label = f"{shown(rel)}:{a}-{b}" + (f" (the file ends at line {total})" if asked > b else "")
    else:
        idx = load(ctx)
        hits = [d for p, d in find_definitions(idx, args.symbol) if p == rel]
        if not hits:
            entry = idx.entry(rel)
            names = sorted({_qualified(d) for d in entry.defs}) if entry else []
            near = _near(args.symbol, names)
            said = (f"; did you mean {', '.join(near)}? (`rt outline {command_arg(rel)}` lists its {counted(len(names), 'definition')})"
                    if near else f"; it defines {', '.join(names[:10])}" + (", ..." if len(names) > 10 else "")
                    if names else "")
            return Result(f"{args.symbol}: not defined in {rel}{said}", {"path": rel, "found": False, "closest": near},
                          ExitCode.FINDING)
        d = hits[0]
        a, b = d.start, min(d.end, total)
        label = f"{shown(rel)}:{a}-{b}  {d.kind} {_qualified(d)}"
        if len(hits) > 1:
            label += "  (also at lines " + ", ".join(f"{h.start}-{h.end}" for h in hits[1:]) + ")"
    if args.budget is not None:   # --budget: the code share of the window, by rt/budget.py's one rule
        from rt import budget
        keep, dropped = budget.fit_lines(args.budget, [render(lines, i, i) for i in range(a, b + 1)])
        if dropped:
            b = a + keep - 1
            label += f"  (cut after line {b} to fit --budget {args.budget}; dropped: {dropped[-1]})"
    return Result(f"{label}\n{render(lines, a, b)}", {"path": rel, "start": a, "end": b, "total": total,
                                                     "lines": [cut(x) for x in lines[a - 1:b]]})


# ---------------------------------------------------------------- outline

def args_outline(p) -> None:
    p.add_argument("file", help="a file inside the repository (or a folder: its files and their definitions)")


def cmd_outline(ctx, args) -> Result:
    rel = to_rel(ctx.repo, args.file)
    idx = load(ctx)
    entry = idx.entry(rel)
    if entry is None:
        folder = _folder_outline(idx, rel)
        if folder is None:
            raise _not_a_file(ctx, args.file, rel, idx.paths, "not a file rt indexes")
        return folder
    head = f"{shown(rel)}: {counted(entry.lines, 'line')}, {entry.lang}" + (f" ({entry.note})" if entry.note else "")
    rows = []
    for d in entry.defs:
        depth = d.parent.count(".") + 1 if d.parent else 0
        rows.append(f"{d.start:>5}-{d.end:<5} {'  ' * depth}{d.kind} {d.name}  {d.signature}")
    if not rows:
        rows.append("(no definitions found)")
    if entry.lines > OUTLINE_HINT:
        rows.append(f"read a part with `rt slice {command_arg(rel)} --lines A:B` or `--symbol NAME`")
    return Result("\n".join([head] + rows), {"path": rel, "lang": entry.lang, "lines": entry.lines, "note": entry.note,
                                             "definitions": [{"name": d.name, "kind": d.kind, "start": d.start,
                                                              "end": d.end, "signature": cut(d.signature),
                                                              "parent": d.parent} for d in entry.defs]})


def _folder_outline(idx: Index, rel: str) -> Result | None:
    """The outline of a folder holding indexed files: its folders (files below each), then its own files (lines,
    language, first top-level definitions); None when it holds none."""
    prefix, inside = _in_folder(rel, idx.paths)
    if not inside:
        return None
    below: dict[str, int] = {}
    own = []
    for p in inside:
        folder, slash, _ = p.partition("/")
        if slash:
            below[folder] = below.get(folder, 0) + 1
        else:
            own.append(p)
    files = []
    for name in own:
        entry = idx.entry(prefix + name)
        top = list(dict.fromkeys(d.name for d in entry.defs if not d.parent and d.kind != "impl" and d.name != "_")) \
            if entry else []   # overloads once; an `impl` names another's type, Go's `var _` nothing
        files.append({"path": prefix + name, "lines": entry.lines if entry else 0, "lang": entry.lang if entry else "",
                      "note": entry.note if entry else "", "definitions": top})
    head = f"{shown(prefix) or './'}: {counted(len(inside), 'indexed file')}" + (
        f", {len(own)} of them here" if below and own else "")
    rows = [f"  {shown(name)}/  {counted(n, 'file')}" for name, n in below.items()]
    for f in files[:FOLDER_FILES]:
        names = f["definitions"][:FOLDER_NAMES]
        more = len(f["definitions"]) - len(names)
        rows.append(f"  {shown(f['path'][len(prefix):])}  {counted(f['lines'], 'line')}, {f['lang']}"
                    + (f" ({f['note']})" if f["note"] else "")
                    + (f"  {', '.join(names)}" if names else "") + (f" (+{more} more)" if more > 0 else ""))
    if len(files) > FOLDER_FILES:
        rows.append(f"... and {counted(len(files) - FOLDER_FILES, 'more file')} "
                    f"(`rt outline {command_arg(prefix) if prefix else '.'} --json` lists them all)")
    folders = [{"path": prefix + name + "/", "files": n} for name, n in below.items()]
    return Result("\n".join([head] + rows), {"folder": prefix, "files": files, "folders": folders})

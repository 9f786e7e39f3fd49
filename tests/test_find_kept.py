"""`rt find` in a long-lived process (the hook server, `rt mcp`): what it derives from a file's bytes is kept
between look-ups (`index.Derived`), keyed by the file's stat identity, never for a file changed within the
racy-timestamp window, and within its cap; the answers are a fresh process's."""
from __future__ import annotations

import contextlib
import io
import json
import os
import time

from rt.cli import main
from rt.index.index import Derived, Kept
from rt.lookup.find import _Source

EN = {"share": {"copied": "Share link copied", "title": "Share"}, "copy": "Copy link"}
DE = {"share": {"copied": "Link kopiert", "title": "Teilen"}, "copy": "Link kopieren"}


def kept_rt(project, kept: Kept, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.chdir(project.root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(args), kept)
    return code, out.getvalue()


def fresh_rt(project, *args: str) -> tuple[int, str]:
    return kept_rt(project, None, *args)


def held(kept: Kept) -> set[str]:
    return {rel for _, rel, _ in kept.derived.held}


def same_size_rewrite(path, old: str, new: str) -> None:
    """Replace `old` by `new` (as long) in place: the same inode and size, the mtime put back as it was."""
    st = os.stat(path)
    data = path.read_bytes()
    assert len(old.encode()) == len(new.encode()) and old.encode() in data
    with open(path, "r+b") as f:
        f.write(data.replace(old.encode(), new.encode()))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    now = os.stat(path)
    assert (now.st_size, now.st_mtime_ns, now.st_ino) == (st.st_size, st.st_mtime_ns, st.st_ino)


def app(project) -> None:
    project.write("locales/en.json", json.dumps(EN, indent=2) + "\n")
    project.write("locales/de.json", json.dumps(DE, indent=2) + "\n")
    project.write("src/share.tsx", 'export const Share = () => <p>{t("share.copied")}</p>;\n'
                                   'const label = "Copy link now";\n')
    project.init_git()
    project.rt("index")


QUERIES = (("find", "Share link copied"), ("find", "Copy link"), ("find", "Share link copied", "--json"),
           ("find", "link"), ("find", "Teilen", "--json"), ("find", "nowhere at all"))


def test_a_kept_find_answers_as_a_fresh_one_and_sees_a_same_size_same_mtime_edit(project):
    app(project)
    kept = Kept()
    for args in QUERIES:   # files written just now: read, not kept
        assert kept_rt(project, kept, *args) == fresh_rt(project, *args), args
    assert not held(kept) & {"locales/en.json", "locales/de.json"}
    time.sleep(1.1)   # past the racy-timestamp window: kept from now on
    for args in QUERIES:
        assert kept_rt(project, kept, *args) == fresh_rt(project, *args), args
    assert {"locales/en.json", "locales/de.json", "src/share.tsx"} <= held(kept)
    time.sleep(0.05)   # a later timestamp tick than the kept file's ctime
    same_size_rewrite(project.root / "locales/en.json", "Share link copied", "Share link COPIED")
    same_size_rewrite(project.root / "locales/de.json", "Link kopiert", "Lenk kopiert")
    for args in QUERIES + (("find", "Lenk kopiert"),):
        assert kept_rt(project, kept, *args) == fresh_rt(project, *args), args
    code, out = kept_rt(project, kept, "find", "Lenk kopiert")
    assert code == 0 and "locales/de.json:3" in out
    assert "= 'Share link COPIED'" in kept_rt(project, kept, "find", "Share link copied")[1]
    assert not held(kept) & {"locales/en.json", "locales/de.json"}   # changed within the second: not kept
    same_size_rewrite(project.root / "locales/de.json", "Lenk kopiert", "Lonk kopiert")   # again, same second
    code, out = kept_rt(project, kept, "find", "Lonk kopiert")
    assert code == 0 and "locales/de.json:3" in out
    assert kept_rt(project, kept, "find", "Lenk kopiert") == fresh_rt(project, "find", "Lenk kopiert")


def test_the_kept_files_stay_within_their_cap_the_oldest_used_dropped_first(project):
    for i in range(8):
        project.write(f"f{i}.txt", f"line {i}\n" * 100)
    project.write("big.txt", "x" * 5000)
    project.init_git()
    time.sleep(1.1)
    from rt.core import find_repo
    repo = find_repo(project.root)
    weight = _Source("f0.txt", (project.root / "f0.txt").read_bytes()).weight
    memo = Derived(cap=3 * weight + weight // 2)   # three files fit
    for i in range(5):
        got = memo.get(repo, f"f{i}.txt", _Source)
        assert got.text == f"line {i}\n" * 100
        assert memo.size <= memo.cap and memo.size == sum(w for _, _, w in memo.held.values())
    assert [rel for _, rel, _ in memo.held] == ["f2.txt", "f3.txt", "f4.txt"]
    assert memo.get(repo, "f2.txt", _Source) is memo.get(repo, "f2.txt", _Source)   # a hit: the same object
    memo.get(repo, "f5.txt", _Source)
    assert [rel for _, rel, _ in memo.held] == ["f4.txt", "f2.txt", "f5.txt"]   # f2 used since: f3 went first
    assert memo.get(repo, "big.txt", _Source).text == "x" * 5000   # heavier than the cap: read, never kept
    assert "big.txt" not in {rel for _, rel, _ in memo.held} and memo.size <= memo.cap
    assert memo.get(repo, "missing.txt", _Source).text == "" and memo.size <= memo.cap

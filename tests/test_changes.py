"""delta and review measure against the task's snapshot, not git HEAD, and need no commit."""
import json
import os
import subprocess
import time

import pytest


@pytest.fixture
def repo(project):
    project.write("a.py", "one\ntwo\nthree\n")
    project.write("b.py", "b\n")
    project.write("img.bin", b"\x00\x01\x02")
    project.init_git()
    project.write("b.py", "b\ndirty before the task\n")      # uncommitted before the task
    project.write("notes.txt", "untracked before the task\n")  # untracked before the task
    project.rt("start", "t")
    return project


def test_changes_made_before_the_task_do_not_count(repo):
    assert repo.rt("delta").startswith("0 file(s) changed")


def test_modified_added_deleted_with_line_counts(repo):
    repo.write("a.py", "one\nTWO\nthree\nfour\n")
    repo.write("new.py", "1\n2\n")
    (repo.root / "b.py").unlink()
    data = repo.rt_json("delta")
    rows = {c["path"]: (c["status"], c["added"], c["removed"]) for c in data["changes"]}
    assert rows == {"a.py": ("modified", 2, 1), "new.py": ("added", 2, 0), "b.py": ("deleted", 0, 2)}
    assert [c["path"] for c in data["changes"]] == sorted(rows)  # sorted, stable


def test_out_of_scope_changes_are_marked_and_exit_1(repo):
    repo.rt("plan", "--edit", "a.py")
    repo.write("a.py", "changed\n")
    repo.write("notes.txt", "untracked before the task, now edited\n")
    out = repo.rt("delta", ret=1)
    assert "M notes.txt  +1 -1  OUTSIDE SCOPE" in out
    assert "M a.py  +1 -3\n" in out + "\n"
    assert "1 outside the planned scope" in out


def test_review_diffs_against_originals_without_commit(repo):
    repo.rt("plan", "--edit", "b.py", "notes.txt")
    repo.write("b.py", "b\ndirty before the task\nand more\n")
    repo.write("notes.txt", "rewritten\n")
    diff = repo.rt("review")
    assert "--- a/b.py\n+++ b/b.py\n@@ -1,2 +1,3 @@\n b\n dirty before the task\n+and more" in diff
    assert "-untracked before the task\n+rewritten" in diff  # original of an untracked file was saved
    stat = repo.rt("review", "--stat")
    assert stat.splitlines()[-1] == "2 file(s), +2 -1"
    only = repo.rt("review", "notes.txt")
    assert "b.py" not in only


def test_review_shows_every_change_since_the_start_even_one_made_before_the_plan(repo):
    """It diffed against the copy `rt plan` saved: a file edited before the plan and not since was left out."""
    repo.write("a.py", "one\ntwo\nthree\nbefore the plan\n")
    repo.rt("plan", "--edit", "a.py", "b.py")
    repo.write("b.py", "b\ndirty before the task\nafter the plan\n")
    diff = repo.rt("review")
    assert "+before the plan" in diff and "+after the plan" in diff
    assert repo.rt("review", "--stat").splitlines()[-1] == "2 file(s), +2 -0"


def test_lines_are_split_at_line_feeds_only_and_odd_names_are_quoted_in_the_diff(repo):
    """A form feed, a lone carriage return or U+2028 inside a line is no line break for git: hunks kept their
    numbers wrong and counts off. A name with a line break or tab is quoted in the headers, as git does."""
    repo.write("ff.py", "a\n\x0c\nb\nc\nd\n")
    repo.write("cr.txt", "a\rb\rc\rend\n")
    repo.git("add", "ff.py", "cr.txt")
    repo.rt("start", "lines", "--no-baseline", "--force")
    repo.write("ff.py", "a\n\x0c\nb\nc\nD\n")
    repo.write("cr.txt", "a\rB\rc\rend\n")
    repo.write("new\tline.txt", "x\n")
    rows = {c["path"]: (c["added"], c["removed"]) for c in repo.rt_json("delta")["changes"]}
    assert rows == {"ff.py": (1, 1), "cr.txt": (1, 1), "new\tline.txt": (1, 0)}
    diff = repo.rt("review")
    assert "--- a/ff.py\n+++ b/ff.py\n@@ -2,4 +2,4 @@\n \x0c\n b\n c\n-d\n+D\n" in diff
    assert '--- /dev/null\n+++ "b/new\\tline.txt"\n' in diff


def test_counts_of_a_long_file_changed_all_over_are_those_of_a_diff():
    """The matcher is quadratic: 2,000 bumps in a 32,000-line lock file ran for minutes. The shared ends are set
    aside, and a middle too large is counted by the lines each side has more of."""
    from rt.snapshot import count_lines
    old = [f"  version {i}\n" for i in range(32_000)]
    new = [line.replace("version", "VERSION") if i % 16 == 5 else line for i, line in enumerate(old)]
    assert count_lines(old, new) == (2000, 2000)
    assert count_lines(old, old[:10] + ["x\n"] + old[10:]) == (1, 0)


def test_binary_change_is_listed_not_diffed(repo):
    repo.write("img.bin", b"\x00\x09\x09\x09")
    assert "M img.bin  binary or not saved" in repo.rt("delta")
    assert "(binary, large, or original not saved: no text diff)" in repo.rt("review")


def test_review_output_is_byte_stable(repo):
    repo.write("a.py", "x\n")
    repo.write("z.py", "y\n")
    assert repo.rt("review") == repo.rt("review")
    assert str(repo.root) not in repo.rt("review")


def test_unchanged_tree_is_not_reread(repo):
    for p in repo.root.rglob("*"):
        if ".git" not in p.parts and p.is_file():
            os.utime(p, (1_600_000_000, 1_600_000_000))  # old enough not to be 'racily clean'
    time.sleep(1.1)   # and so is the change time utime set: a second ago (`snapshot.RACY_NS`)
    repo.rt("start", "warm the cache", "--force")
    first = repo.rt_json("start", "again", "--force")
    assert first["files_read"] == 0  # everything came from the stat cache
    repo.write("a.py", "different\n")
    assert repo.rt_json("start", "third", "--force")["files_read"] == 1


def test_same_size_rewrite_right_after_a_scan_is_seen(repo):
    repo.rt("plan", "--edit", "a.py")
    path = repo.write("a.py", "one\ntwo\nthreX\n")
    tick = path.stat().st_mtime_ns
    repo.rt("delta")  # caches a.py's new stat
    repo.write("a.py", "one\ntwo\nthree\n")  # back to the original
    os.utime(path, ns=(tick, tick))  # same size, inode and timestamp tick as the cached stat
    assert repo.rt("delta").startswith("0 file(s) changed")


def test_an_untracked_file_read_through_the_stat_cache_is_still_saved_before_the_task(project):
    """A file git cannot give back, unchanged since the last scan (so its hash comes from the stat cache),
    is copied into `.rt/` at `rt start`: its later edit is counted line by line and shown."""
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "before", "--no-baseline")
    project.write("notes.txt", "first\nsecond\nthird\n")    # untracked
    os.utime(project.root / "notes.txt", ns=(10**18, 10**18))   # long before any scan: its stat is trusted
    project.rt("delta")             # a scan that hashes it but saves nothing (no task starts here)
    project.rt("block", "not this one")
    project.rt("start", "edit the notes", "--no-baseline")       # reads notes.txt from the stat cache
    project.write("notes.txt", "first\nSECOND\nthird\n")
    assert project.rt_json("delta")["changes"] == [
        {"path": "notes.txt", "status": "modified", "added": 1, "removed": 1, "in_scope": None, "note": None}]
    assert "-second\n+SECOND" in project.rt("review", "notes.txt")


def test_line_counts_of_a_long_file_with_many_repeated_lines(repo):
    """difflib's automatic junk heuristic (a line found in over 1% of a 200+ line file is junk) would count
    one changed line in a golden output of 300 identical lines as 151 added and 151 removed; counts are exact."""
    body = "ok\n" * 150 + "fail\n" + "ok\n" * 150
    repo.write("golden.txt", body)
    repo.git("add", "golden.txt")
    repo.rt("start", "edit the golden output", "--no-baseline", "--force")
    repo.write("golden.txt", body.replace("fail\n", "skip\n"))
    [row] = repo.rt_json("delta")["changes"]
    assert (row["path"], row["added"], row["removed"]) == ("golden.txt", 1, 1)


# ---------------------------------------------------------------- in git: the files git names, and only those

def _stat_cache(repo) -> dict:
    import json
    return json.loads((repo.root / ".rt" / "statcache.json").read_text())


def test_in_git_only_the_files_git_names_are_looked_at(repo):
    """A tracked file whose stat data git's index vouches for has the index's blob id: rt keeps no stat of
    its own for it. The files git names (edited, untracked) go through the stat cache."""
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "everything")
    repo.git("status")   # git refreshes its index's stat data
    repo.rt("start", "clean", "--force")
    assert _stat_cache(repo)["files"] == {}
    repo.write("a.py", "one\ntwo\n")
    repo.write("new.py", "n\n")
    rows = {c["path"]: (c["status"], c["added"], c["removed"]) for c in repo.rt_json("delta")["changes"]}
    assert rows == {"a.py": ("modified", 0, 1), "new.py": ("added", 1, 0)}
    assert sorted(_stat_cache(repo)["files"]) == ["a.py", "new.py"]
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "the edit")   # git's index rewritten: the same content, nothing read
    repo.git("status")
    again = repo.rt_json("start", "after commit", "--force")
    assert again["files_read"] == 0 and _stat_cache(repo)["files"] == {}
    assert repo.rt("delta").startswith("0 file(s) changed")


def test_a_file_whose_bytes_are_not_its_git_blob_is_still_compared_by_its_bytes(project):
    """Line-ending conversion (`text eol=lf`) makes git's blob differ from the file's CRLF bytes: rt's
    snapshot holds the bytes it reads, so an untouched file shows no change and an edit its real lines."""
    project.write(".gitattributes", "*.txt text eol=lf\n")
    project.write("dos.txt", b"one\r\ntwo\r\nthree\r\n")
    project.write("plain.txt", "plain\n")
    project.init_git()   # the index holds dos.txt as LF, the worktree keeps CRLF
    project.git("status")
    assert project.git("status", "--porcelain") == ""
    project.rt("start", "t")
    assert project.rt("delta").startswith("0 file(s) changed")
    assert "dos.txt" in _stat_cache(project)["files"]   # looked at through the stat cache from now on
    project.write("dos.txt", b"one\r\nTWO\r\nthree\r\n")
    rows = {c["path"]: (c["status"], c["added"], c["removed"]) for c in project.rt_json("delta")["changes"]}
    assert rows == {"dos.txt": ("modified", 1, 1)}


def test_an_edit_git_is_told_to_ignore_is_still_seen(repo):
    """`git update-index --assume-unchanged` makes git stop looking at a file; rt looks at it itself."""
    repo.git("update-index", "--assume-unchanged", "a.py")
    repo.write("a.py", "one\ntwo\nthree\nfour\n")
    assert repo.git("status", "--porcelain").count("a.py") == 0
    assert "M a.py  +1 -0" in repo.rt("delta")


def test_in_git_a_deleted_file_a_retargeted_link_and_a_conflict_are_seen(project):
    """Files git's index does not vouch for as regular and unchanged: a tracked file deleted, a tracked
    symbolic link pointed elsewhere, and a file in a merge conflict (stages 1-3, no stage 0)."""
    project.write("a.py", "one\ntwo\nthree\n")
    project.write("c.py", "base\n")
    project.write("gone.py", "g\n")
    (project.root / "ln").symlink_to("a.py")
    project.init_git()
    project.git("checkout", "-q", "-b", "other")
    project.write("c.py", "theirs\n")
    project.git("commit", "-q", "-am", "theirs")
    project.git("checkout", "-q", "main")
    project.write("c.py", "ours\n")
    project.git("commit", "-q", "-am", "ours")
    project.git("status")
    project.rt("start", "t")
    (project.root / "gone.py").unlink()
    (project.root / "ln").unlink()
    (project.root / "ln").symlink_to("c.py")
    proc = subprocess.run(["git", "merge", "-q", "other"], cwd=project.root, capture_output=True, text=True)
    assert proc.returncode != 0 and "<<<<<<<" in (project.root / "c.py").read_text()
    rows = {c["path"]: c["status"] for c in project.rt_json("delta")["changes"]}
    assert rows == {"c.py": "modified", "gone.py": "deleted", "ln": "modified"}


def test_a_file_dirty_before_the_task_and_reverted_since_is_a_change(repo):
    """b.py was dirty when the task started; put back to its committed content it is clean to git, yet
    it differs from the task's snapshot."""
    repo.git("checkout", "--", "b.py")
    assert repo.git("status", "--porcelain", "--", "b.py") == ""
    rows = {c["path"]: (c["status"], c["added"], c["removed"]) for c in repo.rt_json("delta")["changes"]}
    assert rows == {"b.py": ("modified", 0, 1)}


def test_odd_file_names_in_gits_listing(project):
    """Paths with a tab, a newline, a leading `? ` or `C ` (the listing's own tags) and non-ASCII letters,
    tracked and untracked, edited and new."""
    tracked = ["C tab\there.py", "? q.py", "ünï/cödé.py", "H 100644 x.py"]
    for i, name in enumerate(tracked):
        project.write(name, f"{i}\n")
    project.init_git()
    project.git("status")
    project.rt("start", "t")
    assert project.rt("delta").startswith("0 file(s) changed")
    project.write("C tab\there.py", "0\nmore\n")
    project.write("ünï/cödé.py", "2\nmore\n")
    project.write("? new\nline.txt", "n\n")
    (project.root / "? q.py").unlink()
    rows = {c["path"]: c["status"] for c in project.rt_json("delta")["changes"]}
    assert rows == {"C tab\there.py": "modified", "ünï/cödé.py": "modified", "? new\nline.txt": "added",
                    "? q.py": "deleted"}


def test_unchanged_delta_process_stays_lean(repo):
    """`rt delta` on an unchanged tree asks git in one process started without `subprocess`, reads no
    file (once the files written just before the task are out of the racy-timestamp window and were read
    again), so loads no hashing and no diff library: git's listing is the last scan's and that scan's
    fingerprint the snapshot's, so neither is decoded. A command line of `delta` alone needs no argparse."""
    time.sleep(1.1)
    repo.rt("delta")
    for argv in (["delta"], ["delta", "--json"]):
        proc, imported = repo.imports(*argv)
        assert proc.returncode == 0 and proc.stdout.startswith(("0 file(s) changed", '{"by_checks": [], "changes": []'))
        assert "rt.snapshot" in imported
        assert not imported & {"subprocess", "threading", "hashlib", "difflib", "tomllib", "argparse", "gettext"}
    proc, imported = repo.imports("delta", "--help")
    assert proc.returncode == 0 and "argparse" in imported and "usage: rt delta" in proc.stdout
    proc, imported = repo.imports("delta", "--bogus")
    assert proc.returncode == 2 and "unrecognized arguments: --bogus" in proc.stderr


def test_bare_commands_take_only_the_values_they_name():
    """A command marked `bare` runs without argparse when given exactly the values it names and at most
    `--json`: its parser must take nothing else, each value one plain string, or those runs would skip its
    defaults or conversions."""
    from rt.cli import COMMANDS, build_parser
    bare = {name: cmd.bare for name, cmd in COMMANDS.items() if cmd.bare is not None}
    assert bare == {"status": (), "delta": (), "symbol": ("name",), "refs": ("name",), "outline": ("file",),
                    "find": ("text",)}
    for name, fields in bare.items():
        parser, _ = build_parser(name)
        assert sorted(a.dest for a in parser._actions) == sorted(["help", "json", *fields])
        for a in parser._actions:
            if a.dest in fields:
                assert (a.option_strings, a.nargs, a.type, a.choices, a.default) == ([], None, None, None, None)


@pytest.mark.parametrize("in_git", [True, False])
def test_an_edit_of_the_same_size_with_its_time_put_back_is_seen(project, in_git):
    """`touch -r`, `cp -p`, tar and rsync put a file's modification time back; its change time they cannot."""
    project.write("kept.txt", "x\n")
    if in_git:
        project.init_git()
    path = project.write("notes.txt", "aaaa\n")   # untracked in git; any file outside it
    os.utime(path, ns=(10**18, 10**18))
    project.rt("start", "t", "--no-baseline")
    time.sleep(0.01)
    path.write_text("bbbb\n")
    os.utime(path, ns=(10**18, 10**18))
    assert "M notes.txt  +1 -1" in project.rt("delta")


def test_a_file_git_converts_is_compared_by_its_bytes_not_its_blob(project):
    """`*.bat text eol=crlf`: the checked-out bytes are not the blob. A file with the blob of another was trusted
    unread: its change was missed, and one put back by `git checkout` stayed changed for ever."""
    project.write(".gitattributes", "*.bat text eol=crlf\n")
    project.write("x.txt", "hello\n")
    project.write("run.bat", "hello\n")
    project.init_git()
    (project.root / "run.bat").unlink()
    project.git("checkout", "--", "run.bat")   # as git writes it: hello\r\n, the blob hello\n
    assert (project.root / "run.bat").read_bytes() == b"hello\r\n"
    project.rt("start", "t", "--no-baseline")
    assert project.rt("delta").startswith("0 file(s) changed")
    project.write("run.bat", "hello\n")   # the blob's bytes, not the start's
    assert "M run.bat  +1 -1" in project.rt("delta")
    project.git("checkout", "--", "run.bat")
    assert project.rt("delta").startswith("0 file(s) changed")


@pytest.mark.parametrize("where", ["sub/.gitattributes", ".git/info/attributes", "linked worktree", "home"])
def test_a_conversion_declared_anywhere_git_reads_attributes_is_seen(project, monkeypatch, tmp_path, where):
    """`eol=crlf` for sub/run.bat, declared not in the top .gitattributes but in a nested one, in git's own
    attributes file (in a linked worktree: the main repository's) or the user's: only the top one (and the
    worktree's own git folder) was read, so the file's CRLF bytes were taken for its blob unread and an edit
    putting the blob's bytes back was missed."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))   # for git too: no user config but the test's
    project.write("a.txt", "hello\n")
    project.write("sub/run.bat", "hello\n")
    project.init_git()
    main = project
    if where == "linked worktree":
        project.git("worktree", "add", "-q", str(project.root.parent / "wt"))
        project = type(project)(project.root.parent / "wt")
    project.rt("start", "before", "--no-baseline")   # the files' blob is known to rt as text from now on
    rule = "*.bat text eol=crlf\n"
    if where == "home":
        main.write(str(tmp_path / "home" / ".config" / "git" / "attributes"), rule)
    elif where == "sub/.gitattributes":
        main.write(where, rule)
        main.git("add", where)
        main.git("commit", "-q", "-m", "attributes")
    else:
        main.write(".git/info/attributes", rule)
    (project.root / "sub" / "run.bat").unlink()
    project.git("checkout", "--", "sub/run.bat")   # as git writes it: hello\r\n, the blob hello\n
    assert (project.root / "sub" / "run.bat").read_bytes() == b"hello\r\n"
    project.rt("start", "t", "--no-baseline", "--force")
    assert project.rt("delta").startswith("0 file(s) changed")
    project.write("sub/run.bat", "hello\n")   # the blob's bytes, not the start's
    assert "M sub/run.bat  +1 -1" in project.rt("delta")


@pytest.mark.parametrize("in_git", [True, False])
def test_a_mode_change_and_a_file_made_a_link_are_shown_as_such(project, in_git):
    """`chmod +x` or `-x` changes no byte: delta and review said nothing. A file replaced by a link was only `M`,
    counted by the lines of the name it points to. Each says what became of the file; mode bits put back are
    no change."""
    project.write("run.sh", "echo hi\n")
    project.write("a.py", "one\n")
    project.write("b.py", "b\nc\n")
    project.write("img.bin", b"\x00\x01")
    os.chmod(project.root / "run.sh", 0o755)
    if in_git:
        project.init_git()   # run.sh is 100755 in git's index
    project.rt("start", "t", "--no-baseline")
    assert project.rt("delta").startswith("0 file(s) changed")
    os.chmod(project.root / "run.sh", 0o644)
    os.chmod(project.root / "a.py", 0o755)
    os.chmod(project.root / "img.bin", 0o755)
    (project.root / "b.py").unlink()
    (project.root / "b.py").symlink_to("a.py")
    assert project.rt("delta").splitlines()[1:] == [
        "M a.py  +0 -0  now executable", "M b.py  +1 -2  now a link", "M img.bin  now executable",
        "M run.sh  +0 -0  no longer executable"]
    assert [c["note"] for c in project.rt_json("delta")["changes"]] == [
        "now executable", "now a link", "now executable", "no longer executable"]
    review = project.rt("review")
    assert review.startswith("--- a/a.py\n+++ b/a.py\n(now executable)\n--- a/b.py\n+++ b/b.py\n(now a link)\n@@ -1,2 +1 @@\n")
    assert "--- a/img.bin\n+++ b/img.bin\n(now executable)\n--- a/run.sh" in review   # its lines not counted: the note alone
    assert review.endswith("--- a/run.sh\n+++ b/run.sh\n(no longer executable)\n")
    os.chmod(project.root / "run.sh", 0o755)
    os.chmod(project.root / "a.py", 0o644)
    os.chmod(project.root / "img.bin", 0o644)
    assert project.rt("delta").splitlines()[1:] == ["M b.py  +1 -2  now a link"]


def test_a_mode_git_is_told_to_ignore_is_no_change(project):
    """`core.fileMode false` (a file system without execute bits, where every file looks executable): git's index
    keeps the mode it had, and so does the snapshot; a file rt reads itself is not taken for executable then."""
    project.write("a.py", "one\n")
    project.write("b.py", "b\n")
    project.init_git()
    project.git("config", "core.fileMode", "false")
    project.rt("start", "t", "--no-baseline")
    os.chmod(project.root / "a.py", 0o755)
    os.chmod(project.root / "b.py", 0o755)
    project.write("b.py", "b\nmore\n")
    assert project.rt("delta").splitlines()[1:] == ["M b.py  +1 -0"]


def test_a_submodule_at_another_commit_is_a_change_and_may_be_planned(project, tmp_path):
    """A submodule is a commit to git, and rt left it out of the snapshot: checking out another commit in it was
    no change to delta. Its path is shown changed now, by the commit checked out (rt reads no file in it), and a
    plan may name it; an edit inside it with its commit kept is the submodule's own business, as for git."""
    inner = type(project)(tmp_path / "inner")
    inner.root.mkdir()
    inner.write("s.txt", "one\n")
    inner.init_git()
    first = inner.git("rev-parse", "--short=7", "HEAD").strip()
    inner.write("s.txt", "two\n")
    inner.git("commit", "-qam", "two")
    second = inner.git("rev-parse", "--short=7", "HEAD").strip()
    project.write("a.txt", "a\n")
    project.init_git()
    project.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner.root), "sub")
    project.git("commit", "-qm", "sub")
    project.rt("start", "t", "--no-baseline")
    project.write("sub/s.txt", "edited in the submodule\n")
    assert project.rt("delta").startswith("0 file(s) changed")
    project.git("-C", "sub", "checkout", "-q", "-f", "HEAD~1")
    line = f"M sub  submodule at another commit: {second}..{first}"
    assert project.rt("delta").splitlines()[1:] == [line]
    assert project.rt("review") == f"--- a/sub\n+++ b/sub\n({line[7:]})\n"
    project.rt("plan", "--edit", "a.txt")
    assert f"{line}  OUTSIDE SCOPE" in project.rt("delta", ret=1)
    project.rt("scope", "add", "sub")
    assert project.rt("delta").splitlines()[1:] == [line]
    project.rt("plan", "--edit", "sub", "a.txt")   # named in a plan as well
    assert project.rt_json("status")["task"]["scope"]["edit"] == ["a.txt", "sub"]
    project.git("-C", "sub", "checkout", "-q", "-f", "main")
    assert project.rt("delta").startswith("0 file(s) changed")
    project.git("submodule", "deinit", "-q", "-f", "sub")   # no repository checked out there: as git, no change
    assert project.rt("delta").startswith("0 file(s) changed")


def test_a_task_an_older_rt_started_keeps_its_executables_and_submodules_unchanged(project, tmp_path):
    """A snapshot an rt before execute bits and submodules took records neither: after the upgrade, every
    executable file and every submodule of the tree showed as changed since `rt start`, outside the plan's scope.
    Such a snapshot is read as the tree then had them, the way they are now (written back once)."""
    inner = type(project)(tmp_path / "inner")
    inner.root.mkdir()
    inner.write("s.txt", "one\n")
    inner.init_git()
    project.write("run.sh", "echo hi\n")
    project.write("a.py", "one\n")
    project.write("tool", "#!/bin/sh\n")   # not tracked
    os.chmod(project.root / "run.sh", 0o755)
    os.chmod(project.root / "tool", 0o755)
    project.init_git()
    project.git("rm", "-q", "--cached", "tool")
    project.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner.root), "sub")
    project.git("commit", "-qm", "sub")
    project.rt("start", "t", "--no-baseline")
    project.rt("plan", "--edit", "a.py")
    task = json.loads(project.read(".rt/state.json"))["active"]
    snap = project.root / ".rt" / "tasks" / task / "snapshot.json"
    data = json.loads(snap.read_text())
    old = {p: [b, k.removesuffix("+x")] for p, (b, k) in data["files"].items() if k != "submodule"}
    snap.write_text(json.dumps({"files": old, "schema": 1}))   # as rt 754164e wrote it
    assert project.rt("delta").startswith("0 file(s) changed")
    assert json.loads(snap.read_text())["files"] == data["files"]
    project.write("a.py", "two\n")
    os.chmod(project.root / "tool", 0o644)
    assert project.rt("delta", ret=1).splitlines()[1:] == [
        "M a.py  +1 -1", "M tool  +0 -0  no longer executable  OUTSIDE SCOPE"]


def test_review_of_a_folder_shows_the_changes_under_it_and_never_says_none_were_made(repo):
    """`rt review src` said "no changes since the task started" while src/app.py had changed."""
    repo.write("src/app.py", "def total(x):\n    return x + 1\n")
    repo.write("src/deep/new.py", "Y = 2\n")
    for args, cwd in ((("src",), None), (("src/",), None), ((".",), repo.root / "src")):
        out = repo.rt("review", *args, "--json", cwd=cwd)
        assert json.loads(out)["files"] == ["src/app.py", "src/deep/new.py"], (args, out)
    repo.write("a.py", "one\n")
    assert json.loads(repo.rt("review", "..", "--json", cwd=repo.root / "src"))["files"] == \
        ["a.py", "src/app.py", "src/deep/new.py"]
    assert repo.rt("review", "src/deep").startswith("--- /dev/null\n+++ b/src/deep/new.py\n")
    assert repo.rt("review", "b.py") == "no changes since the task started in the files named\n"
    assert repo.rt("review", "sr") == "no changes since the task started in the files named\n"   # no folder's prefix

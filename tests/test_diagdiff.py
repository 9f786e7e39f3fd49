"""The diff rules on their own: grouping without line numbers, counts, alignment, renames, normalisation, verdicts."""
from __future__ import annotations

import pytest

from rt.diagnostics.diff import Run, diff, format_entry, new_entries, verdict
from rt.diagnostics.model import Diagnostic, normalise


def d(file="a.py", line=1, code="F401", message="`os` imported but unused", check="ruff", column=1):
    return Diagnostic(check, file, line, column, code, "error", message)


def test_lines_moved_by_inserted_code_are_not_new():
    before = [d(line=3), d(line=9, code="F821", message="undefined name `x`")]
    after = [d(line=13), d(line=19, code="F821", message="undefined name `x`")]
    result = diff(before, after)
    assert (result.new, result.fixed, result.unchanged) == ([], 0, 2)


def test_three_identical_before_four_after_is_one_new():
    before = [d(line=n) for n in (2, 5, 8)]
    after = [d(line=n) for n in (2, 5, 8, 30)]
    result = diff(before, after)
    assert [x.line for x in result.new] == [30] and result.unchanged == 3


def test_the_new_twin_is_found_where_lines_moved_least():
    before = [d(line=n) for n in (10, 20)]
    after = [d(line=n) for n in (4, 12, 22)]           # two lines inserted above, a twin added at the top
    assert [x.line for x in diff(before, after).new] == [4]
    after = [d(line=n) for n in (12, 17, 22)]          # ... or between them
    assert [x.line for x in diff(before, after).new] == [17]


def test_fixed_ones_are_counted():
    before = [d(line=n) for n in (1, 2, 3)] + [d(code="E501", message="line too long")]
    result = diff(before, [d(line=1)])
    assert (result.new, result.fixed, result.unchanged) == ([], 3, 1)


def test_other_file_or_code_or_check_is_new():
    before = [d()]
    assert len(diff(before, [d(file="b.py")]).new) == 1
    assert len(diff(before, [d(code="F402")]).new) == 1
    assert len(diff(before, [d(check="flake8")]).new) == 1


def test_rename_keeps_old_findings_old():
    before = [d(file="old.py", line=4)]
    after = [d(file="new.py", line=4), d(file="new.py", line=9, message="`re` imported but unused")]
    assert [x.line for x in diff(before, after, {"old.py": "new.py"}).new] == [9]
    assert len(diff(before, after).new) == 2        # without the rename both look new: never hidden


def test_a_renamed_test_files_old_failure_stays_old_and_a_plain_finding_keeps_its_code():
    def failing(file, test):
        return Diagnostic("pytest", file, 5, 0, f"{file}::{test}", "error", "assert 3 == 4", kind="failed")
    before = [failing("tests/test_old.py", "test_add"), d(file="tests/test_old.py", code="tests/test_old.py")]
    after = [failing("tests/test_new.py", "test_add"), d(file="tests/test_new.py", code="tests/test_old.py")]
    result = diff(before, after, {"tests/test_old.py": "tests/test_new.py"})
    assert result.new == []          # the test's id follows its file; a code that merely starts with the path does not


def test_big_groups_still_count_right():
    before = [d(line=n) for n in range(600)]
    after = [d(line=n) for n in range(601)]
    result = diff(before, after)
    assert len(result.new) == 1 and result.unchanged == 600


@pytest.mark.parametrize("a, b", [
    ("file /tmp/pytest-of-root/pytest-12/test_x0/out.txt missing",
     "file /tmp/pytest-of-root/pytest-13/test_x0/out.txt missing"),
    ("wrote /tmp/tmpab12cd/x.json", "wrote /tmp/tmpzz99yy/x.json"),
    ("C:\\Users\\me\\AppData\\Local\\Temp\\abc\\f.txt gone", "C:\\Users\\me\\AppData\\Local\\Temp\\xyz\\f.txt gone"),
    ("took 0.0132s", "took 1.5s"),
    ("expected 'took 3ms' to be 'fast'", "expected 'took 12ms' to be 'fast'"),
    ("<Foo object at 0x7f3a2b1c0d90>", "<Foo object at 0x7f99aa00bb10>"),
    ("at 2024-05-01T10:22:33.123Z", "at 2025-01-09 08:00:01"),
    ("started 10:22:33", "started 11:00:01"),
    ("expected 'took 1796017202706' to be 'x'", "expected 'took 1796017208349' to be 'x'"),
    ("no row 550e8400-e29b-41d4-a716-446655440000", "no row 123e4567-e89b-12d3-a456-426614174000"),
    ('Name "x" already defined on line 12', 'Name "x" already defined on line 40'),
    ("see a.py:12:4 for the first one", "see a.py:30:1 for the first one"),
    ("defined in src/a.ts(3,5)", "defined in src/a.ts(10,1)"),
    ("'x' is assigned a value but never used.", "'x'   is assigned a value but never used"),
])
def test_volatile_parts_normalise_alike(a, b):
    assert normalise(a) == normalise(b)


@pytest.mark.parametrize("a, b", [
    ("Too many arguments in function definition (6 > 5)", "Too many arguments in function definition (7 > 5)"),
    ("Function 'f' has a complexity of 4. Maximum allowed is 2", "Function 'f' has a complexity of 6. Maximum allowed is 2"),
    ("Blocks are nested too deeply (2). Maximum allowed is 1", "Blocks are nested too deeply (3). Maximum allowed is 1"),
])
def test_a_measure_over_its_limit_is_the_same_finding_as_it_grows(a, b):
    """ruff's PLR0913 and eslint's complexity and max-depth, as pylint's R0913 and mccabe's C901 already: an old
    too-long function given one more argument or branch is the old finding, not a new one."""
    assert normalise(a) == normalise(b)


@pytest.mark.parametrize("a, b", [
    ("expected 1 to be 2", "expected 1 to be 3"),
    ("`os` imported but unused", "`sys` imported but unused"),
    ("list index 3 out of range", "list index 4 out of range"),
    ("file /home/me/a.txt missing", "file /home/me/b.txt missing"),
])
def test_real_differences_survive_normalising(a, b):
    assert normalise(a) != normalise(b)


def test_new_entries_group_and_flag_the_known_limit():
    before = [d(line=2)]
    after = [d(line=2), d(line=7), d(line=9), d(line=4, code="F821", message="undefined name `y`")]
    result = diff(before, after)
    entries = new_entries(result, before)
    got = [(e["code"], e["line"], e["count"], e["same_before"]) for e in entries]
    assert got == [("F821", 4, 1, 0), ("F401", 7, 2, 1)]
    assert format_entry(entries[1]) == ("a.py:7:1 F401 `os` imported but unused  (x2 new, lines 7, 9)"
                                        "  [1 identical before]")


def ran(status="ok", required=True):
    return Run("c", required, status, [], "why" if status in ("could_not_run", "skipped") else "")


@pytest.mark.parametrize("runs, new, scope_ok, want", [
    ([ran(), ran("findings")], 0, True, "PASS"),
    ([ran()], 1, True, "FAIL"),
    ([ran()], 0, False, "FAIL"),
    ([ran(), ran("could_not_run")], 0, True, "INCOMPLETE"),
    ([ran(), ran("could_not_run")], 2, True, "FAIL"),
    ([ran(), ran("could_not_run", required=False)], 0, True, "PASS"),
    ([ran(), ran("skipped")], 0, True, "INCOMPLETE"),
    ([ran(), ran("skipped", required=False)], 0, True, "PASS"),
    ([], 0, True, "INCOMPLETE"),
])
def test_verdict(runs, new, scope_ok, want):
    assert verdict(runs, new, scope_ok) == want

"""Token estimates and the one accounting rule, `can_fit()`."""
from __future__ import annotations

import pytest

from rt.budget import MEMORY_EACH, can_fit, cut_to, estimate, split
from rt.core import UsageError


def test_the_8192_split():
    s = split(8192)
    assert (s.system, s.output, s.memory_entries, s.memory_each) == (1000, 2000, 4, 90)
    assert s.code == 8192 - 1000 - 2000 - 4 * 90 == 4832
    # dense code runs 25-35 tokens a line: the code share is about 140-190 such lines
    dense = "        result = compute_total(order.items, discount=customer.discount_rate) * tax_factor\n"
    assert 25 <= estimate(dense) <= 35
    assert 135 <= cut_to(dense * 400, s.code).count("\n") <= 195


def test_small_windows_scale_down_and_tiny_ones_are_refused():
    s = split(4096)
    assert (s.system, s.output) == (512, 1024)
    assert s.code > 2000
    with pytest.raises(UsageError, match="too small.*give at least 894"):
        split(800)
    assert split(894).code == 200
    with pytest.raises(UsageError, match="give at least 894"):
        split(893)


def test_everything_fits_nothing_dropped():
    fit = can_fit(8192, code=4000, memory=[90, 90, 90, 90], folders=300)
    assert (fit.code, fit.memory, fit.folders, fit.dropped) == (4000, 4, True, [])


def test_folders_go_first_then_memory_then_code():
    room = 8192 - 1000 - 2000
    # a little too much: folder context goes, memory and code stay
    fit = can_fit(8192, code=room - 360, memory=[90] * 4, folders=50)
    assert (fit.folders, fit.memory, fit.code) == (False, 4, room - 360)
    assert fit.dropped == ["folder context (50 tokens)"]
    # more: memory goes from the last entry, code still whole
    fit = can_fit(8192, code=room - 100, memory=[90] * 4, folders=50)
    assert (fit.folders, fit.memory, fit.code) == (False, 1, room - 100)
    assert fit.dropped == ["folder context (50 tokens)", "3 of 4 memory entries"]
    # far too much: all memory goes, and only then is code cut to the room
    fit = can_fit(8192, code=room + 500, memory=[90] * 4, folders=50)
    assert (fit.folders, fit.memory, fit.code) == (False, 0, room)
    assert fit.dropped == ["folder context (50 tokens)", "4 of 4 memory entries", f"code beyond {room} of {room + 500} tokens"]


def test_memory_is_capped_at_four_entries_of_90():
    fit = can_fit(8192, code=100, memory=[500] * 6, folders=0)
    assert fit.memory == 4 and fit.dropped == []


def test_estimate_counts_words_numbers_punctuation_and_other_scripts():
    assert estimate("") == 0
    assert estimate("hello") == 1
    assert estimate(" internationalization") == 3          # 20 letters, 7 a token
    assert estimate("overflow") == 2                         # 8 letters: a second token begins
    assert estimate("==========") == 4                       # a run of 10 punctuation marks, 3 a token
    assert estimate("x = 12345") == 6          # x, " ", "=", " ", 123, 45
    assert estimate("日本語") == 3
    assert estimate("a\n    b") == 3


def test_cut_to_keeps_whole_lines_or_words():
    text = "".join(f"line number {i}\n" for i in range(100))
    cut = cut_to(text, 30)
    assert cut and text.startswith(cut) and cut.endswith("\n") and estimate(cut) <= 30
    words = cut_to("one two three " * 100, MEMORY_EACH, words=True)
    assert estimate(words) <= MEMORY_EACH and words.split()[-1] in ("one", "two", "three")

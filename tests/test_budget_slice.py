"""`rt slice --budget`: the slice is cut to the window's code share, and says so."""
from __future__ import annotations

from rt.budget import split


def test_slice_fits_the_budget_and_says_what_was_cut(project):
    project.write("big.py", "".join(f"value_{i} = compute_something_long(argument_{i}, other_{i}) + {i}\n" for i in range(2000)))
    project.init_git()
    whole = project.rt_json("slice", "big.py", "--lines", "1:2000")
    assert whole["end"] == 2000
    data = project.rt_json("slice", "big.py", "--lines", "1:2000", "--budget", "8192")
    assert 1 < data["end"] < 2000
    text = project.rt("slice", "big.py", "--lines", "1:2000", "--budget", "8192")
    assert f"(cut after line {data['end']} to fit --budget 8192; dropped: code beyond {split(8192).code + 360}" in text
    assert text.rstrip("\n").splitlines()[-1].strip().startswith(f"{data['end']}|")
    small = project.rt_json("slice", "big.py", "--lines", "1:20", "--budget", "8192")
    assert small["end"] == 20                   # what fits is not touched
    project.rt("slice", "big.py", "--lines", "1:20", "--budget", "300", ret=2)
    assert "too small" in project.last_err

"""Precise look-ups over the index: `rt symbol`, `rt refs`, `rt slice`, `rt outline` (`symbols.py`) and
`rt find` for text a user sees (`find.py`)."""

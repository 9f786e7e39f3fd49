"""The repository index: per file its language, definitions, imports, identifiers and translation keys,
kept current cheaply (`freshness.py`), read by the look-ups (`rt/lookup/`) and the pack (`rt/context.py`).
Language readers (`python.py`, `clike.py`) and the import resolver (`resolve.py`) build on `model.py`."""

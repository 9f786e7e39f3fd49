"""Reading what the project's own checks print: one parser per tool (`parsers.py`) into one record shape
(`model.py`), the new-versus-old diff and the verdict (`diff.py`), and `rt diff-logs` (`difflogs.py`).
Running the checks is `rt/checks.py`; comparing them for a task is `rt/task/verify.py`."""

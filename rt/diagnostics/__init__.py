"""Reading what the project's own checks print: parsers per tool family (`parsers/`) into one record
shape (`model.py`), where old lines went (`linemap.py`), the new-versus-old diff and the verdict
(`diff.py`), and `rt diff-logs` (`difflogs.py`). Running the checks is `rt/checks.py`; comparing them
for a task is `rt/task/verify.py`."""

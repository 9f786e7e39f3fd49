"""The parts the manifest and the task pack are made of: ranking files for a task (`rank.py`) and the
code fragments shown of each (`fragments.py`). `rt/context.py` puts them together."""

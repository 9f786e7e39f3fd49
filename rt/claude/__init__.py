"""Claude Code integration: the hooks (`hooks.py`, one table of events), the git guard they apply to Bash
commands (`gitguard.py`), and `rt install` / `rt doctor` (`install.py`). A hook imports only what its event
needs: nothing of the index or the checks unless the event uses them."""

"""The task spine: the commands that move a task from `rt start` to `rt finish`, what changed since its
snapshot (`rt delta`, `rt review`), running its checks against the baseline (`rt verify`) and the final
report. The state machine itself is `rt/state.py`; the store is `rt/store.py`."""

"""`python -m rt` and the `rt` console script.

`rt hook ...` goes straight to `rt.claude.hooks` so a hook, run on every tool call, imports no argparse and
no command table.
"""
import sys


def _ended(signum, frame):
    """SIGTERM or SIGHUP: unwind as Ctrl-C does. A check's programs run in a process group of their own (so
    a timeout ends all they started); whoever ends rt (a client cancelling a tool call, a closed terminal,
    an MCP client shutting its server down) signals rt alone, and only unwinding kills that group."""
    raise KeyboardInterrupt


def run() -> None:
    if sys.argv[1:2] == ["hook"]:
        from rt.claude.hooks import main as hook_main
        sys.exit(hook_main(sys.argv[2:]))
    import _signal   # what `signal` wraps: its enums cost a warm look-up's start-up 1 ms, a fortieth of it
    from rt.cli import main
    for sig in (_signal.SIGTERM, _signal.SIGHUP):
        _signal.signal(sig, _ended)
    sys.exit(main())


if __name__ == "__main__":
    run()

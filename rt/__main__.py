"""`python -m rt` and the `rt` console script.

`rt hook ...` goes straight to `rt.claude.hooks` so a hook, run on every tool call, imports no argparse and
no command table. A look-up (`hookserver.SERVED`: `rt find`, `rt refs` ...) is sent to the repository's hook
server when one is up (`hookserver.ask`), which answers it with the index it keeps; else it runs here.
"""
import os
import sys


def _ended(signum, frame):
    """SIGTERM or SIGHUP: unwind as Ctrl-C does. A check's programs run in a process group of their own (so
    a timeout ends all they started); whoever ends rt (a client cancelling a tool call, a closed terminal,
    an MCP client shutting its server down) signals rt alone, and only unwinding kills that group."""
    raise KeyboardInterrupt


def run() -> None:
    import gc
    # The start-up's imports make thousands of objects that live as long as the process: a collection among
    # them (1-2 ms of a warm look-up, more of a hook) frees nothing. They are made with the collector off, then
    # set aside (`gc.freeze`) and never scanned again; what the command itself makes is collected as ever.
    gc.disable()
    if sys.argv[1:2] == ["hook"]:
        from rt.claude.hooks import main as hook_main
        gc.freeze()
        gc.enable()
        sys.exit(hook_main(sys.argv[2:]))
    if sys.argv[1:2] and os.environ.get("RT_HOOK_SERVER") != "0":
        from rt.claude.hookserver import SERVED, ask
        if sys.argv[1] in SERVED:   # a look-up the repository's hook server answers, when one is up
            code = ask(sys.argv[1:])
            if code is not None:
                sys.exit(code)
    import _signal   # what `signal` wraps: its enums cost a warm look-up's start-up 1 ms, a fortieth of it
    from rt.cli import main
    gc.freeze()
    gc.enable()
    for sig in (_signal.SIGTERM, _signal.SIGHUP):
        _signal.signal(sig, _ended)
    sys.exit(main())


if __name__ == "__main__":
    run()

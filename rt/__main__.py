"""`python -m rt` and the `rt` console script.

`rt hook ...` goes straight to `rt.claude.hooks` so a hook, run on every tool call, imports no argparse and
no command table.
"""
import sys


def run() -> None:
    if sys.argv[1:2] == ["hook"]:
        from rt.claude.hooks import main as hook_main
        sys.exit(hook_main(sys.argv[2:]))
    from rt.cli import main
    sys.exit(main())


if __name__ == "__main__":
    run()

"""`python -m rt` and the `rt` console script."""
import sys

from rt.cli import main


def run() -> None:
    sys.exit(main())


if __name__ == "__main__":
    run()

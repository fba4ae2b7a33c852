"""CLI sub-commands beyond the core ones, one module each (``add_parser(sub)`` registers it).

Exit codes shared by every command: 0 done, 2 bad input (one line on stderr), 3 a release that does
not satisfy its privacy models, 4 ``verify`` found a difference.
"""

import argparse
import sys
from collections.abc import Callable

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_NOT_SATISFIED = 3
EXIT_VERIFY_FAILED = 4


def verbose_progress(args: argparse.Namespace) -> Callable[[float, str], None]:
    """Progress lines on stderr with --verbose, one per tenth (grouping, writing large files,
    attacks and fits take a while); nothing without it."""
    state = {"last": -1}

    def report(fraction: float, message: str) -> None:
        step = int(fraction * 10)
        if getattr(args, "verbose", False) and step != state["last"]:
            state["last"] = step
            sys.stderr.write(f"{message}: {fraction:.0%}\n")

    return report

"""CLI sub-commands beyond the core ones, one module each (``add_parser(sub)`` registers it).

Exit codes shared by every command: 0 done, 2 bad input (one line on stderr), 3 a release that does
not satisfy its privacy models, 4 ``verify`` found a difference.
"""

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_NOT_SATISFIED = 3
EXIT_VERIFY_FAILED = 4

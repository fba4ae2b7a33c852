"""``anon-core release CONFIG [--method NAME] --output FILE``: one release with any registered method.

The method and its parameters come from the configuration's ``method`` section (generalization
when there is none); ``--method`` names another one (with its default parameters unless the section
configures that same method). The file is written atomically (a temporary file in the target
folder, then ``os.replace``). Before anything runs, an output in an unsupported format, one that
is any file the run reads (input, configuration, hierarchies, population table, attack files, key
files; any spelling, hard or symbolic link) or one that is not a regular file is refused
(:func:`anon_core.data.paths.check_run_outputs`). Prints one JSON object: method, parameters,
seed, guarantee, rows, seconds, details.
"""

from __future__ import annotations

import argparse
import json
import sys

from anon_core.commands import EXIT_OK
from anon_core.config import load_config
from anon_core.data.paths import check_run_outputs
from anon_core.release.engines.base import write_frame
from anon_core.release.methods import METHODS
from anon_core.services.compare import release_with_config


def _run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    check_run_outputs(
        {"--output": (args.output, "table")}, config=config, config_path=args.config
    )
    release = release_with_config(config, method=args.method)
    path = write_frame(release.output.table, args.output, formula_escape=config.formula_escape)
    summary = release.to_dict()
    summary["output"] = str(path)
    sys.stdout.write(json.dumps(summary, indent=2, default=str) + "\n")
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "release", help="write one release with a registered method (the configuration's 'method')"
    )
    parser.add_argument("config", help="release configuration (JSON or YAML)")
    parser.add_argument(
        "--method",
        metavar="NAME",
        help=f"release method, overriding the configuration's ({', '.join(sorted(METHODS))})",
    )
    parser.add_argument(
        "--output", "-o", required=True, help="released file (.csv, .tsv, .parquet, .xlsx, .json)"
    )
    parser.set_defaults(func=_run)

"""Command line: ``anon-core anonymize CONFIG [--output FILE]``.

Without a ``transformation`` in the configuration the optimal one is searched
for, and the JSON gains ``nodes_checked``, ``lattice_size``, ``ties`` and
``search_ms``.

Prints one JSON object on stdout. Bad input exits 2 with a one-line message on
stderr; a release that does not satisfy the privacy models is not written
(exit 3) unless ``--force`` is given.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import warnings
from pathlib import Path

import pandas as pd

from .config import Problem, load_config
from .errors import AnonError

log = logging.getLogger("anon_core")

EXIT_BAD_INPUT = 2
EXIT_NOT_SATISFIED = 3


def write_table(frame: pd.DataFrame, path: Path) -> None:
    """Write a released table; the format follows the suffix (csv, tsv, parquet, xlsx, json)."""
    suffix = path.suffix.lower()
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix in {".csv", ""}:
        frame.to_csv(path, index=False, lineterminator="\n")
    elif suffix == ".tsv":
        frame.to_csv(path, index=False, sep="\t", lineterminator="\n")
    elif suffix == ".parquet":
        frame.to_parquet(path, index=False)
    elif suffix in {".xlsx", ".xlsm"}:
        frame.to_excel(path, index=False)
    elif suffix == ".json":
        frame.to_json(path, orient="records", force_ascii=False, indent=1)
    else:
        raise AnonError(f"Output format {suffix!r} is not supported; use .csv, .tsv, .parquet, .xlsx or .json.")


def _anonymize(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    problem = Problem.from_config(config)
    if config.transformation is None:
        found = problem.search(**config.search)
        summary = found.summary()
        result = found.optimum
    else:
        result = problem.evaluate(config.transformation)
        summary = result.summary()
    if result is not None:
        summary["models"] = [
            {"model": s.model, "satisfied": s.satisfied, "violating_records": s.violating_records}
            for s in result.models
        ]
    if args.output:
        if result is None:
            json.dump(summary, sys.stdout, indent=2)
            sys.stdout.write("\n")
            sys.stderr.write(
                "error: no transformation satisfies the privacy models within the suppression limit; "
                "nothing was written. Relax the models, raise the suppression limit or the hierarchies' heights.\n"
            )
            return EXIT_NOT_SATISFIED
        if not result.satisfied and not args.force:
            json.dump(summary, sys.stdout, indent=2)
            sys.stdout.write("\n")
            sys.stderr.write(
                "error: the transformation does not satisfy the privacy models within the suppression limit; "
                "nothing was written (use --force to write it anyway).\n"
            )
            return EXIT_NOT_SATISFIED
        released = problem.apply(result, config.suppressed_records)
        write_table(released, Path(args.output))
        summary["output"] = {"path": str(args.output), "rows": len(released)}
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="anon-core", description="ARX-exact anonymization engine.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = parser.add_subparsers(dest="command", required=True)
    anon = sub.add_parser(
        "anonymize",
        help="evaluate the configuration's transformation, or search for the optimal one when it has none",
    )
    anon.add_argument("config", help="release configuration (JSON or YAML)")
    anon.add_argument("--output", "-o", help="write the released table here (.csv/.tsv/.parquet/.xlsx/.json)")
    anon.add_argument("--force", action="store_true", help="write the output even if the models are not satisfied")
    anon.set_defaults(func=_anonymize)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            code = args.func(args)
        except AnonError as exc:
            sys.stderr.write(f"error: {exc}\n")
            code = EXIT_BAD_INPUT
        except (OSError, MemoryError) as exc:
            sys.stderr.write(f"error: {exc}\n")
            code = EXIT_BAD_INPUT
    for w in caught:
        sys.stderr.write(f"warning: {w.message}\n")
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

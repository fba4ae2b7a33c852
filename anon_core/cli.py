"""Command line: ``anon-core anonymize CONFIG [--output FILE]`` and ``anon-core risk CONFIG``.

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

from anon_core.commands import (
    EXIT_BAD_INPUT,
    EXIT_NOT_SATISFIED,
    EXIT_VERIFY_FAILED,
    verbose_progress,
)
from anon_core.commands import attack as attack_command
from anon_core.commands import compare as compare_command
from anon_core.commands import deid_docs as deid_docs_command
from anon_core.commands import deidentify as deidentify_command
from anon_core.commands import recommend as recommend_command
from anon_core.commands import release as release_command
from anon_core.commands import train as train_command
from anon_core.data.io import write_table  # noqa: F401 - re-exported for callers of the CLI module
from anon_core.errors import AnonError, ConfigError
from anon_core.release.engines.base import write_frame
from anon_core.services import runs
from anon_core.services.session import Session
from anon_core.validation import check_arguments

log = logging.getLogger("anon_core")

#: Sub-command modules registered after the core commands (each has ``add_parser(sub)``).
EXTRA_COMMANDS: tuple = (
    release_command,
    compare_command,
    attack_command,
    train_command,
    recommend_command,
    deidentify_command,
    deid_docs_command,
)


def _check_run_paths(config, config_path, **outputs) -> None:
    """Refuse (exit 2), before anything runs, an output in an unsupported format, one that is a
    file the run reads or another output, or one that is not a regular file.

    ``outputs``: option name -> (path, kind), kind as :func:`anon_core.data.paths.check_run_outputs`."""
    from anon_core.data.paths import check_run_outputs

    check_run_outputs(
        {f"--{k.replace('_', '-')}": v for k, v in outputs.items()},
        config=config,
        config_path=config_path,
    )


def _refuse_other_methods(config, config_path: str) -> None:
    """``anonymize`` releases by generalization only: a configuration whose ``method`` names
    another method is refused, so no file or report can claim a release that was not made."""
    from anon_core.methods.config import DEFAULT_METHOD, method_section

    chosen = method_section(config)
    if chosen.name != DEFAULT_METHOD:
        raise ConfigError(
            f"the configuration's method is {chosen.name!r}, and 'anonymize' releases by "
            f"generalization only. Run 'anon-core release {config_path} --output FILE' to release "
            f"with {chosen.name!r}, or remove the 'method' section."
        )


def _anonymize(args: argparse.Namespace) -> int:
    session = Session.open(args.config)
    _refuse_other_methods(session.config, args.config)
    _check_run_paths(
        session.config,
        args.config,
        output=(args.output, "table"),
        report=(args.report, "report"),
        pseudonym_map=(args.pseudonym_map, "table"),
    )
    progress = verbose_progress(args)
    resolution = session.resolution(
        engine=args.engine, progress=progress, return_mapping=bool(args.pseudonym_map)
    )
    result = resolution.result
    summary = resolution.summary()
    refusal = None  # refusals come before any file is written (the pseudonym map included)
    if args.output and result is None:
        refusal = (
            "no transformation satisfies the privacy models within the suppression limit; nothing "
            "was written. Relax the models, raise the suppression limit or the hierarchies' heights."
        )
    elif args.output and not result.satisfied and not args.force:
        refusal = (
            "the transformation does not satisfy the privacy models within the suppression limit; "
            "nothing was written (use --force to write it anyway)."
        )
    elif args.report and (result is None or (not result.satisfied and not args.force)):
        refusal = (
            "the configuration gives no release that satisfies the privacy models within the "
            "suppression limit; no report was written (use --force to report an unsatisfying "
            "transformation)."
        )
    if refusal is not None:
        _print_json(summary)
        sys.stderr.write(f"error: {refusal}\n")
        return EXIT_NOT_SATISFIED
    if args.pseudonym_map and resolution.mapping is not None:
        write_frame(  # only on explicit request; atomic
            resolution.mapping,
            Path(args.pseudonym_map),
            formula_escape=resolution.config.formula_escape,
        )
    if args.output:
        written = session.write_generalization(resolution, args.output, progress)
        summary["output"] = {
            "path": str(args.output),
            "rows": written.rows,
            "engine": written.engine,
            "sha256": written.sha256,
        }
    if args.report:
        from anon_core.report import build_report, write_report

        report = build_report(
            session.config,
            evidence=session.report_evidence(resolution),
            released=Path(args.output) if args.output else None,
        )
        write_report(report, Path(args.report))
        summary["report"] = {"path": str(args.report), "figures_sha256": report.figures_sha256}
    _print_json(summary)
    return 0


def _print_json(data: dict, allow_nan: bool = True) -> None:
    json.dump(data, sys.stdout, indent=2, allow_nan=allow_nan)
    sys.stdout.write("\n")


def _risk(args: argparse.Namespace) -> int:
    """Re-identification risk as JSON: of a released file, the original table, or the configuration's release."""
    from anon_core.services.risk_summary import NoReleaseToAssess

    session = Session.open(args.config)
    try:
        out = runs.risk(
            session,
            released=args.released,
            original=args.original,
            force=args.force,
            engine=args.engine,
            population=args.population_size,
            max_combination_size=args.max_combination_size,
            progress=verbose_progress(args),
        )
    except NoReleaseToAssess as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_NOT_SATISFIED
    _print_json(out, allow_nan=False)
    return 0


def _verify(args: argparse.Namespace) -> int:
    """Re-run the configuration and check every fingerprint and figure of a release report."""
    from anon_core.report.verify import verify_report

    found = verify_report(
        args.config,
        args.report,
        args.released,
        args.public_key,
        no_signature=args.no_signature,
        documents_path=args.documents,
    )
    json.dump(found.to_dict(), sys.stdout, indent=2)
    sys.stdout.write("\n")
    for line in found.differences:
        sys.stderr.write(f"difference: {line}\n")
    for line in found.notes:
        sys.stderr.write(f"note: {line}\n")
    return EXIT_VERIFY_FAILED if found.differences else 0


def _dp(args: argparse.Namespace) -> int:
    """Run the configuration's dp section on its input; print the results and the budget spent."""
    session = Session.open(args.config)
    _check_run_paths(session.config, args.config, output=(args.output, "json"))
    text = (
        json.dumps(runs.dp(session).to_dict(), indent=2, allow_nan=False, ensure_ascii=False) + "\n"
    )
    if args.output:
        from anon_core.data.safe_write import atomic_write

        atomic_write(args.output, text.encode("utf-8"))
    sys.stdout.write(text)
    return 0


def _scan(args: argparse.Namespace) -> int:
    """Find personal data in a sample of each column and propose roles (offline)."""
    from anon_core.data.io import load_table
    from anon_core.pii import scan_report_dict, scan_table

    report = scan_table(
        load_table(args.file).frame, sample_size=args.sample_size, random_state=args.random_state
    )
    json.dump(scan_report_dict(report), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def _engine_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine",
        choices=["auto", "pandas", "duckdb", "spark"],
        default=None,
        help="where the table is grouped and released (default: the configuration's 'engine', else auto: DuckDB "
        "for CSV files over 512 MiB and Parquet over 128 MiB, pandas otherwise)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="anon-core", description="ARX-exact anonymization engine."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = parser.add_subparsers(dest="command", required=True)
    anon = sub.add_parser(
        "anonymize",
        help="evaluate the configuration's transformation, or search for the optimal one when it has none",
    )
    anon.add_argument("config", help="release configuration (JSON or YAML)")
    anon.add_argument(
        "--output", "-o", help="write the released table here (.csv/.tsv/.parquet/.xlsx/.json)"
    )
    anon.add_argument(
        "--force", action="store_true", help="write the output even if the models are not satisfied"
    )
    anon.add_argument(
        "--pseudonym-map",
        metavar="FILE",
        help="write the reversible pseudonym mapping here (only on request; keep it secret)",
    )
    anon.add_argument(
        "--report",
        metavar="FILE",
        help="write the release report for sign-off here (.html with interactive charts, or .pdf)",
    )
    _engine_option(anon)
    anon.set_defaults(func=_anonymize)
    risk = sub.add_parser(
        "risk",
        help="re-identification risk (ARX's figures) of the configuration's release, the original or a released file",
    )
    risk.add_argument(
        "config", help="release configuration (JSON or YAML); gives the quasi-identifiers"
    )
    source = risk.add_mutually_exclusive_group()
    source.add_argument(
        "--released", metavar="FILE", help="assess this released table (QIs from the configuration)"
    )
    source.add_argument("--original", action="store_true", help="assess the original input table")
    risk.add_argument(
        "--force",
        action="store_true",
        help="assess a configured transformation that does not satisfy the models (its figures are then "
        'those of the table without suppression, marked "satisfied": false)',
    )
    risk.add_argument(
        "--population-size",
        type=int,
        default=None,
        help="size of the population the table was drawn from (default: the configuration's "
        "'population' size, else USA, 317238626)",
    )
    risk.add_argument(
        "--max-combination-size",
        type=int,
        default=3,
        help="largest combination of QIs in the QI analysis (0: skip it; default 3)",
    )
    _engine_option(risk)
    risk.set_defaults(func=_risk)
    dp = sub.add_parser(
        "dp", help="run the configuration's differential-privacy queries (its 'dp' section)"
    )
    dp.add_argument("config", help="release configuration (JSON or YAML) with a 'dp' section")
    dp.add_argument("--output", "-o", help="also write the results (JSON) here")
    dp.set_defaults(func=_dp)
    scan = sub.add_parser(
        "scan", help="find personal data in a sample of each column and propose roles (offline)"
    )
    scan.add_argument("file", help="table to scan (CSV/TSV/Excel/Parquet/JSON)")
    scan.add_argument(
        "--sample-size", type=int, default=100, help="non-null values analysed per column"
    )
    scan.add_argument("--random-state", type=int, default=0, help="seed of the sample")
    scan.set_defaults(func=_scan)
    ver = sub.add_parser(
        "verify",
        help="re-run a configuration and check a release report's fingerprints and figures (exit 4 on differences)",
    )
    ver.add_argument("config", help="release configuration (JSON or YAML)")
    ver.add_argument(
        "report",
        help="release report written by 'anonymize --report' or the dashboard (.html or .pdf)",
    )
    ver.add_argument(
        "--released",
        metavar="FILE",
        help="also check this released file's SHA-256 against the report",
    )
    ver.add_argument(
        "--public-key",
        metavar="FILE",
        help="check the report's Ed25519 sign-off signature with this public key (PEM/OpenSSH/base64); "
        "without it a signed or signed-off report fails verification (its sign-off is unverified)",
    )
    ver.add_argument(
        "--no-signature",
        action="store_true",
        help="do not check the sign-off or signature: check the figures, hashes and visible content only "
        "(said in the output)",
    )
    ver.add_argument(
        "--documents",
        metavar="ZIP|DIR",
        help="also check the SHA-256 of the de-identified documents a dossier lists (the "
        "dashboard's ZIP, or a folder holding them)",
    )
    ver.set_defaults(func=_verify)
    for command in EXTRA_COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            check_arguments(vars(args))  # a NUL in a file name: one line, not a traceback
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

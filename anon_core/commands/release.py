"""``anon-core release CONFIG [--method NAME] -o FILE [--report R.html|R.pdf]``: one release with
any registered method, its evidence, the acceptance verdict and the signed dossier.

The method and its parameters come from the configuration's ``method`` section (generalization
when there is none); ``--method`` names another one (with its default parameters unless the section
configures that same method). Everything runs through the application's front door
(:class:`anon_core.services.session.Session`): the release, the evidence on a seeded rehearsal
(``--scope part`` releases only the rehearsal's released part, so every figure is measured on the
file itself), and the verdict of the configuration's ``acceptance`` criteria (or the defaults).

Before anything runs, an output in an unsupported format, one that is any file the run reads or
one that is not a regular file is refused (:func:`anon_core.data.paths.check_run_outputs`). The
released file is written atomically, and only when the verdict passes (exit 3 otherwise, unless
``--force``); the dossier is written either way, so the officer can read why. Prints one JSON
object: the release (method, parameters, seed, guarantee, hashes, rehearsal), the evidence
figures and the verdict.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from anon_core.commands import EXIT_NOT_SATISFIED, EXIT_OK, verbose_progress
from anon_core.config import load_config
from anon_core.data.paths import check_run_outputs
from anon_core.errors import ConfigError
from anon_core.methods import METHODS
from anon_core.release.engines.base import write_frame
from anon_core.services.session import Session


def _signoff(path: str | None) -> dict | None:
    if path is None:
        return None
    from anon_core.config import read_config_file

    return read_config_file(path)


def _run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    check_run_outputs(
        {
            "--output": (args.output, "table"),
            "--report": (args.report, "report"),
        },
        config=config,
        config_path=args.config,
        inputs={"--signoff": args.signoff},
    )
    signoff = _signoff(args.signoff)
    session = Session(config)
    progress = verbose_progress(args)

    release = session.release(args.method, scope=args.scope, progress=progress)
    summary: dict = {"release": release.to_dict()}
    if args.no_evidence:
        if args.report:
            raise ConfigError("--report needs the evidence: leave out --no-evidence.")
        path = write_frame(release.table, args.output, formula_escape=config.formula_escape)
        summary["output"] = {"path": str(path), "rows": release.rows}
        sys.stdout.write(json.dumps(summary, indent=2, default=str) + "\n")
        return EXIT_OK
    evidence = session.evidence(
        release,
        n_attacks=args.n_attacks,
        progress=progress,
        shadow=bool(args.shadow),
        dp_audit=bool(args.dp_audit),
        exposure=bool(args.exposure or args.report),
    )
    verdict = session.verdict(evidence)
    summary["evidence"] = {k: dict(v) for k, v in evidence.figures.items()}
    summary["verdict"] = verdict.to_dict()
    written = None
    if verdict.passed or args.force:
        written = write_frame(release.table, args.output, formula_escape=config.formula_escape)
        summary["output"] = {"path": str(written), "rows": release.rows}
    if args.report:
        from anon_core.report import write_report
        from anon_core.report.dossier import build_dossier

        report = build_dossier(
            session, release, evidence, verdict, signoff=signoff, released_file=written
        )
        write_report(report, Path(args.report))
        summary["report"] = {"path": str(args.report), "figures_sha256": report.figures_sha256}
    sys.stdout.write(json.dumps(summary, indent=2, default=str) + "\n")
    if written is None:
        sys.stderr.write(
            f"error: {verdict.headline()} The released file was not written (use --force to "
            "write it anyway); the dossier says why.\n"
        )
        return EXIT_NOT_SATISFIED
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "release",
        help="release with any registered method, with its evidence, verdict and signed dossier",
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
    parser.add_argument("--report", metavar="FILE", help="write the signed dossier (.html or .pdf)")
    parser.add_argument(
        "--signoff",
        metavar="FILE",
        help="sign-off (JSON/YAML: name, role, decision approve|reject, comments, justification)",
    )
    parser.add_argument(
        "--scope",
        choices=("whole", "part"),
        help="release the whole table (evidence from a rehearsal; default for reproducible "
        "methods) or only the rehearsal's released part (default for the others)",
    )
    parser.add_argument(
        "--n-attacks", type=int, metavar="N", help="guesses per attack (default: 2,000)"
    )
    parser.add_argument(
        "--no-evidence", action="store_true", help="release only: no attacks, utility or verdict"
    )
    parser.add_argument(
        "--shadow",
        action="store_true",
        help="also run shadow-model membership inference on the 10 most vulnerable records "
        "(synthetic and perturbative methods; re-fits the method 16 times)",
    )
    parser.add_argument(
        "--exposure",
        action="store_true",
        help="count the 1%% most vulnerable records singled out, linked and inferred (on by "
        "default with --report; about 1 s CPU on 20,000 Adult records)",
    )
    parser.add_argument(
        "--dp-audit",
        action="store_true",
        help="for an epsilon-DP method, audit its measurement step: a measured membership "
        "advantage beyond what epsilon allows is an implementation fault (dp_audit_violation)",
    )
    parser.add_argument(
        "--force", action="store_true", help="write the released file even when the verdict fails"
    )
    parser.add_argument("--verbose", "-v", action="store_true", help="progress on stderr")
    parser.set_defaults(func=_run)

"""``anon-core deid-docs IN_DIR OUT_DIR [--config CFG] [--numbered]``: de-identify a folder.

Every document under ``IN_DIR`` (sub-folders included; .docx, .pdf, .txt, .png, .jpg/.jpeg,
.tif/.tiff; other files are skipped) is de-identified with the engine of ``anon-core
deidentify`` and written under the same relative path in ``OUT_DIR``, a new or empty folder
outside ``IN_DIR`` (refused before anything is read otherwise). ``OUT_DIR`` also gets
``deidentification-log.json`` and ``deidentification-log.csv``: per file its kind, language,
entity types and counts and the SHA-256 of the input and output, never a value. A file that
cannot be read is listed with its reason and the others go on; the command then ends with one
``error:`` line and exit code 2.

Prints one JSON object: ``{"files": N, "deidentified": n, "failed": [...], "entities": {...},
"written": OUT_DIR}``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import warnings

from anon_core.commands import EXIT_OK
from anon_core.errors import ConfigError

log = logging.getLogger(__name__)


def _run(args: argparse.Namespace) -> int:
    from anon_core.commands.deidentify import text_section_of
    from anon_core.config import read_config_file

    with warnings.catch_warnings():  # third-party import-time deprecations are not the user's
        warnings.simplefilter("ignore", DeprecationWarning)
        from anon_core.services.documents import check_folders, deidentify_folder

    from pathlib import Path

    source, target = Path(args.input_dir), Path(args.output_dir)
    check_folders(source, target)
    if args.config:
        config = Path(args.config).resolve()
        if target.resolve() in config.parents:
            raise ConfigError("the configuration file must not lie inside the output folder.")
    section = text_section_of(read_config_file(args.config) if args.config else {}).to_dict()

    def progress(_fraction: float, message: str) -> None:
        log.info("%s", message)

    with warnings.catch_warnings():  # spaCy's loader triggers click deprecations: not the user's
        warnings.simplefilter("ignore", DeprecationWarning)
        run = deidentify_folder(source, target, section, numbered=args.numbered, progress=progress)
    out = {
        "files": len(run.records) + len(run.failed),
        "deidentified": len(run.records),
        "failed": [{"name": n, "error": e} for n, e in run.failed],
        "entities": run.entity_totals(),
        "written": str(target),
    }
    sys.stdout.write(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    if run.failed:
        raise ConfigError(
            f"{len(run.failed)} of {out['files']} documents could not be de-identified (listed "
            "under 'failed' above and in the log); the others were written."
        )
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "deid-docs",
        help="de-identify every DOCX, PDF, text and image document of a folder into a new folder, "
        "with a log of entity counts per file",
    )
    parser.add_argument("input_dir", help="folder of documents (sub-folders included)")
    parser.add_argument("output_dir", help="new or empty folder for the de-identified documents")
    parser.add_argument(
        "--config", metavar="CFG", help="JSON or YAML file with a 'text' section (operators, ...)"
    )
    parser.add_argument(
        "--numbered",
        action="store_true",
        help="name the outputs document-001.docx, ... (file names can hold personal data)",
    )
    parser.set_defaults(func=_run)

"""``anon-core deidentify IN.docx|.pdf|.txt|.png|.jpg|.tif -o OUT [--config CFG]``: de-identify a document.

Writes the de-identified document to ``OUT`` (same kind as the input; a PDF becomes a new PDF
of plain text pages, scanned pages as images with boxes; an image is read by OCR and written
with black boxes over the found words) atomically, never onto the input or the configuration (refused before anything is
read). ``--config`` is a JSON or YAML file whose ``text`` section (the same as a release
configuration's, ``columns`` not needed) sets operators, allow and deny lists, recognizers and
the score threshold; without it every entity is replaced by its type tag (``<PERSON>``).

Prints one JSON object, counts and types only, never a value::

    {"input_kind": "docx", "language": "fr", "blocks": 12, "blocks_changed": 5,
     "entities": {"PERSON": 4, "PHONE_NUMBER": 2}, "notices": [...], "written": "OUT"}
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import Any

from anon_core.commands import EXIT_OK
from anon_core.errors import ConfigError

#: The placeholder column name a document's ``text`` section is validated with.
DOCUMENT_COLUMN = "document"


def text_section_of(raw: Any) -> Any:
    """The validated ``text`` section of a configuration mapping (or of the mapping itself)."""
    from anon_core.pii.settings import validate_text_section

    if not isinstance(raw, dict):
        raise ConfigError("the --config file must hold a mapping with a 'text' section.")
    section = raw.get("text", raw if "operators" in raw or "entities" in raw else {})
    if not isinstance(section, dict):
        raise ConfigError(
            f"'text' must be a mapping (operators, allow_list, ...), got {type(section).__name__}."
        )
    section = {"columns": [DOCUMENT_COLUMN], **section}
    return validate_text_section(section)


def _run(args: argparse.Namespace) -> int:
    from anon_core.config import read_config_file
    from anon_core.data.paths import check_run_outputs

    with warnings.catch_warnings():  # third-party import-time deprecations are not the user's
        warnings.simplefilter("ignore", DeprecationWarning)
        from anon_core.pii.documents import deidentify_document, document_kind

    source = Path(args.input)
    kind = document_kind(source)
    if document_kind(args.output) != kind:
        raise ConfigError(f"-o {args.output!r}: the output must be a .{kind} file like the input.")
    check_run_outputs(
        {"-o": (args.output, "json")},  # kind "json": any file name (the suffix is checked above)
        config_path=args.config,
        inputs={"the input document": source},
    )
    cfg = text_section_of(read_config_file(args.config) if args.config else {})
    with warnings.catch_warnings():  # spaCy's loader triggers click deprecations: not the user's
        warnings.simplefilter("ignore", DeprecationWarning)
        summary = deidentify_document(source, args.output, cfg)
    out = {"input_kind": kind, **summary.to_dict(), "written": str(args.output)}
    out.pop("kind", None)
    sys.stdout.write(json.dumps(out, indent=2) + "\n")
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "deidentify",
        help="de-identify a DOCX, PDF (scanned pages by OCR), UTF-8 text or image (OCR) document",
    )
    parser.add_argument(
        "input", help="document to de-identify (.docx, .pdf, .txt, .png, .jpg/.jpeg, .tif/.tiff)"
    )
    parser.add_argument(
        "--output", "-o", required=True, metavar="OUT", help="de-identified document (same kind)"
    )
    parser.add_argument(
        "--config", metavar="CFG", help="JSON or YAML file with a 'text' section (operators, ...)"
    )
    parser.set_defaults(func=_run)

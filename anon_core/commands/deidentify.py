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


#: Largest key file read (a key is 16, 24 or 32 bytes; a newline may follow).
KEY_FILE_BYTES = 1024
#: Largest text file ``decrypt --text`` reads.
TEXT_FILE_BYTES = 50 * 1024 * 1024


def _read_key(args: argparse.Namespace) -> bytes:
    """The AES key from ``--key-env`` or ``--key-file``; never echoed in a message."""
    if (args.key_env is None) == (args.key_file is None):
        raise ConfigError(
            "give the key with exactly one of --key-env NAME (an environment variable) or "
            "--key-file PATH."
        )
    if args.key_env is not None:
        from anon_core.pii.settings import read_secret

        return read_secret(args.key_env, "--key-env", None)
    path = Path(args.key_file)
    if not path.is_file():
        raise ConfigError(f"--key-file {str(path)!r} does not exist or is not a regular file.")
    if path.stat().st_size > KEY_FILE_BYTES:
        raise ConfigError(
            f"--key-file {str(path)!r} is larger than {KEY_FILE_BYTES} bytes: it is not a key file."
        )
    return path.read_bytes().rstrip(b"\r\n")


def _decrypt(args: argparse.Namespace) -> int:
    from anon_core.pii.settings import AES_KEY_BYTES
    from anon_core.pii.text import decrypt_text, decrypt_value

    key = _read_key(args)
    if len(key) not in AES_KEY_BYTES:
        raise ConfigError(
            f"the key has {len(key)} bytes; an encrypt key has 16, 24 or 32 (the value the "
            "release's key_env variable held)."
        )
    if bool(args.tokens) == (args.text is not None):
        raise ConfigError("give either tokens to decrypt or --text FILE, not both and not neither.")
    if args.text is None:
        values = [decrypt_value(token, key) for token in args.tokens]
        sys.stdout.write("".join(v + "\n" for v in values))
        return EXIT_OK
    path = Path(args.text)
    if not path.is_file():
        raise ConfigError(f"--text {str(path)!r} does not exist or is not a regular file.")
    if path.stat().st_size > TEXT_FILE_BYTES:
        raise ConfigError(f"--text {str(path)!r} is larger than {TEXT_FILE_BYTES} bytes.")
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"--text {str(path)!r} is not UTF-8 text.") from None
    recovered_text, recovered, seen = decrypt_text(text, key)
    if seen and not recovered:
        raise ConfigError(
            f"none of the {seen} token(s) in {str(path)!r} decrypts with this key: the key differs "
            "from the one used, or the tokens were changed."
        )
    sys.stdout.write(recovered_text)
    return EXIT_OK


def _add_decrypt_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "decrypt",
        help="recover values replaced by the 'encrypt' operator (AES-SIV), with the key",
        description="Recover values replaced by the 'encrypt' operator. The key comes from an "
        "environment variable or a key file, never from the command line; it is never printed.",
    )
    parser.add_argument("tokens", nargs="*", help="tokens to decrypt (one value per line printed)")
    parser.add_argument(
        "--text",
        metavar="FILE",
        help="a de-identified UTF-8 text (or CSV): printed with every token of this key decrypted",
    )
    parser.add_argument(
        "--key-env", metavar="NAME", help="environment variable holding the key (e.g. ANON_AES_KEY)"
    )
    parser.add_argument(
        "--key-file", metavar="PATH", help="file holding the key (a trailing newline is ignored)"
    )
    parser.set_defaults(func=_decrypt)


def add_parser(sub: argparse._SubParsersAction) -> None:
    _add_decrypt_parser(sub)
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

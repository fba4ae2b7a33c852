"""Text encodings of input files: detected from the bytes (BOM, NUL pattern, UTF-8), never guessed.

Only these outcomes are possible: a byte-order mark, UTF-16/32 recognized by
where the NUL bytes of mostly-ASCII text fall, UTF-8, else the documented
single-byte fallback (cp1252), which the user is told about.
"""

from __future__ import annotations

from anon_core.errors import DataError
from anon_core.validation import check_text_encoding

#: The documented single-byte fallback for text that is not UTF-8 (Windows Western European,
#: a superset of Latin-1's printable characters). Never a code page guessed from statistics.
FALLBACK_ENCODING = "cp1252"
NUL_SAMPLE = 4096


def nul_pattern_encoding(raw: bytes) -> str | None:
    """UTF-16/32 without a byte-order mark, recognized by where the NUL bytes of mostly-ASCII text fall."""
    head = raw[:NUL_SAMPLE]
    if len(head) < 4 or b"\x00" not in head:
        return None
    quads = [head[i : i + 4] for i in range(0, len(head) - len(head) % 4, 4)]
    if quads:
        if sum(q[1:] == b"\x00\x00\x00" for q in quads) >= 0.9 * len(quads):
            return "utf-32-le"
        if sum(q[:3] == b"\x00\x00\x00" for q in quads) >= 0.9 * len(quads):
            return "utf-32-be"
    pairs = head[: len(head) - len(head) % 2]
    half = len(pairs) // 2
    even_nul, odd_nul = pairs[0::2].count(0), pairs[1::2].count(0)
    if odd_nul >= 0.6 * half and even_nul <= 0.05 * half:
        return "utf-16-le"
    if even_nul >= 0.6 * half and odd_nul <= 0.05 * half:
        return "utf-16-be"
    return None


def is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
        return True
    except UnicodeDecodeError as exc:
        # A sample cut inside a multi-byte character is still UTF-8.
        return exc.reason == "unexpected end of data" and exc.start >= len(raw) - 3


def detect_encoding(raw: bytes) -> str:
    """The encoding of text bytes: by byte-order mark, by NUL pattern (UTF-16/32), UTF-8, else cp1252.

    Only these outcomes are possible: a statistical guess on short inputs picks
    rare code pages (``Hélène`` read as cp1250 gives ``Hélčne``), so there is none.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if raw.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "utf-32"
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    by_nul = nul_pattern_encoding(raw)
    if by_nul is not None:
        return by_nul
    if is_utf8(raw):
        return "utf-8"
    return FALLBACK_ENCODING


def fallback_note(name: str) -> str:
    """What the user is told when a file was read with the single-byte default."""
    return (
        f"{name} is not UTF-8; it was read as {FALLBACK_ENCODING} (Western European, the documented default). "
        "If names look wrong (e.g. Central European text such as 'Łódź'), set input.encoding to the file's "
        "encoding (e.g. 'cp1250' or 'iso-8859-2') or save the file as UTF-8."
    )


def decode_text(raw: bytes, name: str, encoding: str | None = None) -> tuple[str, str, str | None]:
    """``(text, encoding, note)``: the bytes decoded faithfully; ``note`` says when the fallback was used."""
    if encoding is not None:
        enc = check_encoding(encoding)
    else:
        enc = detect_encoding(raw)
    note = fallback_note(name) if encoding is None and enc == FALLBACK_ENCODING else None
    try:
        text = raw.decode(enc)
    except UnicodeDecodeError as exc:
        if encoding is None and enc == FALLBACK_ENCODING:
            text = raw.decode("latin-1")  # the five bytes cp1252 leaves undefined
        else:
            raise DataError(
                f"{name} cannot be decoded as {enc!r} (byte {exc.start}). Set input.encoding to the file's "
                "encoding, for example 'cp1252', 'iso-8859-2' or 'utf-8'."
            ) from None
    return text, enc, note


def check_encoding(encoding: object, field: str = "input.encoding") -> str:
    """A text encoding name (not a codec such as base64 or rot13), or one ConfigError line
    naming the field (the one check: anon_core.validation.check_text_encoding)."""
    return check_text_encoding(field, encoding)

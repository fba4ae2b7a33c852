"""Ed25519 sign-off of a release report (Python's ``cryptography`` package).

The signature covers one canonical JSON payload: the SHA-256 of the canonical
figures, of the configuration as embedded, of the chart data (details), of the
input file (or table) and of the released file (or table); every metadata field
(time, software versions, search time, the figures' SHA-256 and the name,
version and SHA-256 of every library the HTML page inlines); and everything
shown as provided (sign-off, audit trail, PII, DP and ML summaries). Changing
any of them, or signing with another key, makes :func:`check_signature` fail.

The private key is read from the file named by the configuration's
``output.signing_key_file`` or from the environment variable named by
``output.signing_key_env`` (PEM, PKCS#8, unencrypted; or the 32 raw key bytes
in base64). It is never logged, embedded, echoed in a message or returned; the
report carries only the public key (to name the signer) and the signature.
Verification uses the public key the user gives (``anon-core verify
--public-key FILE``), never the embedded one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from anon_core.errors import ConfigError
from anon_core.report.model import plain

SIGNATURE_SCHEMA = "anon-core/signoff-signature/2"
#: Metadata keys that are not signed as metadata: the signature itself, and the copies of the
#: sign-off and audit trail kept for older readers (signed as ``provided``).
_UNSIGNED_META = ("signature", "signoff", "audit")


def _canonical(obj: Any) -> bytes:
    return json.dumps(
        plain(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def _digest(obj: Any) -> str:
    return hashlib.sha256(_canonical(obj)).hexdigest()


def signing_payload(
    figures: Mapping[str, Any],
    config: Mapping[str, Any],
    meta: Mapping[str, Any],
    provided: Mapping[str, Any],
    details: Mapping[str, Any] | None = None,
) -> bytes:
    """The canonical bytes a sign-off signs (see the module docstring)."""
    inp, out = figures.get("input") or {}, figures.get("output") or {}
    payload = {
        "schema": SIGNATURE_SCHEMA,
        "figures_sha256": _digest(figures),
        "config_sha256": _digest(config),
        "details_sha256": None if details is None else _digest(details),
        "input_sha256": (inp.get("file") or {}).get("sha256") or inp.get("table_sha256"),
        "output_sha256": (out.get("file") or {}).get("sha256") or out.get("csv_sha256"),
        "meta": plain({k: v for k, v in meta.items() if k not in _UNSIGNED_META}),
        "provided": plain(dict(provided)),
    }
    return _canonical(payload)


def _raw_public(key: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_fingerprint(public_key: Any) -> str:
    """SHA-256 of the raw 32-byte Ed25519 public key (how reports and messages name a key)."""
    return hashlib.sha256(_raw_public(public_key)).hexdigest()


#: How to make a key pair (the messages point here and to the documentation's section).
KEYGEN_HELP = (
    "Make an Ed25519 key pair with: openssl genpkey -algorithm ed25519 -out signing-key.pem && "
    "openssl pkey -in signing-key.pem -pubout -out signing-key.pub.pem (see 'Signing a release report "
    "and verifying it' in the documentation)"
)
#: A key file is a few hundred bytes; anything much larger is not a key (and is not read whole).
MAX_KEY_BYTES = 16 * 1024


def _key_errors() -> tuple[type[BaseException], ...]:
    from cryptography.exceptions import UnsupportedAlgorithm

    return (ValueError, TypeError, binascii.Error, UnsupportedAlgorithm)


def _read_key_file(p: Path, what: str) -> bytes:
    """A key file's bytes, refused (without reading it whole) when it is too large to be a key."""
    try:
        with p.open("rb") as fh:
            data = fh.read(MAX_KEY_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{what} {str(p)!r} cannot be read ({exc.strerror or exc}).") from None
    if len(data) > MAX_KEY_BYTES:
        raise ConfigError(
            f"{what} {str(p)!r} is over {MAX_KEY_BYTES // 1024} KiB, so it is not an Ed25519 key. "
            f"{KEYGEN_HELP}."
        )
    return data


def parse_private_key(data: bytes, source: str) -> Any:
    """An Ed25519 private key from PEM (PKCS#8) or base64 of the 32 raw bytes.

    Any failure is one :class:`ConfigError` naming ``source`` and how to make a key; the key
    material is never part of the message.
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    text = data.strip()
    if len(text) > MAX_KEY_BYTES:
        raise ConfigError(
            f"The signing key in {source} is over {MAX_KEY_BYTES // 1024} KiB, so it is not an Ed25519 "
            f"private key. {KEYGEN_HELP}."
        )
    try:
        if text.startswith(b"-----BEGIN"):
            key = serialization.load_pem_private_key(text, password=None)
        else:
            raw = base64.b64decode(text, validate=True)
            if len(raw) != 32:
                raise ValueError("wrong length")
            key = Ed25519PrivateKey.from_private_bytes(raw)
    except _key_errors():
        raise ConfigError(
            f"The signing key in {source} is not an unencrypted Ed25519 private key (PEM PKCS#8, or the 32 "
            f"key bytes in base64). {KEYGEN_HELP}."
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(
            f"The signing key in {source} is a {type(key).__name__}, not an Ed25519 key. {KEYGEN_HELP}."
        )
    return key


def load_public_key(path: str | os.PathLike[str]) -> Any:
    """An Ed25519 public key from a file: PEM, OpenSSH (``ssh-ed25519 ...``) or base64 raw bytes.

    Any failure is one :class:`ConfigError` (the file's content is never part of the message).
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"Public key file {str(p)!r} does not exist. Check the path.")
    data = _read_key_file(p, "Public key file").strip()
    if b"PRIVATE KEY" in data[:64]:
        raise ConfigError(
            f"{p.name} holds a private key: give verify the public key (keep the private one secret). "
            "Export it with: openssl pkey -in signing-key.pem -pubout -out signing-key.pub.pem"
        )
    try:
        if data.startswith(b"-----BEGIN"):
            key = serialization.load_pem_public_key(data)
        elif data.startswith(b"ssh-ed25519"):
            key = serialization.load_ssh_public_key(data)
        else:
            raw = base64.b64decode(data, validate=True)
            if len(raw) != 32:
                raise ValueError("wrong length")
            key = Ed25519PublicKey.from_public_bytes(raw)
    except _key_errors():
        raise ConfigError(
            f"{p.name} is not an Ed25519 public key (PEM, OpenSSH 'ssh-ed25519 ...', or the 32 key bytes in "
            f"base64). Export it from the signing key with: openssl pkey -in signing-key.pem -pubout -out "
            f"signing-key.pub.pem. {KEYGEN_HELP}."
        ) from None
    if not isinstance(key, Ed25519PublicKey):
        raise ConfigError(
            f"{p.name} holds a {type(key).__name__}, not an Ed25519 public key. {KEYGEN_HELP}."
        )
    return key


def configured_private_key(
    output: Mapping[str, Any], base_dir: str | os.PathLike[str] = "."
) -> Any | None:
    """The private key the configuration's ``output`` section names, or None when it names none."""
    if "signing_key_file" in output:
        p = Path(str(output["signing_key_file"])).expanduser()
        p = p if p.is_absolute() else Path(base_dir) / p
        if not p.is_file():
            raise ConfigError(
                f"'output.signing_key_file' names {str(p)!r}, which does not exist. Give the Ed25519 "
                f"private key file, or remove the option to leave the report unsigned. {KEYGEN_HELP}."
            )
        data = _read_key_file(p, "'output.signing_key_file'")
        return parse_private_key(data, f"'output.signing_key_file' ({p.name})")
    if "signing_key_env" in output:
        name = str(output["signing_key_env"])
        text = os.environ.get(name)
        value = None if text is None else text.encode("utf-8", errors="surrogateescape")
        if not value or not value.strip():
            raise ConfigError(
                f"'output.signing_key_env' names the environment variable {name!r}, which is not set. Set it "
                "to the Ed25519 private key (PEM or base64), or remove the option to leave the report "
                f"unsigned. {KEYGEN_HELP}."
            )
        return parse_private_key(value, f"the environment variable {name}")
    return None


def sign(private_key: Any, payload: bytes) -> dict[str, str]:
    """The signature block embedded in the report's metadata (no private material)."""
    public = private_key.public_key()
    return {
        "schema": SIGNATURE_SCHEMA,
        "algorithm": "Ed25519",
        "public_key": base64.b64encode(_raw_public(public)).decode("ascii"),
        "public_key_sha256": key_fingerprint(public),
        "payload_sha256": hashlib.sha256(payload).hexdigest(),
        "signature": base64.b64encode(private_key.sign(payload)).decode("ascii"),
    }


def check_signature(block: Mapping[str, Any] | None, payload: bytes, public_key: Any) -> list[str]:
    """Differences between a signature block and the payload under ``public_key`` ([] when valid)."""
    from cryptography.exceptions import InvalidSignature

    if not block:
        return ["signature: the report is not signed, but a public key was given to check it"]
    if not isinstance(block, Mapping):
        return ["signature: the report's signature block is not a signature (edited): INVALID"]
    out = []
    expected = key_fingerprint(public_key)
    if block.get("public_key_sha256") != expected:
        out.append(
            f"signature: made with the key {block.get('public_key_sha256')}, not with the public key given "
            f"({expected})"
        )
    if block.get("payload_sha256") != hashlib.sha256(payload).hexdigest():
        out.append(
            "signature: the signed figures, configuration, hashes or sign-off differ from the report's"
        )
    try:
        public_key.verify(base64.b64decode(str(block.get("signature", "")), validate=True), payload)
    except (InvalidSignature, binascii.Error, ValueError):
        out.append("signature: INVALID for the report's content under the public key given")
    return out

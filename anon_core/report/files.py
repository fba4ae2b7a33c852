"""Writing a report file (atomically) and reading its embedded JSON back."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

from anon_core.data.safe_write import atomic_write
from anon_core.errors import ConfigError
from anon_core.report.html import render_html
from anon_core.report.model import ATTACHMENTS, Report
from anon_core.report.pdf import render_pdf


def write_report(report: Report, path: str | os.PathLike[str]) -> Path:
    """Write the report as HTML (.html/.htm) or PDF (.pdf), by the suffix."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in {".html", ".htm"}:
        data = render_html(report).encode("utf-8")
    elif suffix == ".pdf":
        data = render_pdf(report)
    else:
        raise ConfigError(
            f"Report format {suffix or '(none)'!r} is not supported; name the report .html or .pdf."
        )
    return atomic_write(path, data)


class _ScriptGrabber:
    """Collects the text of <script type="application/json" id=...> elements."""

    def __init__(self, text: str) -> None:
        from html.parser import HTMLParser

        found: dict[str, str] = {}

        class Parser(HTMLParser):
            current: str | None = None

            def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
                a = dict(attrs)
                if tag == "script" and a.get("type") == "application/json" and a.get("id"):
                    self.current = a["id"]
                    found[self.current] = ""

            def handle_endtag(self, tag: str) -> None:
                if tag == "script":
                    self.current = None

            def handle_data(self, data: str) -> None:
                if self.current is not None:
                    found[self.current] += data

        parser = Parser(convert_charrefs=False)
        parser.feed(text)
        parser.close()
        self.found = found


def read_report(path: str | os.PathLike[str]) -> dict[str, Any]:
    """``{"figures", "config", "meta"}`` embedded in an HTML or PDF report."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"Report {str(path)!r} does not exist. Check the path.")
    raw = path.read_bytes()
    out: dict[str, Any] = {}
    try:
        if raw.lstrip()[:5] == b"%PDF-":
            try:
                from pypdf import PdfReader
            except ImportError:
                raise ConfigError("Reading a PDF report needs pypdf: pip install pypdf.") from None

            attachments = PdfReader(io.BytesIO(raw)).attachments
            for key, basename in ATTACHMENTS.items():
                if basename in attachments:
                    out[key] = json.loads(attachments[basename][0].decode("utf-8"))
        else:
            found = _ScriptGrabber(raw.decode("utf-8")).found
            for key in ATTACHMENTS:
                if f"release-{key}" in found:
                    out[key] = json.loads(found[f"release-{key}"])
    except ConfigError:
        raise
    except (ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"Report {path.name} could not be read ({exc}); it is not a release report."
        ) from None
    except Exception as exc:  # pypdf raises its own errors on a broken PDF
        raise ConfigError(f"Report {path.name} is not a readable PDF ({exc}).") from None
    if "figures" not in out:
        raise ConfigError(
            f"Report {path.name} holds no release figures: give an HTML or PDF written by anon-core's release report."
        )
    return out


def read_report_figures(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The canonical figures block embedded in an HTML or PDF report."""
    return read_report(path)["figures"]

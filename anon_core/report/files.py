"""Writing a report file (atomically), reading its embedded JSON back, listing its active content."""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections import Counter
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


#: A report is a few MiB (plotly.js is about 5); anything far larger is refused before it is read.
MAX_REPORT_BYTES = 256 << 20
#: Elements that run code, load a document or redirect the page (none of them is in a report but <script>).
_ACTIVE_TAGS = {
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "base",
    "link",
    "form",
    "portal",
}
#: Attributes that take a URL (a ``javascript:`` or ``data:`` URL there runs code or loads content).
_URL_ATTRS = {
    "href",
    "src",
    "action",
    "formaction",
    "data",
    "xlink:href",
    "background",
    "poster",
    "srcdoc",
}


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def active_content(text: str) -> list[tuple[int, str]]:
    """Everything in an HTML page that can run code or style the page, as (line, description):
    every <script> and <style> element (with the SHA-256 of its text), event-handler attributes,
    ``javascript:``/``data:`` URLs, <meta http-equiv> and elements that load other documents."""
    from html.parser import HTMLParser

    found: list[tuple[int, str]] = []

    class Parser(HTMLParser):
        open: tuple[int, str, str] | None = None  # (line, tag, description) of an open script/style
        chunks: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            line = self.getpos()[0]
            for name, value in attrs:
                v = (value or "").strip().lower()
                if name.startswith("on"):
                    found.append(
                        (line, f"event handler {name}= on <{tag}> (SHA-256 {_sha(value or '')})")
                    )
                elif name in _URL_ATTRS and v.startswith(("javascript:", "vbscript:", "data:")):
                    found.append(
                        (
                            line,
                            f"{v.split(':')[0]}: URL in <{tag} {name}> (SHA-256 {_sha(value or '')})",
                        )
                    )
            if tag in _ACTIVE_TAGS or (tag == "meta" and any(n == "http-equiv" for n, _ in attrs)):
                shown = " ".join(f"{n}={(v or '')[:40]!r}" for n, v in attrs)
                found.append((line, f"<{tag} {shown}>".replace(" >", ">")))
            if tag in {"script", "style"}:
                shown = " ".join(f'{n}="{v or ""}"' for n, v in attrs if n in {"type", "id", "src"})
                self.open = (line, tag, f"<{tag}{' ' + shown if shown else ''}>")
                self.chunks = []

        def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.handle_starttag(tag, attrs)
            if tag in {"script", "style"}:
                self.handle_endtag(tag)

        def handle_endtag(self, tag: str) -> None:
            if self.open is not None and tag == self.open[1]:
                line, _, shown = self.open
                body = "".join(self.chunks)
                found.append((line, f"{shown} of {len(body):,} characters (SHA-256 {_sha(body)})"))
                self.open = None

        def handle_data(self, data: str) -> None:
            if self.open is not None:
                self.chunks.append(data)

    parser = Parser(convert_charrefs=False)
    parser.feed(text)
    parser.close()
    if parser.open is not None:  # a script or style left open runs to the end of the page
        parser.handle_endtag(parser.open[1])
    return found


def unaccounted_content(text: str, rendered: str) -> list[str]:
    """The active content of ``text`` that the page as rendered (``rendered``) does not have, and
    what it has that ``text`` lacks: one line each, with the line number in ``text``."""
    theirs = Counter(d for _, d in active_content(rendered))
    out = []
    for line, desc in active_content(text):
        if theirs[desc] > 0:
            theirs[desc] -= 1
        else:
            out.append(
                f"report: line {line}: {desc} is not part of the report as rendered from its content"
            )
    out += [
        f"report: {desc} of the report as rendered from its content is missing from the file"
        for desc, n in theirs.items()
        for _ in range(n)
    ]
    return out


def read_report(path: str | os.PathLike[str]) -> dict[str, Any]:
    """``{"figures", "config", "meta"}`` embedded in an HTML or PDF report."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"Report {str(path)!r} does not exist. Check the path.")
    if path.stat().st_size > MAX_REPORT_BYTES:
        raise ConfigError(
            f"Report {path.name} is over {MAX_REPORT_BYTES >> 20} MiB, so it is not a release report "
            "(one is a few MiB)."
        )
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

"""The report as a PDF (fpdf2): tables, vector bar charts, the configuration, JSON attachments."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from anon_core.report.blocks import fmt
from anon_core.report.model import ATTACHMENTS, Report, plain
from anon_core.report.numbers import percent
from anon_core.report.sections import report_sections

_LATIN1 = str.maketrans(
    {
        "≤": "<=",
        "≥": ">=",
        "–": "-",
        "—": "-",
        "“": '"',
        "”": '"',
        "‘": "'",
        "’": "'",
        "…": "...",
        "•": "*",
        "×": "x",
        "→": "->",
        "−": "-",
        "\u00a0": " ",
    }
)
_PDF_CELL_CHARS = (
    700  # longer cells are cut in the PDF (a row must fit on a page); the JSON has all
)
_PDF_COLORS = {
    "before": (140, 149, 159),
    "after": (9, 105, 218),
    "original": (140, 149, 159),
    "released": (9, 105, 218),
}


def _latin1(text: Any) -> str:
    """Text the PDF's core fonts can show (Latin-1; anything else becomes '?')."""
    return str(text).translate(_LATIN1).encode("latin-1", "replace").decode("latin-1")


def _pdf_class() -> Any:
    from fpdf import FPDF

    class _ReportPDF(FPDF):
        title_text = ""

        def footer(self) -> None:
            self.set_y(-10)
            self.set_font("Helvetica", "", 7)
            self.set_text_color(110, 119, 129)
            self.cell(
                0, 5, _latin1(f"{self.title_text}  -  page {self.page_no()}/{{nb}}"), align="C"
            )
            self.set_text_color(0, 0, 0)

    return _ReportPDF


def _pdf_table(
    pdf: Any, columns: Sequence[str] | None, rows: Sequence[Sequence[str]], kv: bool = False
) -> None:
    from fpdf.fonts import FontFace

    ncol = len(columns) if columns else 2
    pdf.set_fill_color(255, 255, 255)  # a chart's bar colour must not leak into the cells
    size = 8 if ncol <= 4 else (7 if ncol <= 6 else 6)
    pdf.set_font("Helvetica", "", size)
    widths = (35, 65) if kv else None
    with pdf.table(
        col_widths=widths,
        text_align="LEFT",
        first_row_as_headings=not kv,
        line_height=size * 0.5,
        borders_layout="HORIZONTAL_LINES",
        headings_style=FontFace(emphasis="BOLD", fill_color=(246, 248, 250)),
        padding=0.8,
    ) as table:
        if columns and not kv:
            row = table.row()
            for c in columns:
                row.cell(_latin1(c))
        for r in rows:
            row = table.row()
            for c in r:
                text = _latin1(c)
                row.cell(
                    text if len(text) <= _PDF_CELL_CHARS else text[: _PDF_CELL_CHARS - 4] + " ..."
                )
    pdf.ln(2)


def _pdf_bars(pdf: Any, chart: dict) -> None:
    """A horizontal grouped bar chart drawn with vector rectangles."""
    cats, series = chart["categories"], chart["series"]
    values = [v for vs in series.values() for v in vs if v is not None]
    if not cats or not values:
        return
    top = max(max(values), 0.0) or 1.0
    if chart.get("unit") == "share":
        top = max(top, 1e-12)
    k = len(series)
    bar_h, label_w = 2.6, 58.0
    row_h = bar_h * k + 1.6
    area_w = pdf.epw - label_w - 22
    needed = 8 + row_h * len(cats) + 8
    if pdf.get_y() + needed > pdf.h - pdf.b_margin:
        pdf.add_page()
    pdf.set_font("Helvetica", "B", 9)
    pdf.cell(0, 6, _latin1(chart["title"]), new_x="LMARGIN", new_y="NEXT")
    x0, y = pdf.l_margin, pdf.get_y()
    pdf.set_draw_color(208, 215, 222)
    pdf.line(x0 + label_w, y, x0 + label_w, y + row_h * len(cats))
    for i, cat in enumerate(cats):
        ry = y + i * row_h
        pdf.set_font("Helvetica", "", 7)
        pdf.set_xy(x0, ry + (row_h - 3.5) / 2)
        pdf.cell(label_w - 2, 3.5, _latin1(cat)[:48], align="R")
        for j, (name, vs) in enumerate(series.items()):
            v = vs[i]
            by = ry + 0.8 + j * bar_h
            pdf.set_fill_color(*_PDF_COLORS.get(name, (9, 105, 218)))
            w = 0.0 if v is None else max(0.0, area_w * float(v) / top)
            if w > 0:
                pdf.rect(x0 + label_w, by, w, bar_h - 0.4, style="F")
            pdf.set_font("Helvetica", "", 6)
            pdf.set_xy(x0 + label_w + w + 1, by - 0.3)
            shown = percent(v) if chart.get("unit") == "share" else fmt(v, 4)
            pdf.cell(20, bar_h, _latin1(shown))
    pdf.set_xy(x0, y + row_h * len(cats) + 1)
    if k > 1 or list(series) != ["distance"]:
        for name in series:
            pdf.set_fill_color(*_PDF_COLORS.get(name, (9, 105, 218)))
            pdf.rect(pdf.get_x(), pdf.get_y() + 0.8, 3, 2.4, style="F")
            pdf.set_x(pdf.get_x() + 4)
            pdf.set_font("Helvetica", "", 7)
            pdf.cell(25, 4, _latin1(name))
    pdf.set_fill_color(255, 255, 255)
    pdf.ln(7)


def _json(obj: Any) -> str:
    """Attachment JSON in the blocks' own key order (the order the pages are rendered in)."""
    return json.dumps(obj, ensure_ascii=False, indent=1)


def render_pdf(report: Report) -> bytes:
    """The report as a PDF: tables, vector bar charts, the configuration appendix, JSON attachments."""
    sections = report_sections(report)
    cls = _pdf_class()
    pdf = cls(format="A4")
    generated = datetime.strptime(report.meta["generated_at"], "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=UTC
    )
    source = (report.figures["input"]["file"] or {}).get("name") or "table"
    pdf.title_text = f"Release report: {source}"
    pdf.set_title(_latin1(pdf.title_text))
    pdf.set_author("anon-core")
    pdf.set_creator(f"anon-core {report.meta['software'].get('anon_core')}")
    pdf.set_subject(f"figures-sha256:{report.figures_sha256}")
    pdf.set_keywords(f"release report, anon-core, figures-sha256:{report.figures_sha256}")
    pdf.set_creation_date(generated)
    pdf.set_auto_page_break(True, margin=14)
    pdf.set_margins(14, 14, 14)
    for key, basename in ATTACHMENTS.items():
        payload = {
            "figures": _json(report.figures),
            "config": _json(report.config),
            "meta": _json(report.embedded_meta()),
            "provided": _json(plain(report.provided)),
            "details": _json(plain(report.details)),
        }[key]
        pdf.embed_file(
            bytes=payload.encode("utf-8"),
            basename=basename,
            modification_date=generated,
            creation_date=generated,
            mime_type="application/json",
            compress=True,
            desc=f"anon-core release {key} (JSON)",
        )
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(0, 9, _latin1(pdf.title_text), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 8)
    pdf.multi_cell(
        0,
        4,
        _latin1(
            f"Generated {report.meta['generated_at']} (UTC). Figures SHA-256 "
            f"{report.figures_sha256}. The figures, configuration and metadata are attached to "
            "this PDF as JSON files."
        ),
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.ln(2)
    for sec in sections:
        if sec["id"] == "configuration":
            pdf.add_page()
        elif pdf.get_y() > pdf.h - 50:
            pdf.add_page()
        pdf.set_font("Helvetica", "B", 12)
        pdf.set_text_color(13, 17, 23)
        pdf.cell(0, 8, _latin1(sec["title"]), new_x="LMARGIN", new_y="NEXT")
        for block in sec["blocks"]:
            kind = block["kind"]
            if kind == "text":
                pdf.set_font("Helvetica", "", 8)
                pdf.multi_cell(0, 4, _latin1(block["text"]), new_x="LMARGIN", new_y="NEXT")
                pdf.ln(1)
            elif kind == "kv":
                _pdf_table(pdf, None, block["rows"], kv=True)
            elif kind == "table":
                _pdf_table(pdf, block["columns"], block["rows"])
                if block.get("note"):
                    pdf.set_font("Helvetica", "I", 7)
                    pdf.multi_cell(0, 3.5, _latin1(block["note"]), new_x="LMARGIN", new_y="NEXT")
                    pdf.ln(1)
            elif kind == "chart" and block["chart"]["type"] == "bars":
                _pdf_bars(pdf, block["chart"])
            elif kind == "code":
                pdf.set_font("Courier", "", 6.5)
                pdf.multi_cell(0, 3, _latin1(block["text"]), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
    return bytes(pdf.output())

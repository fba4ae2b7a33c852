"""The report as one self-contained HTML page (plotly.js inlined once, no remote resource)."""

from __future__ import annotations

import hashlib
import html
import json
import re
from functools import lru_cache
from typing import Any

from anon_core.report.model import SHOWN_VALUES, Report, plain
from anon_core.report.sections import report_sections
from anon_core.report.sections_dossier import is_dossier

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
main{max-width:1100px;margin:0 auto;padding:24px}
header{background:#0d1117;color:#fff;padding:20px 24px}header h1{margin:0 0 6px;font-size:1.5rem}
header p{margin:0;color:#c9d1d9;font-size:.9rem}
section{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:16px 20px;margin:16px 0}
h2{font-size:1.15rem;margin:0 0 12px}table{border-collapse:collapse;width:100%;margin:8px 0;font-size:.85rem}
th,td{border-bottom:1px solid #eaeef2;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
table.kv th{width:32%;background:none;font-weight:600}
.note{color:#57606a;font-size:.8rem}.ok{color:#1a7f37;font-weight:600}.bad{color:#cf222e;font-weight:600}
pre{background:#f6f8fa;border:1px solid #eaeef2;padding:10px;overflow:auto;font-size:.75rem;max-height:480px}
nav a{margin-right:10px;font-size:.8rem;color:#0969da}.chart{width:100%;height:380px}
@media print{.chart{page-break-inside:avoid}pre{max-height:none}}
"""
_COLORS = {"before": "#8c959f", "after": "#0969da", "original": "#8c959f", "released": "#0969da"}
_PLOTLY_CONFIG = {"displaylogo": False, "responsive": True}


def _installed(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


@lru_cache(maxsize=1)
def plotly_inline() -> str:
    """The installed plotly's bundled plotly.min.js as the page inlines it ('</script' escaped)."""
    from plotly.offline import get_plotlyjs

    return get_plotlyjs().replace("</script", "<\\/script")


def embedded_libraries() -> dict[str, dict[str, Any]]:
    """What the HTML page inlines besides the report's own content: name -> version and SHA-256 of the
    inlined text (for plotly.min.js the SHA-256 of the installed file when it holds no '</script').
    Recorded in the metadata and signed; verify checks a page's copies against the installed ones."""
    from anon_core.version import __version__

    return {
        "plotly.min.js": {
            "version": _installed("plotly"),
            "sha256": hashlib.sha256(plotly_inline().encode("utf-8")).hexdigest(),
        },
        "report.css": {
            "version": __version__,
            "sha256": hashlib.sha256(_CSS.encode("utf-8")).hexdigest(),
        },
    }


def _script_json(obj: Any, sort_keys: bool = True) -> str:
    """JSON safe inside <script>: '<', '>' and '&' escaped (still valid JSON).

    Embedded report blocks keep their key order (``sort_keys=False``): the
    visible content is rendered in that order, and verify re-renders it from them.
    """
    text = json.dumps(plain(obj), ensure_ascii=False, allow_nan=False, sort_keys=sort_keys)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _is_number(s: str) -> bool:
    return bool(
        re.fullmatch(r"[<>]?[-+]?[\d,]*\.?\d+(e[-+]?\d+)?%?( \[[<>]?[\d.,]+–[<>]?[\d.,]+%\])?", s)
    )


def _html_table(block: dict, kv: bool = False) -> str:
    e = html.escape
    if kv:
        rows = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in block["rows"])
        return f'<table class="kv">{rows}</table>'
    text = set(block.get("text_columns", (0,)))
    head = "".join(f"<th>{e(c)}</th>" for c in block["columns"])
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{e(c)}</td>'
            if i not in text and _is_number(c)
            else f"<td>{e(c)}</td>"
            for i, c in enumerate(row)
        )
        + "</tr>"
        for row in block["rows"]
    )
    note = f'<p class="note">{e(block["note"])}</p>' if block.get("note") else ""
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}"


def _plotly_figure(chart: dict) -> Any:
    import plotly.graph_objects as go

    fig = go.Figure()
    kind = chart["type"]
    if kind == "bars":
        for name, values in chart["series"].items():
            fig.add_bar(
                name=name,
                x=chart["categories"],
                y=values,
                marker_color=_COLORS.get(name, "#0969da"),
                hovertemplate="%{x}: %{y:.6g}<extra>" + name + "</extra>",
            )
        fig.update_layout(
            barmode="group",
            xaxis={"type": "category"},
            yaxis_title="share of records" if chart["unit"] == "share" else None,
        )
    elif kind == "lines":
        for name, values in chart["series"].items():
            fig.add_scatter(
                name=name,
                x=chart["x"],
                y=values,
                mode="lines+markers",
                line={"color": _COLORS.get(name, "#0969da"), "shape": "hv"},
            )
        fig.update_layout(
            xaxis={"type": "log", "title": chart["x_title"]}, yaxis_title=chart["y_title"]
        )
    elif kind == "scatter":
        chosen = chart["chosen"]
        fig.add_scatter(
            name="frontier",
            x=chart["x"],
            y=chart["y"],
            mode="lines+markers",
            text=chart["labels"],
            line={"color": _COLORS["before"]},
            hovertemplate="%{text}<br>average risk %{x:.6g}<br>quality %{y:.6g}<extra></extra>",
        )
        fig.add_scatter(
            name="chosen",
            x=[x for x, c in zip(chart["x"], chosen, strict=True) if c],
            y=[y for y, c in zip(chart["y"], chosen, strict=True) if c],
            mode="markers",
            marker={"size": 14, "color": _COLORS["after"], "symbol": "star"},
        )
        fig.update_layout(xaxis_title=chart["x_title"], yaxis_title=chart["y_title"])
    elif kind == "distributions":
        names = list(chart["attributes"])
        buttons = []
        for i, name in enumerate(names):
            d = chart["attributes"][name]
            for series in ("original", "released"):
                fig.add_bar(
                    name=series,
                    x=d["values"],
                    y=d[series],
                    visible=i == 0,
                    marker_color=_COLORS[series],
                    legendgroup=series,
                    showlegend=True,
                )
            visible = [j // 2 == i for j in range(2 * len(names))]
            shown = (
                f" ({SHOWN_VALUES} most frequent of {d['total']})"
                if d["total"] > SHOWN_VALUES
                else ""
            )
            buttons.append(
                {
                    "label": name,
                    "method": "update",
                    "args": [{"visible": visible}, {"title": {"text": f"{name}{shown}"}}],
                }
            )
        first = chart["attributes"][names[0]] if names else {"total": 0}
        fig.update_layout(
            barmode="group",
            yaxis_title="share of records",
            xaxis={"type": "category"},
            updatemenus=[
                {"buttons": buttons, "direction": "down", "x": 1.0, "xanchor": "right", "y": 1.18}
            ],
            title={
                "text": (names[0] if names else "")
                + (
                    f" ({SHOWN_VALUES} most frequent of {first['total']})"
                    if first["total"] > SHOWN_VALUES
                    else ""
                )
            },
        )
        return fig
    fig.update_layout(title={"text": chart["title"]})
    return fig


def _html_chart(chart: dict, div_id: str) -> str:
    fig = _plotly_figure(chart)
    fig.update_layout(
        template="plotly_white",
        margin={"l": 50, "r": 20, "t": 60, "b": 60},
        legend={"orientation": "h", "y": -0.2},
    )
    spec = json.loads(fig.to_json())
    return (
        f'<div id="{div_id}" class="chart"></div>\n<script>Plotly.newPlot("{div_id}", '
        f"{_script_json(spec.get('data', []))}, {_script_json(spec.get('layout', {}))}, "
        f"{_script_json(_PLOTLY_CONFIG)});</script>"
    )


def render_html(report: Report) -> str:
    """One self-contained HTML page: interactive charts (plotly.js inlined once), no remote resource."""
    e = html.escape
    sections = report_sections(report)
    f = report.figures
    parts, chart_no = [], 0
    for sec in sections:
        body = []
        for block in sec["blocks"]:
            kind = block["kind"]
            if kind == "text":
                body.append(f"<p>{e(block['text'])}</p>")
            elif kind == "kv":
                body.append(_html_table(block, kv=True))
            elif kind == "table":
                body.append(_html_table(block))
            elif kind == "code":
                body.append(f"<pre>{e(block['text'])}</pre>")
            elif kind == "chart":
                chart_no += 1
                body.append(_html_chart(block["chart"], f"chart-{chart_no}"))
        parts.append(
            f'<section id="{e(sec["id"])}"><h2>{e(sec["title"])}</h2>\n'
            + "\n".join(body)
            + "</section>"
        )
    nav = "".join(f'<a href="#{e(s["id"])}">{e(s["title"])}</a>' for s in sections)
    source = (f["input"]["file"] or {}).get("name") or "table"
    if is_dossier(report):
        passed = f["verdict"]["passed"]
        verdict = (
            '<span class="ok">acceptance criteria pass</span>'
            if passed
            else '<span class="bad">acceptance criteria FAIL</span>'
        )
    else:
        verdict = (
            '<span class="ok">satisfied</span>'
            if f["transformation"]["satisfied"]
            else '<span class="bad">NOT satisfied</span>'
        )
    meta = report.embedded_meta()
    # Plotly.js: inlined once, before every chart; '</' cannot occur inside it unescaped.
    plotly_js = plotly_inline()
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f'<meta name="generator" content="anon-core {e(str(report.meta["software"].get("anon_core")))}">',
            f'<meta name="figures-sha256" content="{e(report.figures_sha256)}">',
            f"<title>Release report: {e(source)}</title>",
            f"<style>{_CSS}</style>",
            f'<script type="text/javascript">{plotly_js}</script>',
            "</head><body>",
            f"<header><h1>Release report: {e(source)}</h1><p>Generated {e(report.meta['generated_at'])} (UTC) "
            f"&middot; {verdict} &middot; figures SHA-256 <code>{e(report.figures_sha256)}</code></p></header>",
            f"<main><nav>{nav}</nav>",
            *parts,
            "</main>",
            f'<script type="application/json" id="release-figures">{_script_json(report.figures, False)}</script>',
            f'<script type="application/json" id="release-config">{_script_json(report.config, False)}</script>',
            f'<script type="application/json" id="release-meta">{_script_json(meta, False)}</script>',
            f'<script type="application/json" id="release-provided">{_script_json(report.provided, False)}</script>',
            f'<script type="application/json" id="release-details">{_script_json(report.details, False)}</script>',
            "</body></html>",
            "",
        ]
    )

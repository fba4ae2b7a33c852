"""PII: scan every column for personal data, accept the proposed roles, de-identify free text,
pseudonymize identifiers. All analysis runs in ``anon_core.pii`` (Presidio + spaCy, offline)."""

from __future__ import annotations

import html
import json

import pandas as pd
import streamlit as st

from anon_core.data.dataset import Role
from anon_core.services.pii import (
    ScanReport,
    apply_pseudonymization,
    deidentify_texts,
    highlight_segments,
    lowers_protection,
    text_section,
    validate_pseudonymize_section,
    validate_text_section,
)
from ui.long_work import when_asked
from ui.widgets import friendly_errors, pii_scan, require_workspace, sidebar

OPS_KEY = "pii_operators"  # {entity: operator spec dict}, the page's text-section choices
COLORS = ["#fde68a", "#bfdbfe", "#bbf7d0", "#fecaca", "#ddd6fe", "#fed7aa", "#a5f3fc", "#f5d0fe"]
OPERATOR_LABELS = {
    "replace": "replace with the tag <ENTITY>",
    "fake": "replace with a fake (deterministic)",
    "redact": "redact (delete)",
    "mask": "mask all but the last characters",
    "hash": "salted hash (SHA-256/512)",
    "encrypt": "encrypt (AES, reversible with the key)",
    "keep": "keep",
}


def _color(entity: str) -> str:
    return COLORS[sum(map(ord, entity)) % len(COLORS)]


def _highlighted(text: str, spans) -> str:
    parts = []
    for piece, entity in highlight_segments(text, spans):
        if entity is None:
            parts.append(html.escape(piece))
        else:
            parts.append(
                f'<span style="background:{_color(entity)};border-radius:3px;padding:0 2px">'
                f'{html.escape(piece)}<sub style="font-size:0.65em"> {html.escape(entity)}</sub></span>'
            )
    return "".join(parts)


def _operator_widget(entity: str, current: dict) -> dict:
    """One entity's operator and its parameter; returns the configuration form."""
    choices = list(OPERATOR_LABELS)
    kind = "fake" if current.get("fake") else current.get("type", "replace")
    c = st.columns([2, 3, 2])
    c[0].markdown(f"**{entity}**")
    kind = c[1].selectbox(
        f"Operator for {entity}",
        choices,
        index=choices.index(kind),
        format_func=OPERATOR_LABELS.get,
        key=f"pii_op_{entity}",
        label_visibility="collapsed",
    )
    if kind == "fake":
        seed = c[2].number_input(
            "Seed", min_value=0, value=int(current.get("seed", 0)), step=1, key=f"pii_seed_{entity}"
        )
        return {"type": "replace", "fake": True, "seed": int(seed)}
    if kind == "mask":
        keep = c[2].number_input(
            "Characters kept",
            min_value=0,
            value=int(current.get("keep_last", 4)),
            step=1,
            key=f"pii_keep_{entity}",
        )
        return {"type": "mask", "keep_last": int(keep), "char": "*"}
    if kind == "hash":
        env = c[2].text_input(
            "Salt variable",
            current.get("salt_env", "ANON_SALT"),
            key=f"pii_salt_{entity}",
            help="Name of the environment variable holding the salt (never the salt itself)",
        )
        return {"type": "hash", "algorithm": "sha256", "salt_env": env}
    if kind == "encrypt":
        env = c[2].text_input(
            "Key variable",
            current.get("key_env", "ANON_AES_KEY"),
            key=f"pii_key_{entity}",
            help="Name of the environment variable holding the AES key (16, 24 or 32 bytes)",
        )
        return {"type": "encrypt", "key_env": env}
    return {"type": kind}


sidebar("PII")
ws = require_workspace()
st.title("🔍 PII")
st.caption(
    "Finds personal data in a sample of each column with Presidio and spaCy, offline: nothing leaves this "
    "machine, and no cell value is kept in the scan results."
)

# ----------------------------------------------------------------------------- scan
st.subheader("🔎 Scan")
c = st.columns(2)
sample_size = int(
    c[0].number_input(
        "Values sampled per column",
        min_value=10,
        max_value=10_000,
        value=100,
        step=10,
        key="pii_sample_size",
    )
)
random_state = int(
    c[1].number_input(
        "Random state of the sample", min_value=0, value=0, step=1, key="pii_random_state"
    )
)
report: ScanReport | None = None
# Nothing heavy on a page visit: the scan (about 20 s on the sample) runs when asked, and its
# result stays for these settings (and after a reload).
if not when_asked(
    "pii_scan",
    f"{ws.frame_hash}:{sample_size}:{random_state}",
    "🔎 Scan for personal data",
    "Runs Presidio and spaCy over the sampled values of every column, on this machine.",
):
    st.stop()
with friendly_errors():
    report = pii_scan(ws, sample_size, random_state)
if report is None:
    st.stop()
if not report.nlp_loaded:
    st.warning(report.notice or "The NLP model is not loaded: pattern recognizers only.", icon="⚠️")

rows = []
for name, col in report.columns.items():
    rows.append(
        {
            "column": name,
            "current role": ws.roles.get(name, Role.INSENSITIVE.value),
            "proposed role": col.suggested_role or "—",
            "entities found": " · ".join(f"{e} {s:.0%}" for e, s in col.entities.items()) or "—",
            "score": round(col.score, 2),
            "evidence": col.reason,
        }
    )
st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
st.caption(
    f"Share of {sample_size} sampled values (per column) in which each entity type was found, and the mean "
    f"confidence of the entity behind the proposal; scanned in {report.seconds:.1f} s."
)

proposals = {n: r for n, r in report.proposed_roles().items() if ws.roles.get(n) != r}
# A proposal that lowers a column's protection is never pre-selected, and says what the column holds.
lowering = {
    n for n, r in proposals.items() if lowers_protection(ws.roles.get(n, Role.INSENSITIVE.value), r)
}


def _proposal_label(n: str) -> str:
    label = f"{n}: {ws.roles.get(n, Role.INSENSITIVE.value)} → {proposals[n]}"
    if n in lowering:
        found = (
            ", ".join(f"{e} {s:.0%}" for e, s in report.columns[n].entities.items())
            or "no PII found"
        )
        label += f" (lowers protection; sample holds {found})"
    return label


if proposals:
    chosen = st.multiselect(
        "Proposals to accept",
        list(proposals),
        default=[n for n in proposals if n not in lowering],
        format_func=_proposal_label,
        key=f"pii_accept_{ws.frame_hash[:8]}_{len(ws.history)}",
    )
    if lowering:
        st.warning(
            "Proposals that lower a column's protection are not selected: accept them only after "
            "reading what the column holds (table above).",
            icon="⚠️",
        )
    if st.button("✅ Accept the selected proposals", disabled=not chosen, key="pii_accept_button"):
        roles = dict(ws.roles)
        roles.update({n: proposals[n] for n in chosen})
        ws.update("roles from PII scan", roles=roles, transformation=None)
        st.rerun()
else:
    st.success("Every proposal of the scan is already the column's role.", icon="✅")

# ----------------------------------------------------------------------------- free text
st.subheader("📝 Free text")
text_columns = [n for n, col in report.columns.items() if col.free_text]
if not text_columns:
    st.info("No free-text column in this table.", icon="ℹ️")
else:
    column = st.selectbox("Text column", text_columns, key="pii_text_column")
    found = list(report.columns[column].entities)
    operators: dict = st.session_state.setdefault(OPS_KEY, {})
    entities = sorted(set(found) | {e for e in operators if e != "DEFAULT"})
    st.markdown(
        "**Operator per entity type** (found in the sample of this column; DEFAULT: any other type)"
    )
    for entity in [*entities, "DEFAULT"]:
        operators[entity] = _operator_widget(entity, operators.get(entity, {}))
    with st.expander("Allow list, deny list and a custom recognizer"):
        allow = st.text_input("Allow list (never de-identified; comma-separated)", key="pii_allow")
        deny = st.text_input(
            "Deny list (always de-identified as DENY_LIST; comma-separated)", key="pii_deny"
        )
        r = st.columns([2, 2, 3, 1])
        rec_entity = r[0].text_input("Entity", "", placeholder="EMPLOYEE_ID", key="pii_rec_entity")
        rec_regex = r[1].text_input("Regex", "", placeholder=r"EMP-\d{5}", key="pii_rec_regex")
        rec_context = r[2].text_input("Context words (comma-separated)", "", key="pii_rec_context")
        rec_score = r[3].number_input("Score", 0.0, 1.0, 0.8, 0.05, key="pii_rec_score")
    recognizers = []
    if rec_entity.strip() and rec_regex.strip():
        recognizers.append(
            {
                "name": f"custom {rec_entity.strip()}",
                "entity": rec_entity.strip(),
                "regex": rec_regex.strip(),
                "score": float(rec_score),
                "context": [w.strip() for w in rec_context.split(",") if w.strip()],
            }
        )
    deny_words = [w.strip() for w in deny.split(",") if w.strip()]
    with friendly_errors():
        section = text_section(
            [column],
            operators,
            allow_list=[w.strip() for w in allow.split(",") if w.strip()],
            deny_list={"DENY_LIST": deny_words} if deny_words else None,
            recognizers=recognizers,
        )
        # Visiting this page never changes the release: the section is proposed here and
        # applied only when the user asks for it.
        applied = ws.sections.get("text") == section
        if applied:
            st.success(
                f"The release de-identifies {column} with these operators (its role is kept).",
                icon="✅",
            )
        elif st.button(
            f"✅ Release {column} de-identified with these operators",
            key="pii_apply_text",
            help="Adds the text section to the release configuration (Undo reverts it). "
            "Without it, free text is dropped from the release.",
        ):
            ws.update(
                f"text de-identification of {column}", sections={**ws.sections, "text": section}
            )
            st.rerun()
        else:
            st.info(
                f"Proposal only: {column} is not de-identified in the release until you apply it; "
                "free-text columns are dropped from the release by default.",
                icon="ℹ️",
            )
        shown = st.slider("Rows previewed", 1, 20, 5, key="pii_preview_rows")
        values = ws.frame[column].dropna().astype(str).head(shown).tolist()
        results = deidentify_texts(values, validate_text_section(section))
        body = "".join(
            f'<tr><td style="vertical-align:top;padding:4px">{_highlighted(r.original, r.found)}</td>'
            f'<td style="vertical-align:top;padding:4px">{_highlighted(r.text, r.replaced)}</td></tr>'
            for r in results
        )
        st.html(
            '<table style="width:100%;border-collapse:collapse"><tr><th style="text-align:left">original</th>'
            f'<th style="text-align:left">de-identified</th></tr>{body}</table>'
        )
        st.caption(
            "Each entity found (left) and what replaced it (right), coloured by entity type; the first "
            f"{len(results)} non-empty values of {column}."
        )
        with st.expander("Configuration `text` section"):
            st.code(json.dumps({"text": section}, indent=2), language="json")
            st.caption(
                "Add this section to the release configuration; `anon-core anonymize` applies it. Salts and "
                "keys are read from the environment variables it names."
            )
            st.download_button(
                "⬇️ text section (JSON)",
                json.dumps({"text": section}, indent=2),
                file_name="text_section.json",
                mime="application/json",
                key="pii_text_download",
            )

# ----------------------------------------------------------------------------- pseudonyms
st.subheader("🎭 Pseudonyms for identifiers")
identifiers = [c for c in ws.frame.columns if ws.roles.get(c) == Role.IDENTIFIER.value]
if not identifiers:
    st.info("No column has the role identifier.", icon="ℹ️")
else:
    st.caption(
        "An identifier is removed from the release; pseudonymize it instead to keep records linkable "
        "without the real value."
    )
    picked = st.multiselect("Columns to pseudonymize", identifiers, key="pii_pseudo_columns")
    method = st.radio(
        "Method",
        ["token", "hmac"],
        horizontal=True,
        key="pii_pseudo_method",
        format_func=lambda m: (
            "sequential tokens (COLUMN_0001, first appearance)"
            if m == "token"
            else "keyed HMAC-SHA256 (same value, same token across releases)"
        ),
    )
    key_env = st.text_input(
        "Key variable",
        "ANON_HMAC_KEY",
        key="pii_pseudo_env",
        help="Name of the environment variable holding the HMAC key (at least 16 bytes)",
        disabled=method != "hmac",
    )
    if picked:
        with friendly_errors():
            spec = {"method": method, **({"key_env": key_env} if method == "hmac" else {})}
            section = {"columns": {c: dict(spec) for c in picked}}
            cfg = validate_pseudonymize_section(section)
            if ws.sections.get("pseudonymize") != section:
                ws.update("pseudonymization", sections={**ws.sections, "pseudonymize": section})
            preview = apply_pseudonymization(ws.frame[picked].head(8), cfg)
            st.dataframe(preview, hide_index=True)
            st.caption("The first rows of the pseudonymized columns as they would be released.")
            st.code(json.dumps({"pseudonymize": section}, indent=2), language="json")
            st.caption(
                "Configuration `pseudonymize` section; pseudonymized identifiers are released as "
                "insensitive columns."
            )
            if st.checkbox(
                "I need the re-identification mapping (keep it apart from the release)",
                key="pii_mapping_ok",
            ):
                _, mapping = apply_pseudonymization(ws.frame[picked], cfg, return_mapping=True)
                st.download_button(
                    "⬇️ Mapping (CSV)",
                    mapping.to_csv(index=False),
                    file_name="pseudonym_map.csv",
                    mime="text/csv",
                    key="pii_mapping_download",
                )
                st.caption(
                    f"{len(mapping):,} original values and their pseudonyms: whoever holds this file can "
                    "re-identify the release."
                )

"""Privacy risk workbench: the Streamlit dashboard.

Run with ``streamlit run app.py``. Pages are thin layers over ``anon_core``;
shared widgets live in ``ui/widgets.py``. Works offline: no telemetry, no
fonts or icons from the internet, uploads are parsed in memory.
"""

from __future__ import annotations

import streamlit as st

from ui.session_store import save_session, session_token

st.set_page_config(page_title="Privacy risk workbench", page_icon="🛡️", layout="wide")

PAGES = {
    "Workflow": [
        st.Page("pages/data.py", title="Data", icon="📂", default=True),
        st.Page("pages/attributes.py", title="Attributes", icon="🏷️"),
        st.Page("pages/protect.py", title="Protect", icon="🧰"),
        st.Page("pages/privacy.py", title="Privacy (generalization)", icon="🛡️"),
        st.Page("pages/explore.py", title="Explore (generalization)", icon="🔭"),
        st.Page("pages/evaluate.py", title="Evaluate", icon="🧪"),
        st.Page("pages/release.py", title="Release & sign-off", icon="📦"),
    ],
    "Analysis": [
        st.Page("pages/pii.py", title="PII", icon="🔍"),
        st.Page("pages/documents.py", title="Documents", icon="📄"),
        st.Page("pages/risk.py", title="Risk", icon="🎯"),
        st.Page("pages/attacks.py", title="Attacks", icon="🗡️"),
        st.Page("pages/utility.py", title="Utility", icon="📈"),
        st.Page("pages/compare.py", title="Compare", icon="⚖️"),
        st.Page("pages/dp.py", title="Differential privacy", icon="🎲"),
    ],
}

# A reload or a second tab of this browser session gets the session's state back (the token in
# the URL; ui/session_store.py); every run, however it ends (st.stop, st.rerun), saves it.
session_token()
try:
    st.navigation(PAGES, expanded=True).run()  # every page listed (no "View more")
finally:
    save_session()

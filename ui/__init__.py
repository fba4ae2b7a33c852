"""Dashboard glue: shared widgets, charts (plotly) and session state. No algorithms; imports anon_core and streamlit."""

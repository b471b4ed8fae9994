"""Streamlit helpers of the app: cached resources, session state, the agent diagram, charts and widgets."""

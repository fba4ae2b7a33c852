"""Utility of a release: quality metrics summary, distributions, fidelity, ML utility, the
yardstick and the checks of synthetic data."""

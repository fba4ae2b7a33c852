"""The package version (one place: pyproject.toml reads the same number; a test checks they agree)."""

__version__ = "0.1.0"

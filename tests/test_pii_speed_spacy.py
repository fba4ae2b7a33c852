"""The spaCy build the speed figures were measured with is the one installed.

``pyproject.toml`` pins spaCy to one release: the wheels of later 3.8 releases take the
interpreter lock in every call of the NER parser's state and need about twice the NER's CPU for
the same entities (docs/benchmarks.md, "The spaCy build: half the NER's CPU"). An environment
with another spaCy still works, but is not the one measured: this test says so.
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pinned(requirements: list[str], name: str) -> str | None:
    for requirement in requirements:
        m = re.fullmatch(rf"\s*{re.escape(name)}\s*==\s*([\w.]+)\s*", requirement)
        if m:
            return m.group(1)
    return None


def test_pin_reader_reads_exact_pins_only():
    assert _pinned(["numpy>=1.26", "spacy==3.8.7"], "spacy") == "3.8.7"
    assert _pinned(["spacy>=3.8,<3.9"], "spacy") is None
    assert _pinned(["spacy-lookups==1.0"], "spacy") is None


def test_installed_spacy_is_the_pinned_release():
    with (ROOT / "pyproject.toml").open("rb") as fh:
        requirements = tomllib.load(fh)["project"]["dependencies"]
    pinned = _pinned(requirements, "spacy")
    assert pinned is not None, "pyproject.toml no longer pins spaCy to one release"
    installed = metadata.version("spacy")
    assert installed == pinned, (
        f"spaCy {installed} is installed, pyproject.toml pins {pinned}: run "
        f"pip install spacy=={pinned} (other 3.8 wheels take about twice the NER's CPU)"
    )

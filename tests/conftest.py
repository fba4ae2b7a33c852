"""Shared fixtures. Tests that need ../shared skip with a reason when it is absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
ADULT = SHARED / "data" / "adult"
ARX_REFERENCE = SHARED / "data" / "arx_reference.json"

needs_shared = pytest.mark.skipif(
    not (ADULT / "adult.csv").is_file() or not ARX_REFERENCE.is_file(),
    reason="../shared/data (Adult extract and ARX reference results) is not beside the checkout",
)


@pytest.fixture(scope="session")
def arx_reference() -> dict:
    if not ARX_REFERENCE.is_file():
        pytest.skip("../shared/data/arx_reference.json is absent")
    return json.loads(ARX_REFERENCE.read_text())


@pytest.fixture(scope="session")
def adult_frame():
    if not (ADULT / "adult.csv").is_file():
        pytest.skip("../shared/data/adult is absent")
    from anon_core.data.io import load_table

    return load_table(ADULT / "adult.csv").frame


@pytest.fixture(scope="session")
def adult_hierarchies():
    if not ADULT.is_dir():
        pytest.skip("../shared/data/adult is absent")
    from anon_core.data.hierarchy import Hierarchy

    return {
        p.stem.removeprefix("adult_hierarchy_"): Hierarchy.from_csv(p)
        for p in sorted(ADULT.glob("adult_hierarchy_*.csv"))
    }


@pytest.fixture(scope="session")
def english():
    """The PII engine with the English model (loaded once per test process)."""
    from anon_core.pii.engine import load_engine

    return load_engine()


def names_found(text: str) -> list[str]:
    """The distinct names the name rules (:func:`anon_core.pii.names.find_names`) find in
    ``text`` tokenized by a blank English pipeline, sorted."""
    import spacy

    from anon_core.pii.names import find_names

    doc = spacy.blank("en")(text)
    return sorted({text[n.start : n.end] for n in find_names(doc)})


def found_entities(engine, text: str) -> list[tuple[str, str]]:
    """(entity type, text) of what ``engine`` finds in ``text``, overlaps resolved as the
    de-identification resolves them."""
    from anon_core.pii.scan import resolve_overlaps

    res = engine.analyze_batch([text])[0]
    return [(s.entity, text[s.start : s.end]) for s in resolve_overlaps(res, text)]

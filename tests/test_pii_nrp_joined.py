"""Groups joined by hyphens ("African-American"), several-word groups ("Greek Orthodox",
"Native Americans") and groups the first lists lacked ("Zulu", "Sephardic", "Unionist").

Every expected span below was written by hand from the sentence, not read from the code.
"""

from __future__ import annotations

import pytest

from anon_core.pii.attributes import find_nrp

GROUPS = [
    ("She is African-American.", ["African-American"]),
    ("Judeo-Christian values", ["Judeo-Christian"]),
    ("Many Mexican-Americans voted.", ["Mexican-Americans"]),
    ("He is Greek Orthodox.", ["Greek Orthodox"]),
    ("the Native Americans of Ohio", ["Native Americans"]),
    ("a Zulu chief and a Sephardic rabbi", ["Zulu", "Sephardic"]),
    ("The Unionist candidate won.", ["Unionist"]),
]
NOT_GROUPS = [
    "a well-known French-born chef",  # "French-born" says where, not which group
    "non-Christian",
    "The Greenhouse effect",
]


@pytest.mark.parametrize(("text", "groups"), GROUPS)
def test_joined_and_longer_group_names(text, groups):
    assert [text[f.start : f.end] for f in find_nrp(text)] == groups


@pytest.mark.parametrize("text", NOT_GROUPS)
def test_a_group_word_inside_a_hyphened_word_is_no_group(text):
    assert find_nrp(text) == []

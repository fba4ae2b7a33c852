"""Exposure of the most vulnerable records: a tie leaves nothing linked."""

from __future__ import annotations

import pandas as pd

from anon_core.attacks.vulnerable_exposure import vulnerable_exposure

# record 0 (x=100, y=q) is the outlier; 1% of 6 records rounds up to 1 target
ORIGINAL = pd.DataFrame({"x": [100, 1, 2, 3, 4, 5], "y": ["q", "p", "p", "p", "p", "p"]})


def test_a_tie_at_the_nearest_distance_links_nothing():
    # x generalized away: all three released rows are equally near by x, and rows 0 and 1 by y.
    # No single row is nearest by x, so the attacker links nothing, whatever the storage order.
    released = pd.DataFrame({"x": ["*", "*", "*"], "y": ["q", "q", "p"]})
    assert vulnerable_exposure(ORIGINAL, released, ["x", "y"]).linked == 0
    reordered = released.iloc[[2, 1, 0]].reset_index(drop=True)
    assert vulnerable_exposure(ORIGINAL, reordered, ["x", "y"]).linked == 0


def test_a_unique_nearest_row_on_both_halves_is_linked():
    # row 0 is strictly nearest by x (100 vs 1) and the only 'q' by y: linked
    released = pd.DataFrame({"x": [100, 1, 1], "y": ["q", "p", "p"]})
    assert vulnerable_exposure(ORIGINAL, released, ["x", "y"]).linked == 1

"""Time estimates from measurement (anon_core.estimate), on synthetic cost functions."""

from __future__ import annotations

import pytest

from anon_core.errors import ConfigError
from anon_core.estimate import (
    describe_range,
    extrapolate,
    fit,
    measure,
    remaining,
)


def test_a_linear_cost_with_a_fixed_part_is_recovered_exactly():
    # cost(n) = 0.5 s + 2e-4 s per row; calibrated at 100 and 300 rows (0.52 s, 0.56 s)
    points = [(100, 0.52), (300, 0.56)]
    fixed, per_row = fit(points)
    assert fixed == pytest.approx(0.5) and per_row == pytest.approx(2e-4)
    est = extrapolate(points, 10_000, spread=1.5)
    assert est.seconds == pytest.approx(2.5)  # 0.5 + 2e-4 * 10,000, by hand
    assert est.low == pytest.approx(2.5 / 1.5) and est.high == pytest.approx(3.75)


def test_a_quadratic_cost_is_extrapolated_by_its_complexity():
    # cost(n) = 1e-6 n^2 (no fixed part): 0.01 s at 100 rows, 0.04 s at 200
    points = [(100, 0.01), (200, 0.04)]
    assert extrapolate(points, 1000, exponent=2).seconds == pytest.approx(1.0)
    # linear extrapolation of the same points would be far too low: that was the old bug's shape
    assert extrapolate(points, 1000, exponent=1).seconds < 0.5


def test_one_calibration_point_counts_everything_as_per_unit_cost():
    est = extrapolate([(50, 2.0)], 1000)  # 2 s per 50 rows -> 40 s
    assert est.seconds == pytest.approx(40.0)


def test_noise_that_hides_the_growth_falls_back_to_the_largest_run():
    est = extrapolate([(100, 0.9), (200, 0.8)], 2000)  # slower small run: 0.8 s / 200 rows
    assert est.seconds == pytest.approx(8.0)


def test_measure_times_each_size_with_the_given_clock():
    ticks = iter([0.0, 1.0, 10.0, 13.0])  # run(100) takes 1 s, run(200) 3 s
    seen = []
    points = measure(seen.append, [100, 200], clock=lambda: next(ticks))
    assert points == [(100.0, 1.0), (200.0, 3.0)] and seen == [100, 200]


def test_remaining_time_of_a_running_job():
    assert remaining(30.0, 0.25) == pytest.approx(90.0)  # a quarter in 30 s: 90 s more
    assert remaining(5.0, 0.0) is None


def test_ranges_are_said_in_words():
    assert describe_range(120, 240) == "about 2–4 min"
    assert describe_range(40, 90) == "about 40 s–2 min"
    assert describe_range(4.6, 5.2) == "about 5 s"


@pytest.mark.parametrize(
    "points,kwargs",
    [([], {}), ([(0, 1.0)], {}), ([(10, 1.0)], {"exponent": 0}), ([(10, 1.0)], {"spread": 0.5})],
)
def test_bad_calibration_is_refused(points, kwargs):
    with pytest.raises(ConfigError):
        extrapolate(points, 100, **kwargs)

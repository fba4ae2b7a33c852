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


def _gated_page():
    import streamlit as st

    from ui.long_work import when_asked

    runs = st.session_state.setdefault("heavy_runs", [])
    if when_asked("scan", st.session_state.get("settings", "a"), "Scan"):
        runs.append(1)  # stands for the heavy work
        st.write("scanned")


def test_heavy_work_waits_for_its_button_and_is_remembered():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_gated_page, default_timeout=60)
    at.run()
    assert at.session_state["heavy_runs"] == []  # a visit runs nothing
    at.button(key="ask_scan").click().run()
    assert at.session_state["heavy_runs"] == [1]
    at.run()  # later runs keep the result without a new click
    assert at.session_state["heavy_runs"] == [1, 1] and not at.button
    at.session_state["settings"] = "b"  # other settings: asked again
    at.run()
    assert at.session_state["heavy_runs"] == [1, 1] and at.button(key="ask_scan")


def _estimate_page():
    import streamlit as st

    from anon_core.estimate import Estimate
    from ui.long_work import estimate_text, measured_estimate

    calls = st.session_state.setdefault("calibrations", [])

    def calibrate():
        calls.append(1)
        return Estimate(150.0, 100.0, 225.0, "timed on 4% of the rows")

    st.caption(estimate_text(measured_estimate("job", "k", calibrate)))


def test_an_estimate_is_measured_on_request_only_and_said_as_a_range():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_estimate_page, default_timeout=60)
    at.run()
    assert at.session_state["calibrations"] == [] and "not measured yet" in at.caption[0].value
    at.button(key="estimate_job").click().run()
    assert at.caption[0].value == "Time: about 2–4 min (timed on 4% of the rows)."
    at.run()
    assert at.session_state["calibrations"] == [1]  # measured once, then remembered


def test_report_time_comes_from_the_reports_this_server_wrote(monkeypatch):
    import ui.long_work as lw

    monkeypatch.setattr(lw, "_TIMINGS", {})
    assert lw.measured_seconds("report", 1000) is None
    ticks = iter([0.0, 12.0])  # one report of 2,000 rows took 12 s
    monkeypatch.setattr(lw.time, "perf_counter", lambda: next(ticks))
    with lw.timed("report", 2000):
        pass
    assert lw.report_seconds(4000) == pytest.approx(24.0)  # all per row: 12 s / 2,000 x 4,000

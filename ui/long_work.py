"""Long work in the dashboard: a time estimate before it starts, and a cancel button while it runs.

Estimates are **measured** (:func:`measured_estimate`): a button times a small calibration run on
this machine and this data (a 2-5 % sample, one epoch) and ``anon_core.estimate`` extrapolates it
by the algorithm's complexity to a range ("about 2–4 min"); nothing is timed on a page visit.
While the work runs, :func:`eta_progress` turns its progress into the time left. The fixed
per-row model below (:func:`ml_seconds`, :func:`report_seconds`) is what pages showed before;
it was 10-40 times too low on a busy two-core server and is kept only until those pages measure.

The old estimate is a simple cost model, not a promise: machine-learning utility costs about
``rows x (folds - 1) x 2 tables x per-row cost of each model``, with per-row costs measured on
Adult (30,162 rows) on the development machine (2 cores, scikit-learn, CPU time): logistic
regression about 80 us and a 100-tree random forest about 160 us per trained row, plus about a
second of fixed cost. A busy machine takes longer; the estimate only says "seconds" or "minutes".
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from anon_core.errors import AnonError
from anon_core.services.timing import (
    Estimate,
    describe,
    describe_range,
    extrapolate,
    measure,
    remaining,
)

#: CPU seconds per trained row, per model (measured on Adult, see the module docstring).
ML_ROW_SECONDS = {"logistic_regression": 80e-6, "random_forest": 160e-6}
ML_FIXED_SECONDS = 1.0
#: A default machine-learning target has at most this many classes (never occupation's 14).
MAX_DEFAULT_CLASSES = 5


def ml_seconds(rows: int, folds: int, models: list[str] | tuple[str, ...]) -> float:
    """Estimated seconds of :func:`anon_core.utility.ml_utility.ml_utility` on both tables."""
    per_row = sum(ML_ROW_SECONDS.get(m, max(ML_ROW_SECONDS.values())) for m in models)
    return ML_FIXED_SECONDS + rows * max(folds - 1, 1) * 2 * per_row


def report_seconds(rows: int) -> float:
    """Estimated seconds to write the release report (HTML and PDF): extrapolated from the
    reports this server wrote (:func:`timed` ``"report"``), else about 3 s plus 30 us per row
    (measured once on a quiet machine; 19.5 s were seen on a busy one)."""
    measured = measured_seconds("report", rows)
    return measured.seconds if measured is not None else 3.0 + rows * 3e-5


def human_duration(seconds: float) -> str:
    """'about 40 s' / 'about 3 min' (an estimate is never more precise than that)."""
    if seconds < 60:
        return f"about {max(round(seconds), 1):,} s"
    return f"about {round(seconds / 60):,} min"


def default_target(frame: pd.DataFrame, candidates: list[str]) -> int:
    """Index in ``candidates`` of the column to predict by default: the one with the fewest
    classes among those with 2 to :data:`MAX_DEFAULT_CLASSES` (a binary target when there is one),
    else the first candidate."""
    best, best_classes = 0, None
    for i, column in enumerate(candidates):
        classes = frame[column].nunique(dropna=True)
        if 2 <= classes <= MAX_DEFAULT_CLASSES and (best_classes is None or classes < best_classes):
            best, best_classes = i, classes
    return best


def cancel_button(key: str, label: str = "⏹️ Cancel") -> bool:
    """A Cancel button shown before long work starts. Clicking it while the work runs makes
    Streamlit stop the run at its next progress update (between folds or models) and rerun the
    page, where this returns True so the page can say the run was cancelled."""
    return st.button(label, key=key, help="Stops the run after the current step.")


# --------------------------------------------------------------------------- measured estimates
ESTIMATES_KEY = "_estimates"


def measured_estimate(
    kind: str,
    key: str,
    calibrate: Callable[[], Estimate | None],
    label: str = "⏱️ Measure how long it takes",
) -> Estimate | None:
    """The estimate of ``kind`` for the settings fingerprint ``key``, measured in this session, or
    None. Only a click on the button measures (``calibrate()``: a small timed run), never a visit;
    a change of settings (another ``key``) shows the button again."""
    store: dict = st.session_state.setdefault(ESTIMATES_KEY, {})
    found = store.get((kind, key))
    if found is None and st.button(
        label,
        key=f"estimate_{kind}",
        help="Times a small calibration run on this machine and extrapolates it (a few seconds).",
    ):
        with st.spinner("Timing a small calibration run…"):
            try:
                found = calibrate()
            except AnonError as exc:
                st.warning(f"The time could not be measured: {exc}", icon="⏱️")
                found = None
        if found is not None:
            store[(kind, key)] = found
    return found


def estimate_text(estimate: Estimate | None) -> str:
    """'Time: about 2–4 min (one epoch timed on 4 % of the rows).' or a pointer to the button."""
    if estimate is None:
        return "Time: not measured yet (the button times a small calibration run)."
    basis = f" ({estimate.basis})" if estimate.basis else ""
    return f"Time: {describe_range(estimate.low, estimate.high)}{basis}."


def eta_progress(bar: Any, clock: Callable[[], float] = time.perf_counter):
    """A progress callback ``(fraction, message)`` for ``bar`` that adds the time left, measured
    from the run so far (shown once 3 % is done)."""
    start = clock()

    def update(fraction: float, message: str) -> None:
        fraction = min(max(float(fraction), 0.0), 1.0)
        left = remaining(clock() - start, fraction) if fraction >= 0.03 else None
        text = message if left is None else f"{message} · about {describe(left)} left"
        bar.progress(fraction, text=text)

    return update


def calibration_sizes(n: int, share: float = 0.02, minimum: int = 200) -> list[int]:
    """Two calibration sizes: ``share`` of ``n`` (at least ``minimum``) and twice that, below n."""
    first = min(max(int(n * share), minimum), n)
    second = min(2 * first, n)
    return sorted({first, second})


#: Complexity of each model's training in the number of rows (trees: about n log n).
ML_EXPONENT = {"logistic_regression": 1.0, "random_forest": 1.1}


def calibrate_ml(
    original: pd.DataFrame,
    released: pd.DataFrame,
    target: str,
    folds: int,
    models: Sequence[str],
    model_params: Mapping[str, Mapping[str, Any]] | None = None,
) -> Estimate:
    """Time :func:`anon_core.utility.ml_utility.ml_utility` on two small row samples of both
    tables (2 % and 4 %, at least 200 rows; after one untimed warm-up), per model, and extrapolate
    to all rows by the model's complexity (:data:`ML_EXPONENT`)."""
    from anon_core.services.utility import ml_utility

    n = len(original)
    sizes = calibration_sizes(n)
    share = len(released) / max(n, 1)
    low = high = central = 0.0
    for model in models:

        def run(m: int, model: str = model) -> None:
            ml_utility(
                original.sample(m, random_state=0),
                released.sample(min(max(int(m * share), folds * 2), len(released)), random_state=0),
                target,
                models=[model],
                cv=folds,
                model_params={model: model_params[model]}
                if model_params and model in model_params
                else None,
            )

        if model == models[0]:
            run(sizes[0])  # warm-up, not timed: imports and one-off set-up
        est = extrapolate(measure(run, sizes), n, ML_EXPONENT.get(model, 1.1))
        low, high, central = low + est.low, high + est.high, central + est.seconds
    return Estimate(central, low, high, f"timed on {sizes[-1] / max(n, 1):.0%} of the rows")


# --------------------------------------------------------------------------- nothing heavy on a visit
ASKED_KEY = "_asked"


def when_asked(kind: str, key: str, label: str, help_text: str | None = None) -> bool:
    """True once the user pressed ``label`` for the settings fingerprint ``key`` in this session
    (remembered, so the result stays on later visits and after a reload); until then the button
    is shown and heavy work (a PII scan, a report) does not start on a mere page visit."""
    asked: dict = st.session_state.setdefault(ASKED_KEY, {})
    if asked.get(kind) == key:
        return True
    if st.button(label, key=f"ask_{kind}", type="primary", help=help_text):
        asked[kind] = key
        return True
    return False


# --------------------------------------------------------------------------- timings of real runs
#: The last few (size, seconds) of each kind of job this server ran: sizes and times only, no data.
_TIMINGS: dict[str, deque] = {}
_TIMINGS_LOCK = threading.Lock()
MAX_TIMINGS = 8


@contextlib.contextmanager
def timed(kind: str, size: int) -> Iterator[None]:
    """Time the job in the ``with`` block and keep (size, seconds) for :func:`measured_seconds`
    (a job that fails is not kept)."""
    start = time.perf_counter()
    yield
    elapsed = time.perf_counter() - start
    with _TIMINGS_LOCK:
        _TIMINGS.setdefault(kind, deque(maxlen=MAX_TIMINGS)).append((float(max(size, 1)), elapsed))


def measured_seconds(kind: str, size: int, exponent: float = 1.0) -> Estimate | None:
    """The time a job of ``kind`` will take at ``size``, extrapolated from the ones this server
    ran (:func:`timed`), or None before the first."""
    with _TIMINGS_LOCK:
        points = list(_TIMINGS.get(kind, ()))
    if not points:
        return None
    return extrapolate(points, max(size, 1), exponent, basis=f"from {len(points)} earlier run(s)")

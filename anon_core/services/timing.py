"""How long work will take: estimates measured on this machine (a small calibration run
extrapolated by the job's complexity), remaining time from progress, and their wording.

The arithmetic is :mod:`anon_core.estimate`'s; this module is where the dashboard reaches it.
"""

from __future__ import annotations

from anon_core.estimate import (
    Estimate,
    describe,
    describe_range,
    extrapolate,
    fit,
    measure,
    remaining,
)

__all__ = ["Estimate", "describe", "describe_range", "extrapolate", "fit", "measure", "remaining"]

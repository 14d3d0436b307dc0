"""The one percentile rule every benchmark and report uses."""

from __future__ import annotations

from collections.abc import Iterable
import math


def percentile(values: Iterable[float], q: float) -> float:
    """The nearest-rank percentile (`q` from 0 to 1) of `values`, which need not be sorted:
    the smallest value with at least `q` of all values at or below it."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]

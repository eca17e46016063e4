"""When a number counts as right: relative, absolute, or within a factor of the key."""

from __future__ import annotations

import math
from collections.abc import Mapping

#: Known wrong numbers are recognised this closely (or the exercise's relative tolerance, if
#: tighter), so a mistake is only named when the answer really is that number.
MISTAKE_RELATIVE = 0.02


def within(value: float, key: float, tolerance: Mapping[str, float]) -> bool:
    """Is ``value`` close enough to ``key`` under ``tolerance`` (relative/absolute/factor)?"""
    if not (math.isfinite(value) and math.isfinite(key)):
        return False
    if "relative" in tolerance:
        return abs(value - key) <= float(tolerance["relative"]) * abs(key)
    if "absolute" in tolerance:
        return abs(value - key) <= float(tolerance["absolute"])
    if "factor" in tolerance:
        factor = float(tolerance["factor"])
        if value <= 0 or key <= 0:
            return value == key
        return max(value / key, key / value) <= factor
    raise ValueError(f"unknown tolerance {dict(tolerance)!r}")


def mistake_tolerance(tolerance: Mapping[str, float]) -> dict[str, float]:
    """How closely an answer must match a known wrong number to be called that mistake."""
    rel = float(tolerance.get("relative", MISTAKE_RELATIVE))
    return {"relative": min(rel, MISTAKE_RELATIVE)}


def describe(tolerance: Mapping[str, float]) -> str:
    """Human wording: 'within 5%', 'within ±1e9', 'within a factor of 1.5'."""
    if "relative" in tolerance:
        return f"within {float(tolerance['relative']) * 100:g}%"
    if "absolute" in tolerance:
        return f"within ±{float(tolerance['absolute']):g}"
    return f"within a factor of {float(tolerance['factor']):g}"

"""Argument checks shared by the formula modules: each failure is one clear ``ValueError``."""

from __future__ import annotations

import math

from .units import parse_count


def check_params(params: int | float | str, name: str = "params") -> int | float:
    """A positive, finite parameter count; text such as "1.5B" is read with ``parse_count``."""
    if isinstance(params, str):
        params = parse_count(params)
    return check_positive(name, params)


def check_positive(name: str, value: object, *, allow_zero: bool = False) -> int | float:
    """A finite number greater than zero (or at least zero with ``allow_zero``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(
            f"{name} must be {'at least 0' if allow_zero else 'positive'}, got {value!r}"
        )
    return value


def check_int(name: str, value: object, *, minimum: int) -> int:
    """A whole number of at least ``minimum`` (a float such as ``64.0`` is accepted as 64)."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be a whole number, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """One of ``choices`` (case-insensitive), returned in lower case."""
    if not isinstance(value, str) or value.lower() not in choices:
        raise ValueError(f"unknown {name} {value!r}; choose one of: {', '.join(choices)}")
    return value.lower()

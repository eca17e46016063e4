"""Helpers for hidden test modules of code exercises (``exercises/lesson-NN/hidden/test_*.py``).

A hidden test receives the learner's function as the ``submitted`` fixture: calling it runs the
function in the sandbox and returns a plain ``float`` (or raises ``SubmissionFailed`` with a
message for the learner); ``submitted.many([kwargs, ...])`` runs a whole batch of cases in one
round trip, which is how property tests send their hypothesis-generated cases.
Points per test come from ``@points(n)``; a parametrized test shares its
points among its cases.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, Phase, settings

F = TypeVar("F", bound=Callable[..., Any])

#: Reproducible property tests: the same cases for every submission and every regrade.
property_settings = settings(
    max_examples=10,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    phases=(Phase.explicit, Phase.generate, Phase.shrink),
    suppress_health_check=list(HealthCheck),
)


def points(n: float) -> Callable[[F], F]:
    """Weight of a hidden test (default 1)."""
    return pytest.mark.points(n)


def close(
    got: float,
    expected: float,
    *,
    what: str = "",
    rel: float = 1e-6,
    mistakes: Mapping[str, float] | Callable[[], Mapping[str, float]] | None = None,
) -> None:
    """Assert ``got`` is within ``rel`` of ``expected``; name a known mistake if it is one.

    ``mistakes`` maps a message to the wrong value that earns it; pass a function returning the
    mapping to compute it only when the answer is wrong.
    """
    if math.isclose(got, expected, rel_tol=rel, abs_tol=1e-9):
        return
    where = f" for {what}" if what else ""
    known = mistakes() if callable(mistakes) else mistakes
    for message, wrong in (known or {}).items():
        if math.isclose(got, wrong, rel_tol=rel, abs_tol=1e-9):
            raise AssertionError(f"returned {got:.6g}{where}, expected {expected:.6g}: {message}")
    raise AssertionError(f"returned {got:.6g}{where}, expected {expected:.6g}")

"""Answer keys are expressions of the memory model, evaluated, never typed-in numbers.

The reader is :mod:`grader.memory.expressions`, the same one that computes the figures on the
lesson pages, so a key and the page's number for it cannot be read two ways.
"""

from __future__ import annotations

from grader.memory.expressions import ExpressionError, namespace
from grader.memory.expressions import evaluate as _evaluate

KeyExpressionError = ExpressionError

__all__ = ["KeyExpressionError", "evaluate", "namespace"]


def evaluate(expression: str) -> float:
    """Evaluate a key expression to a finite ``float``; ``KeyExpressionError`` says why not."""
    return _evaluate(expression, label="key")

"""Memory-model expressions, evaluated safely: the one reader behind answer keys and page figures.

``model_states(7e9).total`` or ``activations(hidden=1600, layers=48, seq=1024, batch=32).total * 2``
are read with :mod:`ast` and only a small set of constructs is allowed: numbers and strings, the
names :mod:`grader.memory` exports, calls, attribute access (no underscores), subscripts and
arithmetic. Anything else (imports, lambdas, comprehensions, dunder attributes) is refused before
evaluation, so an exercise file or a lesson page cannot run arbitrary code. Standard library only.
"""

from __future__ import annotations

import ast
import math
from functools import cache
from typing import Any

MAX_EXPRESSION = 500

_ALLOWED = (
    ast.Expression,
    ast.BinOp,
    ast.UnaryOp,
    ast.Constant,
    ast.Name,
    ast.Load,
    ast.Call,
    ast.keyword,
    ast.Attribute,
    ast.Subscript,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.Pow,
    ast.USub,
    ast.UAdd,
)


class ExpressionError(ValueError):
    """An expression that is not allowed or does not evaluate to a finite number."""


@cache
def namespace() -> dict[str, Any]:
    """The names an expression may use: everything :mod:`grader.memory` exports."""
    import grader.memory as memory

    names = getattr(memory, "__all__", None) or [n for n in dir(memory) if not n.startswith("_")]
    return {name: getattr(memory, name) for name in names if hasattr(memory, name)}


def _check(tree: ast.AST, expression: str, names: dict[str, Any], label: str) -> None:
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise ExpressionError(
                f"{type(node).__name__} is not allowed in a {label} expression {expression!r}"
            )
        if isinstance(node, ast.Name) and node.id not in names:
            known = ", ".join(sorted(names))
            raise ExpressionError(f"unknown name {node.id!r} in {expression!r} (known: {known})")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise ExpressionError(f"attribute {node.attr!r} is not allowed in {expression!r}")


def evaluate(expression: str, *, label: str = "memory") -> float:
    """Evaluate ``expression`` to a finite ``float``; ``ExpressionError`` says why not.

    ``label`` names what is being evaluated in the messages ("key", "figure").
    """
    if not isinstance(expression, str) or not expression.strip():
        raise ExpressionError(f"a {label} expression must be a non-empty string")
    if len(expression) > MAX_EXPRESSION:
        raise ExpressionError(f"{label} expression longer than {MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"syntax error in {label} {expression!r}: {exc.msg}") from None
    names = namespace()
    _check(tree, expression, names, label)
    try:
        value = eval(compile(tree, f"<{label}>", "eval"), {"__builtins__": {}}, dict(names))  # noqa: S307
    except Exception as exc:  # the model raised: report it with the expression
        raise ExpressionError(
            f"{label} {expression!r} does not evaluate: {type(exc).__name__}: {exc}"
        ) from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ExpressionError(
            f"{label} {expression!r} gives {type(value).__name__}, not a number "
            "(did you forget .total?)"
        )
    result = float(value)
    if not math.isfinite(result):
        raise ExpressionError(f"{label} {expression!r} is not finite ({result})")
    return result

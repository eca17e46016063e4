"""Answer keys are expressions of the memory model, evaluated here, never typed-in numbers.

``model_states(7e9).total`` or ``activations(hidden=1600, layers=48, seq=1024, batch=32,
method="zero-paper").total * 2`` are read with :mod:`ast` and only a small set of constructs is
allowed: numbers and strings, the names exported by :mod:`grader.memory`, calls, attribute access
(no underscores), subscripts and arithmetic. Anything else (imports, lambdas, comprehensions,
dunder attributes) is refused before evaluation, so an exercise file cannot run arbitrary code.
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


class KeyExpressionError(ValueError):
    """A key expression that is not allowed or does not evaluate to a finite number."""


@cache
def namespace() -> dict[str, Any]:
    """The names a key may use: everything :mod:`grader.memory` exports."""
    import grader.memory as memory

    names = getattr(memory, "__all__", None) or [n for n in dir(memory) if not n.startswith("_")]
    return {name: getattr(memory, name) for name in names if hasattr(memory, name)}


def _check(tree: ast.AST, expression: str, names: dict[str, Any]) -> None:
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise KeyExpressionError(
                f"{type(node).__name__} is not allowed in a key expression {expression!r}"
            )
        if isinstance(node, ast.Name) and node.id not in names:
            known = ", ".join(sorted(names))
            raise KeyExpressionError(f"unknown name {node.id!r} in {expression!r} (known: {known})")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise KeyExpressionError(f"attribute {node.attr!r} is not allowed in {expression!r}")


def evaluate(expression: str) -> float:
    """Evaluate a key expression to a finite ``float``; ``KeyExpressionError`` says why not."""
    if not isinstance(expression, str) or not expression.strip():
        raise KeyExpressionError("a key expression must be a non-empty string")
    if len(expression) > MAX_EXPRESSION:
        raise KeyExpressionError(f"key expression longer than {MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise KeyExpressionError(f"syntax error in key {expression!r}: {exc.msg}") from None
    names = namespace()
    _check(tree, expression, names)
    try:
        value = eval(compile(tree, "<key>", "eval"), {"__builtins__": {}}, dict(names))  # noqa: S307
    except Exception as exc:  # the model raised: report it with the expression
        raise KeyExpressionError(
            f"key {expression!r} does not evaluate: {type(exc).__name__}: {exc}"
        ) from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise KeyExpressionError(
            f"key {expression!r} gives {type(value).__name__}, not a number "
            "(did you forget .total?)"
        )
    result = float(value)
    if not math.isfinite(result):
        raise KeyExpressionError(f"key {expression!r} is not finite ({result})")
    return result

"""Page figures computed by the memory model at build time: ``{{ memory: EXPR | UNIT[:DIGITS] }}``.

A lesson never types a number that the memory model can compute (one source of truth)::

    {{ memory: model_states(1.5e9).total | GB }}                                  -> 24 GB
    {{ memory: model_states(1.5e9).parts["fp16 parameters"] | GB }}               -> 3 GB
    {{ memory: activations(hidden=1600, layers=48, seq=1024, batch=32).total | GB:2 }} -> 60 GB
    {{ memory: 32 * GB / model_states(1).total | count:1 }}                       -> 2 billion

EXPR is a small, safe expression (it is parsed, never passed to ``eval``): calls of
``model_states``, ``activations``, ``optimizer_multiplier`` and ``bytes_per_param_per_device``
with literal arguments, ``.total``, ``.parts["name"]``, numbers, the unit constants (GB, GiB, ...)
and ``+ - * /``. UNIT is a byte unit (``GB``, ``GiB``, ``TB``, ...), ``count`` (``30 billion``) or
``number``; DIGITS is the number of significant digits (default 3).
"""

from __future__ import annotations

import ast
import logging
import math
import operator
import re
import xml.etree.ElementTree as etree
from collections.abc import Callable
from typing import Any

from markdown.inlinepatterns import InlineProcessor
from markdown.util import AtomicString

from grader import memory

log = logging.getLogger("mkdocs.course.figures")  # under "mkdocs": --strict counts a bad figure

# `|` may be written `\|` inside a table cell.
FIGURE_RE = (
    r"\{\{\s*memory:\s*(?P<expr>.+?)\s*\\?\|\s*(?P<unit>[A-Za-z]+)(?::(?P<digits>\d+))?\s*\}\}"
)

FUNCTIONS: dict[str, Callable[..., Any]] = {
    "model_states": memory.model_states,
    "activations": memory.activations,
    "optimizer_multiplier": memory.optimizer_multiplier,
    "bytes_per_param_per_device": memory.bytes_per_param_per_device,
}
CONSTANTS: dict[str, float] = dict(memory.BYTE_UNITS)
OPERATORS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
COUNT_WORDS = ((1e12, "trillion"), (1e9, "billion"), (1e6, "million"), (1e3, "thousand"))


class FigureError(ValueError):
    """An expression or unit the figure syntax does not allow."""


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float | str | bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_literal(node.operand)
    raise FigureError(f"arguments must be literals, not {ast.unparse(node)!r}")


def _eval(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Name) and node.id in CONSTANTS:
        return CONSTANTS[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        return OPERATORS[type(node.op)](_eval(node.left), _eval(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id not in FUNCTIONS:
            raise FigureError(f"unknown function {node.func.id!r} (known: {', '.join(FUNCTIONS)})")
        args = [_literal(a) for a in node.args]
        kwargs = {k.arg: _literal(k.value) for k in node.keywords if k.arg is not None}
        return FUNCTIONS[node.func.id](*args, **kwargs)
    if isinstance(node, ast.Attribute) and node.attr == "total":
        return _eval(node.value).total
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "parts"
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    ):
        parts = _eval(node.value.value).parts
        if node.slice.value not in parts:
            raise FigureError(f"no part {node.slice.value!r} (parts: {', '.join(parts)})")
        return parts[node.slice.value]
    raise FigureError(f"not allowed in a figure: {ast.unparse(node)!r}")


def evaluate(expr: str) -> float:
    """The value of a figure expression (a number of bytes, parameters, ...)."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as exc:
        raise FigureError(f"not an expression: {exc.msg}") from exc
    try:
        value = _eval(tree.body)
    except (TypeError, ValueError, ZeroDivisionError) as exc:
        raise FigureError(str(exc)) from exc
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FigureError(f"{expr!r} is not a number (add .total or .parts[...])")
    return float(value)


def _significant(value: float, digits: int) -> str:
    if value == 0:
        return "0"
    rounded = round(value, digits - 1 - int(math.floor(math.log10(abs(value)))))
    text = f"{rounded:.{max(digits, 1)}f}".rstrip("0").rstrip(".")
    return text if abs(rounded) >= 1 else f"{rounded:.{digits}g}"


def format_figure(value: float, unit: str, digits: int = 3) -> str:
    """Write ``value`` in ``unit`` to ``digits`` significant digits."""
    if unit in memory.BYTE_UNITS:
        return memory.format_bytes(value, unit, digits=digits)
    if unit == "count":
        for size, word in COUNT_WORDS:
            if abs(value) >= size:
                return f"{_significant(value / size, digits)} {word}"
        return _significant(value, digits)
    if unit == "number":
        return _significant(value, digits)
    raise FigureError(f"unknown unit {unit!r} (byte units, 'count' or 'number')")


def render(expr: str, unit: str, digits: int = 3) -> str:
    return format_figure(evaluate(expr), unit, digits)


class FigureProcessor(InlineProcessor):
    def handleMatch(  # noqa: N802 (Python-Markdown's name)
        self, m: re.Match[str], data: str
    ) -> tuple[etree.Element, int, int]:
        expr, unit = m["expr"], m["unit"]
        digits = int(m["digits"]) if m["digits"] else 3
        span = etree.Element("span")
        try:
            text = render(expr, unit, digits)
        except FigureError as exc:
            log.warning("figure '%s': %s", m.group(0), exc)
            span.set("class", "course-figure course-error")
            span.text = AtomicString(f"[figure error: {exc}]")
            return span, m.start(0), m.end(0)
        span.set("class", "course-figure")
        span.set("data-expr", expr)
        span.set("title", f"Computed by the course's memory model: {expr}")
        span.text = AtomicString(text)
        return span, m.start(0), m.end(0)

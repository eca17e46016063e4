"""Page figures computed by the memory model at build time: ``{{ memory: EXPR | UNIT[:DIGITS] }}``.

A lesson never types a number that the memory model can compute (one source of truth)::

    {{ memory: model_states(1.5e9).total | GB }}                                  -> 24 GB
    {{ memory: model_states(1.5e9).parts["fp16 parameters"] | GB }}               -> 3 GB
    {{ memory: activations(hidden=1600, layers=48, seq=1024, batch=32).total | GB:2 }} -> 60 GB
    {{ memory: 32 * GB / model_states(1).total | count:1 }}                       -> 2 billion

EXPR is a memory-model expression, read by :mod:`grader.memory.expressions` exactly as the
answer keys are: the names ``grader.memory`` exports (``model_states``, ``activations``, the unit
constants GB, GiB, ...), calls, ``.total``, ``.parts["name"]``, numbers and arithmetic; anything
else is refused before evaluation. UNIT is a byte unit (``GB``, ``GiB``, ``TB``, ...), ``count``
(``30 billion``) or ``number``; DIGITS is the number of significant digits (default 3).
"""

from __future__ import annotations

import logging
import math
import re
import xml.etree.ElementTree as etree

from markdown.inlinepatterns import InlineProcessor
from markdown.util import AtomicString

from grader import memory
from grader.memory import expressions

log = logging.getLogger("mkdocs.course.figures")  # under "mkdocs": --strict counts a bad figure

# `|` may be written `\|` inside a table cell.
FIGURE_RE = (
    r"\{\{\s*memory:\s*(?P<expr>.+?)\s*\\?\|\s*(?P<unit>[A-Za-z]+)(?::(?P<digits>\d+))?\s*\}\}"
)

COUNT_WORDS = ((1e12, "trillion"), (1e9, "billion"), (1e6, "million"), (1e3, "thousand"))


class FigureError(ValueError):
    """An expression or unit the figure syntax does not allow."""


def evaluate(expr: str) -> float:
    """The value of a figure expression (a number of bytes, parameters, ...).

    Read by :mod:`grader.memory.expressions`, the same reader as the answer keys.
    """
    try:
        return expressions.evaluate(expr, label="figure")
    except expressions.ExpressionError as exc:
        raise FigureError(str(exc)) from exc


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

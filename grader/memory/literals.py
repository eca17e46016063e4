"""A safe parser for numbers as people type them: ``1.5``, ``7e9``, ``2**40``, ``1.12 × 10^11``.

Nothing is evaluated: the text is tokenised and read by a tiny recursive-descent parser that knows
only decimal literals, ``**`` / ``^`` (power), ``*`` / ``×`` / ``·`` (multiply), ``/`` (divide) and
parentheses. Arithmetic is done in :class:`decimal.Decimal`, so ``1.5`` times ``10**9`` is exactly
1 500 000 000. Sizes of exponents and of the text are bounded, so ``10**10**10`` is refused rather
than computed.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation, localcontext

MAX_TEXT = 200
MAX_EXPONENT = 400

_PLAIN = re.compile(r"[+-]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)|(?P<op>\*\*|\^|[*×·/()+-]))"
)


def _tokens(text: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    stripped = text.rstrip()
    while pos < len(stripped):
        match = _TOKEN.match(stripped, pos)
        if match is None:
            raise ValueError(
                f"unexpected {stripped[pos:].strip()[:12]!r} in number {text.strip()!r}"
            )
        tokens.append(match.group("num") or match.group("op"))
        pos = match.end()
    return tokens


class _Parser:
    """expr := term (('*'|'/') term)* ; term := ['+'|'-'] power ; power := atom [('**'|'^') term]"""

    def __init__(self, tokens: list[str], text: str) -> None:
        self.tokens = tokens
        self.pos = 0
        self.text = text

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise ValueError(f"number {self.text!r} ends too early")
        self.pos += 1
        return token

    def expr(self) -> Decimal:
        value = self.term()
        while self.peek() in {"*", "×", "·", "/"}:
            op = self.take()
            right = self.term()
            if op == "/":
                if right == 0:
                    raise ValueError(f"division by zero in {self.text!r}")
                value = value / right
            else:
                value = value * right
        return value

    def term(self) -> Decimal:
        if self.peek() in {"+", "-"}:
            sign = self.take()
            value = self.term()
            return -value if sign == "-" else value
        return self.power()

    def power(self) -> Decimal:
        base = self.atom()
        if self.peek() in {"**", "^"}:
            self.take()
            exponent = self.term()
            if abs(exponent) > MAX_EXPONENT:
                raise ValueError(f"exponent {exponent} too large in {self.text!r}")
            if base == 0 and exponent < 0:
                raise ValueError(f"zero to a negative power in {self.text!r}")
            if base < 0 and exponent != exponent.to_integral_value():
                raise ValueError(f"negative number to a fractional power in {self.text!r}")
            return base**exponent
        return base

    def atom(self) -> Decimal:
        token = self.take()
        if token == "(":
            value = self.expr()
            if self.peek() != ")":
                raise ValueError(f"unbalanced parentheses in {self.text!r}")
            self.take()
            return value
        if token[0].isdigit() or token[0] == ".":
            try:
                return Decimal(token.replace("_", ""))
            except (
                InvalidOperation
            ) as exc:  # pragma: no cover - the regex admits only valid literals
                raise ValueError(f"not a number: {token!r}") from exc
        raise ValueError(f"expected a number but found {token!r} in {self.text!r}")


def parse_number(text: str) -> Decimal:
    """Read a number or a small arithmetic expression of numbers; raise ``ValueError`` otherwise.

    Accepts ``7e9``, ``1.5``, ``2**40``, ``2^40``, ``3 * 10**9``, ``1.12 × 10^11``, ``120/64``,
    thousands separators in the usual form (``1,000,000``) and underscores (``7_000_000_000``).
    Refuses names, calls, ``nan``/``inf`` and anything else: nothing is ever evaluated.
    """
    if not isinstance(text, str):
        raise ValueError(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise ValueError(f"number text too long ({len(text)} characters, at most {MAX_TEXT})")
    cleaned = text.strip()
    if not cleaned:
        raise ValueError("missing number")
    if re.search(r"\b(nan|inf|infinity)\b", cleaned, re.IGNORECASE):
        raise ValueError(f"not a finite number: {text.strip()!r}")
    if _PLAIN.fullmatch(cleaned):  # fast path: a plain decimal literal such as 7.5e9
        value = Decimal(cleaned.replace("_", ""))
        if not value.is_finite():  # pragma: no cover - the pattern admits finite literals only
            raise ValueError(f"not a finite number: {text.strip()!r}")
        return value
    cleaned = _strip_thousands(cleaned)
    tokens = _tokens(cleaned)
    if not tokens:
        raise ValueError("missing number")
    parser = _Parser(tokens, text.strip())
    with localcontext() as ctx:
        ctx.prec = 60
        ctx.Emax = 10_000
        ctx.Emin = -10_000
        value = parser.expr()
        if parser.peek() is not None:
            raise ValueError(f"unexpected {parser.peek()!r} in number {text.strip()!r}")
        value = +value
    if not value.is_finite():
        raise ValueError(f"not a finite number: {text.strip()!r}")
    return value


def _strip_thousands(text: str) -> str:
    """Drop grouping commas (``1,000,000``); refuse any other comma (e.g. a decimal comma)."""
    if "," not in text:
        return text

    def fix(match: re.Match[str]) -> str:
        return match.group(0).replace(",", "")

    grouped = re.sub(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])", fix, text)
    if "," in grouped:
        raise ValueError(
            f"cannot read the comma in {text!r}: write a decimal point (22.4) "
            "and commas only between groups of three digits (1,000,000)"
        )
    return grouped


def to_python_number(value: Decimal) -> int | float:
    """An ``int`` when the value is a whole number, else the nearest ``float``."""
    if value == value.to_integral_value():
        return int(value)
    return float(value)

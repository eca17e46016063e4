"""Units: every quantity is bytes; GB means 10**9 bytes and GiB means 2**30 bytes, never mixed.

- :func:`parse_bytes` reads what people type ("24 GB", "22.4 GiB", "1.12e11 bytes", "0.112 TB",
  "2**40") and is strict: an unknown unit, a missing number, NaN/inf, a negative size or a bit unit
  ("Gb") is a ``ValueError`` whose message says what is wrong.
- :func:`parse_count` reads parameter counts ("1.5B", "7e9", "70B", "175 billion").
- :func:`format_bytes` writes bytes in one explicit unit ("31.4 GB", "6.09 GiB").
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

from .literals import MAX_TEXT, parse_number, to_python_number

KB = 10**3
MB = 10**6
GB = 10**9
TB = 10**12
PB = 10**15
KiB = 2**10
MiB = 2**20
GiB = 2**30
TiB = 2**40
PiB = 2**50

#: Canonical unit name -> bytes. Decimal (SI) units are powers of 1000, binary (IEC) of 1024.
BYTE_UNITS: dict[str, int] = {
    "B": 1,
    "KB": KB,
    "MB": MB,
    "GB": GB,
    "TB": TB,
    "PB": PB,
    "KiB": KiB,
    "MiB": MiB,
    "GiB": GiB,
    "TiB": TiB,
    "PiB": PiB,
}

_WORDS = {
    "byte": "B",
    "bytes": "B",
    "kilobyte": "KB",
    "megabyte": "MB",
    "gigabyte": "GB",
    "terabyte": "TB",
    "petabyte": "PB",
    "kibibyte": "KiB",
    "mebibyte": "MiB",
    "gibibyte": "GiB",
    "tebibyte": "TiB",
    "pebibyte": "PiB",
}

#: Lower-cased spelling -> canonical unit (case-insensitive where that is unambiguous).
_UNIT_LOOKUP: dict[str, str] = {name.lower(): name for name in BYTE_UNITS}
_UNIT_LOOKUP.update(_WORDS)
_UNIT_LOOKUP.update({word + "s": unit for word, unit in _WORDS.items() if not word.endswith("s")})

_BIT_UNIT = re.compile(r"^[KMGTP]i?b$")
_BIT_WORD = re.compile(r"^(?:[kmgtp]i?|kilo|mega|giga|tera|peta|kibi|mebi|gibi|tebi)?bits?$", re.I)
_APPROX = re.compile(r"^(?:~|≈|about\s|approx\.?\s|approximately\s)\s*", re.IGNORECASE)
_SPLIT = re.compile(r"^(?P<number>.*?)\s*(?P<unit>[A-Za-z]+)?\s*$", re.DOTALL)

_COUNT_SUFFIX: dict[str, int] = {
    "k": 10**3,
    "thousand": 10**3,
    "m": 10**6,
    "mn": 10**6,
    "million": 10**6,
    "b": 10**9,
    "bn": 10**9,
    "billion": 10**9,
    "t": 10**12,
    "tn": 10**12,
    "trillion": 10**12,
}


def unit_bytes(unit: str) -> int:
    """Bytes in one ``unit`` ("GB" -> 10**9, "GiB" -> 2**30); ``ValueError`` for anything else."""
    return BYTE_UNITS[canonical_unit(unit)]


def canonical_unit(unit: str) -> str:
    """The canonical spelling of a byte unit ("gb" -> "GB", "gib" -> "GiB", "bytes" -> "B").

    A bit unit ("Gb", "Gbit") is refused with a message that says so: 1 Gb is 1/8 of 1 GB.
    """
    text = unit.strip()
    if text in BYTE_UNITS:
        return text
    if _BIT_UNIT.match(text) or _BIT_WORD.match(text):
        raise ValueError(
            f"{text!r} is a unit of bits (1 Gb = 1/8 GB); write bytes: B, KB, MB, GB, TB, "
            "KiB, MiB, GiB or TiB"
        )
    found = _UNIT_LOOKUP.get(text.lower())
    if found is None:
        raise ValueError(
            f"unknown unit {text!r}; use B, KB, MB, GB, TB (powers of 1000) "
            "or KiB, MiB, GiB, TiB (powers of 1024)"
        )
    return found


def parse_bytes(text: str | int | float, *, default_unit: str | None = "B") -> int | float:
    """Read a memory size and return bytes (``int`` when whole, else ``float``).

    ``text`` is a number or a safe arithmetic expression of numbers (``2**40``, ``1.12e11``,
    ``3 * 10**9``) followed by a unit: B/bytes, KB, MB, GB, TB, PB (powers of 1000) or KiB, MiB,
    GiB, TiB, PiB (powers of 1024); case does not matter except that a capital prefix with a small
    ``b`` ("Gb") means bits and is refused. A bare number is read in ``default_unit`` (bytes);
    pass ``default_unit=None`` to demand a unit (an answer "24" is then an error, since it could
    mean bytes or gigabytes). An ``int``/``float`` argument is taken as bytes. Raises
    ``ValueError`` with a message fit to show a learner. A leading "~", "≈" or "about" and a
    trailing full stop are ignored ("about 24 GB.").

    >>> parse_bytes("24 GB"), parse_bytes("22.4 GiB"), parse_bytes("2**40")
    (24000000000, 24051816857.6, 1099511627776)
    """
    if isinstance(text, bool):
        raise ValueError("expected a memory size such as '24 GB', got a boolean")
    if isinstance(text, (int, float)):
        if not math.isfinite(text):
            raise ValueError(f"not a finite number of bytes: {text!r}")
        if text < 0:
            raise ValueError(f"a memory size cannot be negative: {text!r}")
        return text
    if not isinstance(text, str):
        raise ValueError(f"expected a memory size such as '24 GB', got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise ValueError(f"memory size too long ({len(text)} characters, at most {MAX_TEXT})")
    shown = _APPROX.sub("", text.strip()).removesuffix(".").strip()
    if not shown:
        raise ValueError("missing memory size: write a number and a unit, e.g. '24 GB'")
    match = _SPLIT.match(shown)
    assert match is not None  # the pattern matches every string
    number_text, unit_text = match.group("number"), match.group("unit")
    if unit_text and unit_text.lower() in {"nan", "inf", "infinity"}:
        raise ValueError(f"not a finite number: {shown!r}")
    if not number_text.strip():
        raise ValueError(f"missing number before the unit in {shown!r}, e.g. '24 GB'")
    if unit_text is None:
        if default_unit is None:
            raise ValueError(
                f"missing unit in {shown!r}: write it after the number, "
                f"e.g. '{shown} B' or '{shown} GB'"
            )
        unit_text = default_unit
    unit = canonical_unit(unit_text)
    value = parse_number(number_text)
    if value < 0:
        raise ValueError(f"a memory size cannot be negative: {shown!r}")
    return to_python_number(value * Decimal(BYTE_UNITS[unit]))


def parse_count(text: str | int | float) -> int:
    """Read a count of parameters (or tokens): "1.5B", "7e9", "70B", "175 billion", "2**30".

    Suffixes: k/K/thousand (10**3), M/million (10**6), B/bn/billion (10**9), T/trillion (10**12);
    a trailing word "params"/"parameters" is ignored. The result is rounded to the nearest whole
    number. Raises ``ValueError`` for a missing number, an unknown suffix, NaN/inf or a negative.
    """
    if isinstance(text, bool):
        raise ValueError("expected a count such as '1.5B', got a boolean")
    if isinstance(text, int):
        if text < 0:
            raise ValueError(f"a count cannot be negative: {text}")
        return text
    if isinstance(text, float):
        if not math.isfinite(text) or text < 0:
            raise ValueError(f"not a finite, non-negative count: {text!r}")
        return round(text)
    if not isinstance(text, str):
        raise ValueError(f"expected a count such as '1.5B', got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise ValueError(f"count too long ({len(text)} characters, at most {MAX_TEXT})")
    shown = text.strip()
    cleaned = re.sub(r"\s*(?:params|parameters)\s*$", "", shown, flags=re.IGNORECASE)
    match = _SPLIT.match(cleaned)
    assert match is not None
    number_text, suffix = match.group("number"), match.group("unit")
    if not number_text.strip():
        raise ValueError(f"missing number in {shown!r}, e.g. '1.5B' or '7e9'")
    scale = 1
    if suffix is not None:
        if suffix.lower() in {"nan", "inf", "infinity"}:
            raise ValueError(f"not a finite number: {shown!r}")
        try:
            scale = _COUNT_SUFFIX[suffix.lower()]
        except KeyError:
            raise ValueError(
                f"unknown suffix {suffix!r} in {shown!r}; use K, M, B or T "
                "(thousand, million, billion, trillion)"
            ) from None
    value = parse_number(number_text) * scale
    if value < 0:
        raise ValueError(f"a count cannot be negative: {shown!r}")
    return int(value.to_integral_value())


def to_unit(n_bytes: float, unit: str = "GB") -> float:
    """``n_bytes`` expressed in ``unit`` (a float): ``to_unit(120e9, "GB") == 120.0``."""
    return n_bytes / unit_bytes(unit)


def format_bytes(n_bytes: float, unit: str = "GB", *, digits: int = 3) -> str:
    """Write ``n_bytes`` in one explicit unit, to ``digits`` significant digits.

    Whole-number digits are never dropped: ``format_bytes(120e9) == '120 GB'``,
    ``format_bytes(31.40625e9) == '31.4 GB'``, ``format_bytes(1.875e9) == '1.88 GB'``,
    ``format_bytes(16e12) == '16000 GB'``, ``format_bytes(6542750000, 'GiB') == '6.09 GiB'``.
    """
    name = canonical_unit(unit)
    if not math.isfinite(n_bytes):
        raise ValueError(f"not a finite number of bytes: {n_bytes!r}")
    if digits < 1:
        raise ValueError("digits must be at least 1")
    value = n_bytes / BYTE_UNITS[name]
    return f"{_format_significant(value, digits)} {name}"


def _format_significant(value: float, digits: int) -> str:
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = min(15, max(0, digits - 1 - magnitude))
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in {"-0", ""} else text

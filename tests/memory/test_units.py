"""Units: GB = 10**9, GiB = 2**30; parse_bytes is strict and never evaluates code."""

from __future__ import annotations

import pytest

from grader.memory import GB, TB, GiB, format_bytes, parse_bytes, parse_count, to_unit


def test_unit_constants() -> None:
    assert GB == 10**9
    assert GiB == 2**30
    assert TB == 10**12


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("24 GB", 24 * 10**9),
        ("24GB", 24 * 10**9),
        ("24 gb", 24 * 10**9),
        ("24 gigabytes", 24 * 10**9),
        ("22.4 GiB", 22.4 * 2**30),
        ("22.4 gib", 22.4 * 2**30),
        ("1.12e11 bytes", 112 * 10**9),
        ("1.12E11 B", 112 * 10**9),
        ("0.112 TB", 112 * 10**9),
        ("2**40", 2**40),
        ("2^40 B", 2**40),
        ("1 TiB", 2**40),
        ("3 * 10**9 B", 3 * 10**9),
        ("1.12 × 10^11 B", 112 * 10**9),
        ("120/64 GB", 1.875 * 10**9),
        ("1,000 GB", 10**12),
        ("1_000 MB", 10**9),
        ("512 KiB", 512 * 1024),
        ("16 kB", 16000),
        ("  7 MB  ", 7 * 10**6),
        ("about 24 GB.", 24 * 10**9),
        ("~24 GB", 24 * 10**9),
        ("≈ 22.4 GiB", 22.4 * 2**30),
    ],
)
def test_parse_bytes_accepts_what_people_type(text: str, expected: float) -> None:
    assert parse_bytes(text) == pytest.approx(expected, rel=1e-12)


def test_parse_bytes_is_exact_for_whole_numbers() -> None:
    value = parse_bytes("0.112 TB")
    assert isinstance(value, int) and value == 112_000_000_000
    assert isinstance(parse_bytes("22.4 GiB"), float)


def test_parse_bytes_numbers_are_bytes() -> None:
    assert parse_bytes(120e9) == 120e9
    assert parse_bytes(5) == 5


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("24 Gb", "bits"),
        ("24 Mb", "bits"),
        ("24 Gbit", "bits"),
        ("24 gigabits", "bits"),
        ("24 XB", "unknown unit"),
        ("24 G", "unknown unit"),
        ("GB", "missing number"),
        ("", "missing"),
        ("   ", "missing"),
        ("nan GB", "finite"),
        ("inf", "finite"),
        ("NaN", "finite"),
        ("-1 GB", "negative"),
        ("22,4 GB", "comma"),
        ("__import__('os').system('true') GB", "unexpected"),
        ("1e3e3 GB", "unexpected"),
        ("10**10**10 B", "too large"),
        ("(1 GB", "parentheses"),
        ("1/0 GB", "division by zero"),
        ("x" * 300, "too long"),
    ],
)
def test_parse_bytes_rejects_with_clear_message(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_bytes(text)


def test_parse_bytes_can_demand_a_unit() -> None:
    with pytest.raises(ValueError, match="missing unit"):
        parse_bytes("24", default_unit=None)
    assert parse_bytes("24", default_unit="GB") == 24 * GB


def test_parse_bytes_rejects_non_finite_and_odd_types() -> None:
    for bad in (float("nan"), float("inf"), -5, True, None, [1]):
        with pytest.raises(ValueError):
            parse_bytes(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.5B", 1_500_000_000),
        ("7e9", 7_000_000_000),
        ("70B", 70_000_000_000),
        ("175 billion", 175_000_000_000),
        ("7.5 B params", 7_500_000_000),
        ("350M", 350_000_000),
        ("1T", 10**12),
        ("64k", 64_000),
        ("2**30", 2**30),
        ("0.1B", 100_000_000),
        (1.5e9, 1_500_000_000),
        (64, 64),
    ],
)
def test_parse_count(text: str | float, expected: int) -> None:
    value = parse_count(text)
    assert value == expected and isinstance(value, int)


@pytest.mark.parametrize("text", ["", "B", "1.5X", "nan", "-3B", "1.5 GB"])
def test_parse_count_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_count(text)


@pytest.mark.parametrize(
    ("n", "unit", "expected"),
    [
        (120e9, "GB", "120 GB"),
        (31.40625e9, "GB", "31.4 GB"),
        (16.640625e9, "GB", "16.6 GB"),
        (1.875e9, "GB", "1.88 GB"),
        (16e12, "GB", "16000 GB"),
        (0, "GB", "0 GB"),
        (2**30, "GiB", "1 GiB"),
        (2**30, "GB", "1.07 GB"),
        (6_542_750_000, "gib", "6.09 GiB"),
    ],
)
def test_format_bytes(n: float, unit: str, expected: str) -> None:
    assert format_bytes(n, unit) == expected


def test_format_bytes_rejects_bad_unit() -> None:
    with pytest.raises(ValueError, match="bits"):
        format_bytes(1, "Gb")
    with pytest.raises(ValueError, match="unknown unit"):
        format_bytes(1, "gigs")


def test_to_unit_never_mixes() -> None:
    assert to_unit(2**30, "GiB") == 1.0
    assert to_unit(10**9, "GB") == 1.0
    assert to_unit(10**9, "GiB") == pytest.approx(0.931322574615)

"""Numeric answers: read as people write them, compared with a key from the memory model.

"112 GB", "1.12e11 bytes", "112e9", "0.112 TB", "104.3 GiB" are all sizes (via
``grader.memory.parse_bytes``); "70B", "7e9", "175 billion" are counts (``parse_count``). A wrong
answer that matches a known mistake (GiB for GB, bits for bytes, fp32 for fp16, optimizer state
forgotten, the wrong part sharded, off by N_d, ...) gets that mistake's message.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Any

from grader.exercises.keys import evaluate
from grader.exercises.loader import Exercise
from grader.exercises.mistakes import NAMED_MISTAKES, UNIT_SLIPS
from grader.memory import format_bytes, parse_bytes, parse_count
from grader.memory.literals import parse_number

from .outcome import AnswerProblem, Outcome
from .tolerance import describe, mistake_tolerance, within

#: A bare number (no unit) for a size is read as bytes only from this size up ("112e9"); a
#: smaller bare number ("112") is almost surely GB or GiB with the unit left out, and is refused
#: with a message asking for the unit rather than graded as 112 bytes.
BARE_BYTES_MIN = 1e5
MAX_ANSWER_CHARS = 200


@cache
def key_value(expression: str) -> float:
    """A key expression's value (cached: keys are pure functions of the memory model)."""
    return evaluate(expression)


def read_answer(answer: Any, unit: str) -> float:
    """The answer as a float in the unit's base (bytes, items); ``AnswerProblem`` if unreadable."""
    if isinstance(answer, bool) or not isinstance(answer, int | float | str):
        raise AnswerProblem(
            f"expected a number or text such as '112 GB', got {type(answer).__name__}"
        )
    if isinstance(answer, str) and len(answer) > MAX_ANSWER_CHARS:
        raise AnswerProblem(f"the answer is {len(answer):,} characters; at most {MAX_ANSWER_CHARS}")
    if isinstance(answer, float) and not math.isfinite(answer):
        raise AnswerProblem(f"{answer!r} is not a finite number")
    try:
        if unit == "bytes":
            return float(_read_bytes(answer))
        if unit == "count":
            return float(parse_count(answer))
        return float(parse_number(answer)) if isinstance(answer, str) else float(answer)
    except ValueError as exc:
        raise AnswerProblem(str(exc)) from None


_TIMES_TEN = re.compile(r"(?<=\d)\s*[xX]\s*(?=10\s*(?:\^|\*\*))")
_DIGIT_GROUPS = re.compile(r"(?<=\d) (?=\d{3}(?:\D|$))")
_SCALE_WORD = re.compile(
    r"^(?P<n>.*?\d)\s*(?P<w>thousand|million|billion|trillion)\s+(?P<u>\S+)$", re.IGNORECASE
)


def normalise_size(text: str) -> str:
    """Forms ``parse_bytes`` does not read but people write: "1.12x10^11 B" (x for ×),
    "112 000 000 000 B" (spaces between digit groups)."""
    text = _TIMES_TEN.sub(" × ", text.strip())
    return _DIGIT_GROUPS.sub("", text)


def _read_bytes(answer: int | float | str) -> float:
    if isinstance(answer, str):
        answer = normalise_size(answer)
        if re.search(r"\d\s*(?:thousand|million|billion|trillion)$", answer, re.IGNORECASE):
            raise AnswerProblem(_missing_unit(answer))  # "112 billion" of what?
        scaled = _SCALE_WORD.match(answer)  # "112 billion bytes", "0.112 trillion B"
        if scaled:
            count = parse_count(f"{scaled.group('n')} {scaled.group('w')}")
            return float(parse_bytes(f"{count} {scaled.group('u')}", default_unit=None))
        try:
            return float(parse_bytes(answer, default_unit=None))
        except ValueError as exc:
            if "missing unit" not in str(exc):
                raise
            bare = float(parse_bytes(answer))  # the number alone, read as bytes
            if bare >= BARE_BYTES_MIN:
                return bare
            raise AnswerProblem(_missing_unit(answer.strip())) from None
    value = float(parse_bytes(answer))
    if value < BARE_BYTES_MIN:
        raise AnswerProblem(_missing_unit(f"{answer:g}"))
    return value


def _missing_unit(shown: str) -> str:
    return (
        f"'{shown}' has no unit: {shown} what? Write the unit after the number, e.g. "
        f"'{shown} GB' (GB = 10^9 bytes) or '{shown} GiB' (GiB = 2^30 bytes)."
    )


def show(value: float, exercise: Exercise) -> str:
    """A value in the exercise's display unit ("112 GB")."""
    unit = exercise.data.get("display_unit") or ""
    if exercise.data["unit"] == "bytes":
        try:
            return format_bytes(value, unit or "GB")
        except ValueError:
            return format_bytes(value, "GB")
    return f"{value:,.4g}" + (f" {unit}" if unit else "")


def _known_mistake(value: float, key: float, exercise: Exercise) -> tuple[str, str] | None:
    data = exercise.data
    close = mistake_tolerance(data["tolerance"])
    for mistake in data.get("mistakes", []):
        wrong = key_value(mistake["value"])
        if within(value, wrong, close):
            message = mistake.get("feedback") or NAMED_MISTAKES[mistake["name"]]
            return mistake["name"], message
    slips = data.get("common_mistakes")
    if slips is None:
        slips = [s.name for s in UNIT_SLIPS] if data["unit"] == "bytes" else []
    for slip in UNIT_SLIPS:
        if slip.name in slips and within(value, key * slip.ratio, close):
            return slip.name, slip.message
    return None


def grade_numeric(exercise: Exercise, answer: Any) -> Outcome:
    """Grade a numeric answer against the exercise's key and tolerance."""
    points = exercise.points
    data = exercise.data
    try:
        value = read_answer(answer, data["unit"])
    except AnswerProblem as exc:
        return Outcome(0, points, f"Could not read the answer: {exc}")
    key = key_value(data["key"])
    shown = show(value, exercise)
    if within(value, key, data["tolerance"]):
        return Outcome(points, points, f"Right: {shown}.")
    found = _known_mistake(value, key, exercise)
    if found is not None:
        name, message = found
        return Outcome(
            0, points, f"Not quite: your answer reads as {shown}. {message}", mistake=name
        )
    direction = "too high" if value > key else "too low"
    ratio = max(value, 1e-300) / key
    return Outcome(
        0,
        points,
        f"Not right: your answer reads as {shown}, which is {direction} "
        f"(answers {describe(data['tolerance'])} of the expected value count; "
        f"yours is {ratio:.3g}× it).",
    )

"""The exercises' part of ``python -m grader check``: every file valid, every key evaluating,
and every size an explanation states in bold (``**112 GB**``) agreeing with the key."""

from __future__ import annotations

import re
from pathlib import Path

from grader.course.problem import Problem

from .keys import KeyExpressionError, evaluate
from .loader import Exercise, check_exercises_dir

_BOLD_SIZE = re.compile(r"\*\*\s*~?(?P<size>[0-9][0-9.,]*\s*(?:[KMGTP]i?B|B|bytes))\s*\*\*")


def stated_sizes(exercise: Exercise) -> list[tuple[str, float]]:
    """Sizes an exercise's explanation states in bold, as (text, bytes)."""
    from grader.memory import parse_bytes

    found = []
    for match in _BOLD_SIZE.finditer(exercise.data.get("explanation", "")):
        text = match.group("size").replace(",", "")
        try:
            found.append((match.group("size"), float(parse_bytes(text))))
        except ValueError:
            continue
    return found


def explanation_problems(exercise: Exercise) -> list[Problem]:
    """A bold size in a numeric exercise's explanation that its key does not give."""
    if exercise.kind != "numeric" or exercise.data.get("unit") != "bytes":
        return []
    try:
        key = evaluate(exercise.data["key"])
    except KeyExpressionError:
        return []  # reported by the loader
    from grader.grading.tolerance import within

    problems = []
    for text, value in stated_sizes(exercise):
        # a stated figure is rounded: accept it within 1%, or the key's tolerance if tighter
        if not within(value, key, {"relative": 0.01}):
            problems.append(
                Problem(
                    exercise.path,
                    exercise.line_of("explanation"),
                    f"explanation states **{text}** but the key {exercise.data['key']!r} "
                    f"gives {key:.4g} bytes",
                )
            )
    return problems


def check_exercises(root: Path) -> list[Problem]:
    """Course-checker entry: ``root`` is the course root (the folder with ``exercises/``)."""
    exercises_dir = Path(root) / "exercises"
    if not exercises_dir.is_dir():
        return [Problem(exercises_dir, 0, "no exercises/ folder")]
    exercises, found = check_exercises_dir(exercises_dir)
    problems = [Problem(p.path, p.line, p.message) for p in found]
    for exercise in exercises.values():
        problems += explanation_problems(exercise)
    return problems

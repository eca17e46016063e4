"""Short answers (accepted forms, near misses) and reflections (not scored; model answer shown)."""

from __future__ import annotations

import re
from typing import Any

from grader.exercises.loader import Exercise

from .outcome import Outcome

MAX_SHORT_ANSWER = 200
MAX_REFLECTION = 5000
_NOT_ALNUM = re.compile(r"[^0-9a-z+]+")
_ARTICLE = re.compile(r"^(?:an?|the)\s+")


def normalise(text: str) -> str:
    """Compare answers without case, spaces, hyphens, punctuation or a leading article.

    "All-Reduce", "all reduce" and "allreduce." all become "allreduce".
    """
    lowered = _ARTICLE.sub("", text.strip().lower())
    return _NOT_ALNUM.sub("", lowered)


def grade_short_answer(exercise: Exercise, answer: Any) -> Outcome:
    points = exercise.points
    text = str(answer)
    if len(text) > MAX_SHORT_ANSWER:
        return Outcome(
            0,
            points,
            f"The answer is {len(text):,} characters; keep it under "
            f"{MAX_SHORT_ANSWER} (a few words).",
        )
    given = normalise(text)
    if not given:
        return Outcome(0, points, "The answer is empty.")
    if given in {normalise(a) for a in exercise.data["accepted"]}:
        return Outcome(points, points, f"Right: {text.strip()}.")
    for near in exercise.data.get("near_misses", []):
        if given in {normalise(m) for m in near["match"]}:
            return Outcome(0, points, f"Not quite: {near['feedback']}")
    return Outcome(0, points, f"'{text.strip()[:80]}' is not one of the accepted answers.")


def grade_reflection(exercise: Exercise, answer: Any) -> Outcome:
    """Not scored: any answer of at least ``min_words`` words passes and sees the model answer."""
    text = str(answer).strip()
    words = len(text.split())
    needed = int(exercise.data.get("min_words", 1))
    if len(text) > MAX_REFLECTION:
        return Outcome(
            0, 0, f"Please keep the answer under {MAX_REFLECTION} characters.", passed=False
        )
    if words < needed:
        return Outcome(
            0,
            0,
            f"Write at least {needed} words, then compare with the model answer.",
            passed=False,
        )
    return Outcome(
        0,
        0,
        "Thanks. Compare your answer with the model answer:\n\n"
        + exercise.data["explanation"].strip(),
        passed=True,
    )

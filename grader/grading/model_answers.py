"""A fully right answer for every exercise, built from its key (for warm-up runs and tests)."""

from __future__ import annotations

from typing import Any

from grader.exercises.loader import Exercise

from .numeric import key_value


def model_answer(exercise: Exercise) -> Any:
    """What a learner who got everything right would submit."""
    data = exercise.data
    kind = exercise.kind
    if kind == "numeric":
        value = key_value(data["key"])
        return f"{value:.6g} bytes" if data["unit"] == "bytes" else f"{value:.6g}"
    if kind == "single_choice":
        return next(c["id"] for c in data["choices"] if c.get("correct"))
    if kind == "multiple_select":
        return [c["id"] for c in data["choices"] if c.get("correct")]
    if kind == "matching":
        return dict(data["key"])
    if kind == "short_answer":
        return data["accepted"][0]
    if kind == "reflection":
        return data["explanation"]
    return data["solution"]


def model_submission(exercises: dict[str, Exercise], lesson: int) -> dict[str, Any]:
    """A submission answering every exercise of ``lesson`` rightly."""
    return {
        "learner": "model-answer",
        "lesson": lesson,
        "answers": {ex.id: model_answer(ex) for ex in exercises.values() if ex.lesson == lesson},
    }

"""Gradescope ``results.json`` from the outcomes of one graded submission."""

from __future__ import annotations

import hashlib
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from grader.exercises.loader import Exercise

from .outcome import Outcome
from .submission import Submission


@cache
def grader_version() -> str:
    try:
        return version("grader")
    except PackageNotFoundError:
        return "0+unknown"


def exercises_digest(exercises: dict[str, Exercise]) -> str:
    """A hash of every exercise file and hidden test: the same digest regrades the same way."""
    digest = hashlib.sha256()
    for qid in sorted(exercises):
        exercise = exercises[qid]
        for path in filter(None, (exercise.path, exercise.tests_path())):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def results_json(
    submission: Submission,
    outcomes: dict[str, Outcome],
    exercises: dict[str, Exercise],
    sandbox: dict[str, dict[str, Any]] | None = None,
    *,
    execution_time: float = 0.0,
    digest: str | None = None,
) -> dict[str, Any]:
    """The Gradescope shape; explanations of unpassed questions go to ``extra_data`` only."""
    tests = []
    explanations: dict[str, str] = {}
    mistakes: dict[str, str] = {}
    for number, (qid, outcome) in enumerate(outcomes.items(), start=1):
        exercise = exercises[qid]
        text = outcome.text
        explanation = exercise.data.get("explanation", "").strip()
        if outcome.passed and exercise.kind != "reflection" and explanation:
            text += "\n\n" + explanation
        explanations[qid] = explanation
        if outcome.mistake:
            mistakes[qid] = outcome.mistake
        tests.append(
            {
                "name": qid,
                "number": str(number),
                "score": round(outcome.score, 4),
                "max_score": outcome.max_score,
                "status": outcome.status,
                "output": text,
                "output_format": "md",
                "tags": [exercise.kind],
                "visibility": "visible",
            }
        )
    score = round(sum(t["score"] for t in tests), 4)
    max_score = sum(t["max_score"] for t in tests)
    unanswered = sorted(
        ex.id
        for ex in exercises.values()
        if ex.lesson == submission.lesson and ex.id not in outcomes
    )
    passed = sum(1 for t in tests if t["status"] == "passed")
    return {
        "score": score,
        "max_score": max_score,
        "execution_time": round(execution_time, 4),
        "output": f"Lesson {submission.lesson}: {score:g} of {max_score:g} points; "
        f"{passed} of {len(tests)} answers right.",
        "output_format": "md",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {
            "grader_version": grader_version(),
            "exercises_digest": digest or exercises_digest(exercises),
            "learner": submission.learner,
            "lesson": submission.lesson,
            "explanations": explanations,
            "mistakes": mistakes,
            "unanswered": unanswered,
            "sandbox": sandbox or {},
        },
    }

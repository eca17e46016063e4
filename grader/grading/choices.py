"""Single choice, multiple select and matching: scored per option or per pair, with feedback."""

from __future__ import annotations

from typing import Any

from grader.exercises.loader import Exercise

from .outcome import Outcome


def grade_single_choice(exercise: Exercise, answer: Any) -> Outcome:
    """``answer`` is one choice id (the submission check has made sure it exists)."""
    choice_id = answer[0] if isinstance(answer, list) else answer
    choice = next(c for c in exercise.data["choices"] if c["id"] == choice_id)
    points = exercise.points
    verdict = "Right" if choice.get("correct") else "Not this one"
    return Outcome(
        points if choice.get("correct") else 0,
        points,
        f"{verdict} ({choice_id}). {choice['feedback']}",
    )


def grade_multiple_select(exercise: Exercise, answer: list[str]) -> Outcome:
    """Each right selection counts, each wrong one takes one back (never below zero).

    With ``partial_credit: false`` only the exact set of correct options scores.
    """
    choices = exercise.data["choices"]
    correct = {c["id"] for c in choices if c.get("correct")}
    chosen = set(answer)
    hits, false_alarms = chosen & correct, chosen - correct
    points = exercise.points
    if exercise.data.get("partial_credit", True):
        score = points * max(0, len(hits) - len(false_alarms)) / len(correct)
    else:
        score = points if chosen == correct else 0
    details = [
        f"- {c['id']}: {'✓' if c['id'] in correct else '✗'} {c['feedback']}"
        for c in choices
        if c["id"] in chosen
    ]
    missed = len(correct - chosen)
    if chosen == correct:
        head = "Right: exactly the options that apply."
    elif not chosen:
        head = "No option selected."
    else:
        head = f"{len(hits)} of your {len(chosen)} selections apply"
        head += f"; {missed} more option(s) also apply." if missed else "."
    return Outcome(score, points, head, details=details)


def grade_matching(exercise: Exercise, answer: dict[str, str]) -> Outcome:
    """One share of the points per left item paired with its right item."""
    key: dict[str, str] = exercise.data["key"]
    feedback: dict[str, str] = exercise.data.get("feedback", {})
    left_text = {item["id"]: item["text"] for item in exercise.data["left"]}
    right_ids = {item["id"] for item in exercise.data["right"]}
    right = sum(1 for left_id, right_id in key.items() if answer.get(left_id) == right_id)
    points = exercise.points
    details = []
    for left_id, right_id in key.items():
        given = answer.get(left_id)
        if given == right_id:
            details.append(f"- {left_text[left_id]}: ✓")
        elif given is None or given not in right_ids:
            details.append(f"- {left_text[left_id]}: not matched. {feedback.get(left_id, '')}")
        else:
            details.append(f"- {left_text[left_id]}: ✗ {feedback.get(left_id, '')}".rstrip())
    head = f"{right} of {len(key)} pairs right."
    return Outcome(points * right / len(key), points, head, details=details)

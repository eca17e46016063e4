"""Reading results back: one learner's own results, and the instructor's gradebook."""

from __future__ import annotations

import csv
import io
from typing import Any

from sqlalchemy import Engine, func, select

from grader.service.storage import as_utc, attempts, learners

GRADEBOOK_COLUMNS = (
    "learner",
    "lesson",
    "question",
    "best_score",
    "max_score",
    "attempts",
    "last_submission_at",
)


def learner_results(engine: Engine, learner_id: int, lesson: int | None) -> list[dict[str, Any]]:
    """Per question: attempts, best score and the last attempt (answer, status, feedback)."""
    query = (
        select(attempts)
        .where(attempts.c.learner_id == learner_id)
        .order_by(attempts.c.submitted_at, attempts.c.id)
    )
    if lesson is not None:
        query = query.where(attempts.c.lesson == lesson)
    per_question: dict[str, dict[str, Any]] = {}
    with engine.connect() as conn:
        for row in conn.execute(query):
            entry = per_question.setdefault(
                row.question,
                {"question": row.question, "lesson": row.lesson, "attempts": 0, "best_score": 0.0},
            )
            entry["attempts"] += 1
            entry["best_score"] = max(entry["best_score"], row.score)
            entry.update(
                max_score=row.max_score,
                last_score=row.score,
                last_status=row.status,
                last_output=row.output,
                last_answer=row.answer,
                last_submission_at=as_utc(row.submitted_at),
            )
    return sorted(per_question.values(), key=lambda e: (e["lesson"], e["question"]))


def gradebook(engine: Engine, lesson: int | None = None) -> list[dict[str, Any]]:
    """One row per learner and question: best score, attempts, last submission time."""
    query = (
        select(
            learners.c.name.label("learner"),
            attempts.c.lesson,
            attempts.c.question,
            func.max(attempts.c.score).label("best_score"),
            func.max(attempts.c.max_score).label("max_score"),
            func.count().label("attempts"),
            func.max(attempts.c.submitted_at).label("last_submission_at"),
        )
        .join(learners, learners.c.id == attempts.c.learner_id)
        .group_by(learners.c.name, attempts.c.lesson, attempts.c.question)
        .order_by(learners.c.name, attempts.c.lesson, attempts.c.question)
    )
    if lesson is not None:
        query = query.where(attempts.c.lesson == lesson)
    with engine.connect() as conn:
        rows = conn.execute(query).all()
    return [
        {
            "learner": r.learner,
            "lesson": r.lesson,
            "question": r.question,
            "best_score": r.best_score,
            "max_score": r.max_score,
            "attempts": r.attempts,
            "last_submission_at": as_utc(r.last_submission_at),
        }
        for r in rows
    ]


def _cell(value: Any) -> str:
    text = value.isoformat() if hasattr(value, "isoformat") else str(value)
    # A spreadsheet would run a cell starting with = + - @ as a formula (CSV injection).
    if text[:1] in {"=", "+", "-", "@", "\t", "\r"} and not _is_number(text):
        text = "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def gradebook_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(GRADEBOOK_COLUMNS)
    for row in rows:
        writer.writerow([_cell(row[c]) for c in GRADEBOOK_COLUMNS])
    return out.getvalue()

"""Storing a graded submission exactly once.

Every submission carries an idempotency key chosen by the client (``Idempotency-Key`` header).
The pair (learner, key) is unique in the database, so a retry after a lost answer or a crash
returns the stored result instead of counting a second attempt. The write is one transaction:
the submission and its per-question attempts are committed together or not at all, and the
answer is sent only after the commit returned (SQLite ``synchronous=FULL``; PostgreSQL defaults).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, insert, select
from sqlalchemy.exc import IntegrityError

from grader.service.attempt_limits import check_limits
from grader.service.storage import (
    as_utc,
    attempts,
    learners,
    submissions,
    utcnow,
    write_transaction,
)


@dataclass(frozen=True)
class Stored:
    id: int
    lesson: int
    submitted_at: dt.datetime
    result: dict[str, Any]
    replayed: bool


class IdempotencyConflict(ValueError):
    """The same key was already used for a different submission."""


def _existing(
    conn: Connection, learner_id: int, key: str, lesson: int, answers: Mapping[str, Any]
) -> Stored | None:
    row = conn.execute(
        select(
            submissions.c.id,
            submissions.c.lesson,
            submissions.c.submitted_at,
            submissions.c.result,
            submissions.c.answers,
        ).where(submissions.c.learner_id == learner_id, submissions.c.idempotency_key == key)
    ).first()
    if row is None:
        return None
    if row.lesson != lesson or row.answers != dict(answers):
        raise IdempotencyConflict(
            f"idempotency key {key!r} was already used for a different submission: "
            "send a new key for new answers"
        )
    return Stored(row.id, row.lesson, as_utc(row.submitted_at), row.result, replayed=True)


def find_replay(
    engine: Engine, learner_id: int, key: str, lesson: int, answers: Mapping[str, Any]
) -> Stored | None:
    """The stored submission for this key, if any (checked before grading, to save the work)."""
    with engine.connect() as conn:
        return _existing(conn, learner_id, key, lesson, answers)


def store(
    engine: Engine,
    *,
    learner_id: int,
    lesson: int,
    key: str,
    answers: Mapping[str, Any],
    result: dict[str, Any],
    max_attempts: Mapping[str, int | None],
    rate_limit: int,
    window_s: int,
) -> Stored:
    """Store a graded submission, or return the one already stored under ``key``.

    Raises ``RateLimited``/``AttemptsUsedUp`` (nothing stored) and ``IdempotencyConflict``.
    """
    try:
        with write_transaction(engine) as conn:
            # One writer per learner at a time (PostgreSQL row lock; SQLite's BEGIN IMMEDIATE
            # already serialises writers), so limits and keys are checked against committed data.
            conn.execute(select(learners.c.id).where(learners.c.id == learner_id).with_for_update())
            previous = _existing(conn, learner_id, key, lesson, answers)
            if previous is not None:
                return previous
            now = utcnow()
            check_limits(
                conn,
                learner_id=learner_id,
                questions=answers.keys(),
                max_attempts=max_attempts,
                limit=rate_limit,
                window_s=window_s,
                now=now,
            )
            extra = result.get("extra_data") or {}
            submission_id = conn.execute(
                insert(submissions)
                .values(
                    learner_id=learner_id,
                    lesson=lesson,
                    idempotency_key=key,
                    submitted_at=now,
                    answers=dict(answers),
                    result=result,
                    score=float(result.get("score") or 0),
                    max_score=float(result.get("max_score") or 0),
                    grader_version=str(extra.get("grader_version", ""))[:100],
                )
                .returning(submissions.c.id)
            ).scalar_one()
            rows = [
                {
                    "submission_id": submission_id,
                    "learner_id": learner_id,
                    "lesson": lesson,
                    "question": str(test["name"]),
                    "submitted_at": now,
                    "answer": answers.get(str(test["name"])),
                    "score": float(test.get("score") or 0),
                    "max_score": float(test.get("max_score") or 0),
                    "status": str(test.get("status", "failed"))[:20],
                    "output": str(test.get("output", "")),
                }
                for test in result.get("tests", [])
                if str(test.get("name")) in answers
            ]
            if rows:
                conn.execute(insert(attempts), rows)
            return Stored(submission_id, lesson, now, result, replayed=False)
    except IntegrityError:
        # Another instance stored the same key between our check and our insert.
        with engine.connect() as conn:
            previous = _existing(conn, learner_id, key, lesson, answers)
        if previous is None:
            raise
        return previous

"""Attempt limits, counted in the database so that every instance enforces the same numbers.

- Rate limit: per learner and per question, at most ``rate_limit_attempts`` graded attempts in
  any window of ``rate_limit_window_s`` seconds (answered 429, limit stated, ``Retry-After``).
- ``max_attempts`` of an exercise file: after that many graded attempts, no more (answered 409).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sqlalchemy import Connection, func, select

from grader.service.storage import as_utc, attempts


@dataclass
class RateLimited(Exception):
    question: str
    limit: int
    window_s: int
    retry_after_s: int

    @property
    def message(self) -> str:
        return (
            f"too many attempts at {self.question}: the limit is {self.limit} per learner and "
            f"question every {self.window_s} s; try again in {self.retry_after_s} s"
        )

    def __str__(self) -> str:
        return self.message


@dataclass
class AttemptsUsedUp(Exception):
    question: str
    max_attempts: int

    @property
    def message(self) -> str:
        return (
            f"no attempts left at {self.question}: all {self.max_attempts} allowed attempts are "
            "used (your results are kept)"
        )

    def __str__(self) -> str:
        return self.message


def check_limits(
    conn: Connection,
    *,
    learner_id: int,
    questions: Iterable[str],
    max_attempts: Mapping[str, int | None],
    limit: int,
    window_s: int,
    now: dt.datetime,
) -> None:
    """Raise ``RateLimited`` or ``AttemptsUsedUp`` if one more attempt at a question is too many."""
    questions = sorted(set(questions))
    if not questions:
        return
    since = now - dt.timedelta(seconds=window_s)
    rows = conn.execute(
        select(
            attempts.c.question,
            func.count().label("total"),
            func.count().filter(attempts.c.submitted_at > since).label("recent"),
            func.min(attempts.c.submitted_at)
            .filter(attempts.c.submitted_at > since)
            .label("oldest"),
        )
        .where(attempts.c.learner_id == learner_id, attempts.c.question.in_(questions))
        .group_by(attempts.c.question)
    ).all()
    for row in rows:
        cap = max_attempts.get(row.question)
        if cap is not None and row.total >= cap:
            raise AttemptsUsedUp(row.question, cap)
        if row.recent >= limit:
            free_at = as_utc(row.oldest) + dt.timedelta(seconds=window_s)
            wait = max(1, math.ceil((free_at - now).total_seconds()))
            raise RateLimited(row.question, limit, window_s, wait)

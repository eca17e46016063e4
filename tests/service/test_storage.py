"""Storage rules on both databases, without the grader: exactly-once keys, attempt limits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from grader.service.attempt_limits import AttemptsUsedUp, RateLimited
from grader.service.roster import add_learner
from grader.service.settings import Settings
from grader.service.storage import attempts, learners, make_engine
from grader.service.submissions import IdempotencyConflict, store

RESULT = {
    "score": 0.0,
    "max_score": 1.0,
    "tests": [{"name": "q1", "score": 0.0, "max_score": 1.0, "status": "failed", "output": "no"}],
    "extra_data": {"grader_version": "test"},
}


@pytest.fixture()
def engine(settings: Settings) -> Iterator[Engine]:
    engine = make_engine(settings)
    add_learner(engine, "ada")
    yield engine
    engine.dispose()


def _store(engine: Engine, key: str, **limits: Any):
    with engine.connect() as conn:
        learner_id = conn.execute(select(learners.c.id)).scalar_one()
    options = {"max_attempts": {}, "rate_limit": 100, "window_s": 60} | limits
    return store(
        engine, learner_id=learner_id, lesson=8, key=key, answers={"q1": "x"}, result=RESULT,
        **options,
    )  # fmt: skip


def test_max_attempts_then_no_more(engine: Engine) -> None:
    for n in range(2):
        assert not _store(engine, f"k{n}", max_attempts={"q1": 2}).replayed
    with pytest.raises(AttemptsUsedUp, match="all 2 allowed attempts"):
        _store(engine, "k-extra", max_attempts={"q1": 2})
    assert _store(engine, "k0", max_attempts={"q1": 2}).replayed  # a replay is not an attempt
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(attempts)).scalar() == 2


def test_rate_limit_says_when_to_retry(engine: Engine) -> None:
    for n in range(3):
        _store(engine, f"k{n}", rate_limit=3, window_s=600)
    with pytest.raises(RateLimited) as refused:
        _store(engine, "k3", rate_limit=3, window_s=600)
    assert refused.value.limit == 3 and refused.value.window_s == 600
    assert 590 <= refused.value.retry_after_s <= 600


def test_a_key_means_one_submission(engine: Engine) -> None:
    first = _store(engine, "same")
    assert _store(engine, "same").id == first.id
    with pytest.raises(IdempotencyConflict):
        with engine.connect() as conn:
            learner_id = conn.execute(select(learners.c.id)).scalar_one()
        store(
            engine, learner_id=learner_id, lesson=8, key="same", answers={"q1": "other"},
            result=RESULT, max_attempts={}, rate_limit=100, window_s=60,
        )  # fmt: skip

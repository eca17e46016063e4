"""Nothing lost: hundreds of concurrent submissions, the server killed with SIGKILL mid-load,
restarted; every acknowledged submission is stored exactly once, and retries never double-count.

Bounded: 240 submissions from 16 threads, to 127.0.0.1 only, each with its own idempotency key.
"""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from grader.service.roster import add_learner
from grader.service.settings import load_settings
from grader.service.storage import attempts, make_engine, submissions
from tests.service.server_process import ServerProcess

SUBMISSIONS = 240
THREADS = 16
LEARNERS = 12
KILL_AFTER_ACKS = 150
ANSWERS = ["112 GB", "12 GB", "1.12e11 B", "104.3 GiB", "28 GB", "84 GB"]


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_sigkill_mid_load_loses_no_acknowledged_submission(
    tmp_path: Path, database_url: str
) -> None:
    data_dir = tmp_path / "data"
    settings = load_settings(env={}, data_dir=data_dir, database_url=database_url)
    engine = make_engine(settings)
    tokens = [add_learner(engine, f"learner-{n:02d}") for n in range(LEARNERS)]
    env = {"COURSE_RATE_LIMIT_ATTEMPTS": "100000", "COURSE_INSTRUCTOR_TOKEN": "t-instructor"}
    server = ServerProcess(data_dir, database_url=database_url, env=env).start()

    plan = [
        (uuid.uuid4().hex, tokens[n % LEARNERS], ANSWERS[n % len(ANSWERS)])
        for n in range(SUBMISSIONS)
    ]
    acked: dict[str, int] = {}  # idempotency key -> submission id the server acknowledged
    lock = threading.Lock()
    killed = threading.Event()
    local = threading.local()

    def send(url: str, key: str, token: str, answer: str) -> httpx.Response:
        if not hasattr(local, "client"):
            local.client = httpx.Client(timeout=30)
        return local.client.post(
            f"{url}/api/lessons/8/submissions",
            json={"answers": {"l08-practice-7b-states": answer}},
            headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key},
        )

    def first_try(item: tuple[str, str, str]) -> None:
        key, token, answer = item
        if killed.is_set():
            return
        try:
            response = send(server.url, key, token, answer)
        except httpx.HTTPError:
            return  # never acknowledged: the client would retry with the same key
        assert response.status_code == 201, response.text
        with lock:
            acked[key] = response.json()["submission_id"]
            if len(acked) >= KILL_AFTER_ACKS and not killed.is_set():
                server.kill()
                killed.set()

    try:
        with ThreadPoolExecutor(THREADS) as pool:
            list(pool.map(first_try, plan))
        assert killed.is_set(), "the load finished before the kill: raise SUBMISSIONS"
        assert KILL_AFTER_ACKS <= len(acked) < SUBMISSIONS

        # After the crash, straight from the database: every acknowledged key exactly once.
        with engine.connect() as conn:
            stored = dict(
                conn.execute(select(submissions.c.idempotency_key, submissions.c.id)).all()
            )
            per_key = conn.execute(
                select(submissions.c.idempotency_key, func.count())
                .group_by(submissions.c.idempotency_key)
                .having(func.count() > 1)
            ).all()
        assert per_key == []
        missing = [k for k in acked if k not in stored]
        assert missing == [], f"{len(missing)} acknowledged submissions lost"
        assert all(stored[k] == acked[k] for k in acked)

        # Restart; clients retry everything (acknowledged or not) with the same keys.
        server = ServerProcess(data_dir, database_url=database_url, env=env, port=server.port)
        server.start()
        local.__dict__.clear()
        retried: dict[str, httpx.Response] = {}

        def retry(item: tuple[str, str, str]) -> None:
            retried[item[0]] = send(server.url, *item)

        with ThreadPoolExecutor(THREADS) as pool:
            list(pool.map(retry, plan))
        for key, submission_id in acked.items():
            assert retried[key].status_code == 200 and retried[key].json()["replayed"]
            assert retried[key].json()["submission_id"] == submission_id
        assert all(r.status_code in (200, 201) for r in retried.values())
        with engine.connect() as conn:
            assert (
                conn.execute(select(func.count()).select_from(submissions)).scalar() == SUBMISSIONS
            )
            assert conn.execute(select(func.count()).select_from(attempts)).scalar() == SUBMISSIONS
        gradebook = httpx.get(
            f"{server.url}/api/instructor/gradebook",
            headers={"Authorization": "Bearer t-instructor"},
        ).json()
        assert sum(row["attempts"] for row in gradebook) == SUBMISSIONS
    finally:
        server.stop()
        engine.dispose()

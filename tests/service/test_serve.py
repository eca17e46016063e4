"""`python -m grader serve`: one address for the site and the API; first-start instructor token;
two instances on one PostgreSQL behave as one service (the scale-out setup of the README)."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import httpx
import pytest

from grader.service.roster import add_learner
from grader.service.settings import load_settings
from grader.service.storage import make_engine
from tests.service.postgres_server import fresh_postgres_database
from tests.service.server_process import ServerProcess

TOKEN_LINE = re.compile(r"^\s+(crsi_\S+)$", re.MULTILINE)


def test_one_address_serves_site_and_api_and_prints_a_first_instructor_token(
    tmp_path: Path, built_site: Path
) -> None:
    data = tmp_path / "data"
    server = ServerProcess(data, site_dir=built_site).start()
    try:
        home = httpx.get(server.url + "/")
        assert home.status_code == 200 and "text/html" in home.headers["content-type"]
        lesson = httpx.get(server.url + "/stage-4/lesson-08/")
        assert lesson.status_code == 200 and 'class="exercise-answer"' in lesson.text
        assert "practice.js" in lesson.text
        assert httpx.get(server.url + "/api/openapi.json").json()["info"]["title"]
        assert httpx.get(server.url + "/api/nope").headers["content-type"] == "application/json"
        assert httpx.get(server.url + "/no-such-page/").status_code == 404
        tokens = TOKEN_LINE.findall(server.output)
        assert len(tokens) == 1, server.output
        book = httpx.get(
            server.url + "/api/instructor/gradebook",
            headers={"Authorization": f"Bearer {tokens[0]}"},
        )
        assert book.status_code == 200 and book.json() == []
    finally:
        server.stop()
    again = ServerProcess(data, site_dir=built_site, port=server.port).start()
    again.stop()
    assert len(TOKEN_LINE.findall(again.output)) == 1  # the same log: no second token printed


def test_two_instances_on_one_postgresql(tmp_path: Path, postgres_base_url: str) -> None:
    url = fresh_postgres_database(postgres_base_url)
    engine = make_engine(load_settings(env={}, database_url=url))
    token = add_learner(engine, "ada")
    auth = {"Authorization": f"Bearer {token}"}
    a = ServerProcess(tmp_path / "a", database_url=url).start()
    b = ServerProcess(tmp_path / "b", database_url=url).start()
    try:
        # The same submission (same key) sent to both instances at once: stored once.
        answers = {"answers": {"l08-practice-7b-states": "112 GB"}}
        replies: list[httpx.Response] = []

        def send(server: ServerProcess) -> None:
            replies.append(
                httpx.post(
                    f"{server.url}/api/lessons/8/submissions",
                    json=answers,
                    headers={**auth, "Idempotency-Key": "twice"},
                    timeout=60,
                )
            )

        threads = [threading.Thread(target=send, args=(s,)) for s in (a, b, a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(r.status_code for r in replies) == [200, 200, 200, 201]
        assert len({r.json()["submission_id"] for r in replies}) == 1
        # What one instance stored, the other serves.
        for server in (a, b):
            mine = httpx.get(f"{server.url}/api/me/results", headers=auth).json()
            assert [r["attempts"] for r in mine["results"]] == [1]
        # One instructor token for the whole service, however many instances started.
        assert len(TOKEN_LINE.findall(a.output + b.output)) == 1
    finally:
        a.stop()
        b.stop()
        engine.dispose()


def test_serve_refuses_a_missing_site_with_a_message(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "data", site_dir=tmp_path / "nothing-built")
    with pytest.raises(RuntimeError, match="index.html not found: build the site"):
        server.start()

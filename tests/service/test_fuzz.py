"""Fuzz every API operation from its OpenAPI document (schemathesis): never a 5xx, never a stack
trace, every error a JSON message, on SQLite and on PostgreSQL. Bounded and deterministic: 40
examples per operation and database, derandomized, no example database.

(Schemathesis's own pytest loader does not run under pytest 9, so the operations are listed here
and a test checks the list against the document: a new endpoint cannot escape the fuzzing.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from grader.service.app import create_app
from grader.service.roster import add_learner
from grader.service.settings import load_settings
from tests.service.postgres_server import fresh_postgres_database

ROOT = Path(__file__).resolve().parents[2]
INSTRUCTOR = "fuzz-instructor"
OPERATIONS = [
    "GET /api/version",
    "GET /api/health",
    "GET /api/me",
    "POST /api/lessons/{lesson}/submissions",
    "GET /api/me/results",
    "GET /api/instructor/gradebook",
    "GET /api/instructor/gradebook.csv",
]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def api(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest):
    database_url = ""
    if request.param == "postgresql":
        database_url = fresh_postgres_database(request.getfixturevalue("postgres_base_url"))
    app = create_app(
        load_settings(
            env={},
            database_url=database_url,
            data_dir=tmp_path_factory.mktemp("fuzz") / "data",
            exercises_dir=ROOT / "exercises",
            instructor_token=INSTRUCTOR,
        )
    )
    token = add_learner(app.state.engine, "fuzzer")
    yield schemathesis.openapi.from_asgi("/api/openapi.json", app), token
    app.state.engine.dispose()


def _messages_not_traces(response) -> None:
    assert response.status_code < 500, response.text
    assert "Traceback" not in response.text and 'File "' not in response.text
    if response.status_code >= 400:
        assert isinstance(response.json().get("detail"), str), response.text


def test_every_operation_is_fuzzed(api) -> None:
    schema, _ = api
    assert sorted(r.ok().label for r in schema.get_all_operations()) == sorted(OPERATIONS)


@pytest.mark.parametrize("label", OPERATIONS)
def test_api_fuzz(api, label: str) -> None:
    schema, learner_token = api
    method, path = label.split(" ", 1)
    operation = schema[path][method]
    token = INSTRUCTOR if "/instructor/" in path else learner_token

    @given(case=operation.as_strategy())
    @settings(
        max_examples=40,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def fuzz(case) -> None:
        response = case.call_and_validate(
            headers={"Authorization": f"Bearer {token}"}, checks=[not_a_server_error]
        )
        _messages_not_traces(response)
        # The same request with a wrong token: a 4xx with a message (or a public answer).
        _messages_not_traces(case.call(headers={"Authorization": "Bearer wrong"}))

    fuzz()

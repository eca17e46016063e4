"""Fixtures of the service tests: a PostgreSQL server, a database per test (SQLite or
PostgreSQL), an app with a learner and the instructor, and a real server process."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.service.settings import Settings, load_settings
from tests.service.postgres_server import PostgresServer, find_bin_dir, fresh_postgres_database
from tests.service.service_client import Service

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = ROOT / "exercises"


@pytest.fixture(scope="session")
def postgres_base_url() -> Iterator[str]:
    """A PostgreSQL server: COURSE_TEST_POSTGRES_URL if set, else a throwaway local one."""
    if os.environ.get("COURSE_TEST_POSTGRES_URL"):
        yield os.environ["COURSE_TEST_POSTGRES_URL"].rstrip("/")
        return
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.fail("PostgreSQL server binaries not found: run `make setup` (Debian postgresql)")
    server = PostgresServer(bin_dir)
    url = server.start()
    try:
        yield url
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture()
def database_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """Empty string for SQLite (the default file under the data directory), else a fresh DB."""
    if backend == "sqlite":
        return ""
    return fresh_postgres_database(request.getfixturevalue("postgres_base_url"))


@pytest.fixture()
def settings(tmp_path: Path, database_url: str) -> Settings:
    return load_settings(
        env={},
        data_dir=tmp_path / "data",
        database_url=database_url,
        exercises_dir=EXERCISES,
        instructor_token="instructor-secret-for-tests",
    )


@pytest.fixture()
def service(settings: Settings) -> Iterator[Service]:
    with warnings.catch_warnings():  # Starlette's notice about httpx vs httpx2: not ours to fix
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from grader.service.app import create_app

    app = create_app(settings)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Service(client, app.state.engine, settings)
    app.state.engine.dispose()

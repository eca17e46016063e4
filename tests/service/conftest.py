"""Fixtures of the service tests: a PostgreSQL server, a database per test (SQLite or
PostgreSQL), an app with a learner and the instructor, and a real server process."""

from __future__ import annotations

import os
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from grader.service.settings import Settings, load_settings
from tests.service.postgres_server import PostgresServer, find_bin_dir

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


def fresh_postgres_database(base_url: str) -> str:
    name = "course_" + uuid.uuid4().hex[:12]
    admin = create_engine(f"{base_url}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return f"{base_url}/{name}"


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


@dataclass
class Service:
    client: object  # fastapi.testclient.TestClient
    engine: object
    settings: Settings

    def learner(self, name: str) -> dict[str, str]:
        from grader.service.roster import add_learner

        return {"Authorization": f"Bearer {add_learner(self.engine, name)}"}

    @property
    def instructor(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.settings.instructor_token}"}


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

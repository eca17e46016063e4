"""Tables and the database engine.

SQLite (the embedded default) runs in WAL mode with ``synchronous=FULL``: a commit returns only
after the write-ahead log reached the disk, so a submission the service acknowledged survives a
crash of the process or the machine. Write transactions start with ``BEGIN IMMEDIATE`` so two
writers queue on the busy timeout instead of failing half-way. PostgreSQL needs nothing special:
its defaults (``fsync=on``, ``synchronous_commit=on``) give the same guarantee.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Connection,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, ProgrammingError

from grader.service.settings import Settings

SQLITE_BUSY_TIMEOUT_MS = 30_000

metadata = MetaData()

learners = Table(
    "learners",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), nullable=False, unique=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("active", Boolean, nullable=False, default=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

instructor_tokens = Table(
    "instructor_tokens",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

submissions = Table(
    "submissions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("learner_id", Integer, ForeignKey("learners.id"), nullable=False),
    Column("lesson", Integer, nullable=False),
    Column("idempotency_key", String(200), nullable=False),
    Column("submitted_at", DateTime(timezone=True), nullable=False),
    Column("answers", JSON, nullable=False),
    Column("result", JSON, nullable=False),
    Column("score", Float, nullable=False),
    Column("max_score", Float, nullable=False),
    Column("grader_version", String(100), nullable=False),
    UniqueConstraint("learner_id", "idempotency_key", name="uq_submission_idempotency"),
)

# One row per question of a submission: what the gradebook and the rate limit count.
attempts = Table(
    "attempts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("submission_id", Integer, ForeignKey("submissions.id"), nullable=False),
    Column("learner_id", Integer, ForeignKey("learners.id"), nullable=False),
    Column("lesson", Integer, nullable=False),
    Column("question", String(200), nullable=False),
    Column("submitted_at", DateTime(timezone=True), nullable=False),
    Column("answer", JSON, nullable=True),
    Column("score", Float, nullable=False),
    Column("max_score", Float, nullable=False),
    Column("status", String(20), nullable=False),
    Column("output", Text, nullable=False),
    Index("ix_attempts_learner_question_time", "learner_id", "question", "submitted_at"),
    Index("ix_attempts_lesson", "lesson"),
)


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def as_utc(value: dt.datetime) -> dt.datetime:
    """SQLite hands back naive datetimes; every stored time is UTC."""
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event below issue BEGIN itself (pysqlite would defer it).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        immediate = connection.get_execution_options().get("sqlite_immediate", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def make_engine(settings: Settings) -> Engine:
    """Create the engine for ``settings`` and the tables if they do not exist yet."""
    url = make_url(settings.resolved_database_url)
    if url.get_backend_name() == "sqlite":
        if url.database and url.database != ":memory:":
            Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})
        _configure_sqlite(engine)
    else:
        engine = create_engine(
            url,
            pool_size=settings.pool_size,
            max_overflow=settings.pool_size,
            pool_pre_ping=True,
        )
    for attempt in range(3):
        try:
            metadata.create_all(engine)
            break
        except (IntegrityError, ProgrammingError):
            # Instances started at the same moment on one PostgreSQL race to create the tables;
            # the loser sees them on the next try.
            if attempt == 2:
                raise
            time.sleep(0.5)
    return engine


_SQLITE_WRITERS = threading.Lock()


@contextlib.contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """A write transaction, committed on exit (rolled back on an exception).

    SQLite: ``BEGIN IMMEDIATE`` takes the database's write lock up front, and threads of this
    process queue on a mutex first: SQLite's own busy handler polls with growing sleeps, which
    under concurrent writers turns a 4 ms commit into second-long stalls. (Other processes on
    the same file still wait on the busy timeout.) PostgreSQL: a plain transaction.
    """
    if engine.dialect.name == "sqlite":
        with _SQLITE_WRITERS, engine.execution_options(sqlite_immediate=True).begin() as conn:
            yield conn
    else:
        with engine.begin() as conn:
            yield conn

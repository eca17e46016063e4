"""``python -m grader roster``: the instructor-managed list of learners and their tokens.

    python -m grader roster add NAME [NAME ...]   add learners, print one token each
    python -m grader roster list                  names, status, date added (never tokens)
    python -m grader roster reissue NAME          new token for NAME (the old one stops working)
    python -m grader roster remove NAME           deactivate NAME (their results are kept)
    python -m grader roster instructor-token      new instructor token (replaces stored ones)

Uses the same settings as ``serve`` (``COURSE_DATABASE_URL``, ``COURSE_DATA_DIR``, ``--settings``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sqlalchemy import Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from grader.service.settings import SettingsError, load_settings
from grader.service.storage import (
    instructor_tokens,
    learners,
    make_engine,
    utcnow,
    write_transaction,
)
from grader.service.tokens import INSTRUCTOR_PREFIX, hash_token, new_token

MAX_NAME = 200


class RosterError(ValueError):
    pass


def _check_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > MAX_NAME or any(ch in name for ch in "\r\n\t\x00"):
        raise RosterError(f"learner name {name!r}: 1 to {MAX_NAME} characters, one line")
    return name


def add_learner(engine: Engine, name: str) -> str:
    """Add a learner; return their token (the only time it is visible)."""
    name = _check_name(name)
    token = new_token()
    try:
        with write_transaction(engine) as conn:
            conn.execute(
                insert(learners).values(
                    name=name, token_hash=hash_token(token), active=True, created_at=utcnow()
                )
            )
    except IntegrityError as exc:
        raise RosterError(f"learner {name!r} already exists (use `roster reissue`)") from exc
    return token


def reissue_token(engine: Engine, name: str) -> str:
    token = new_token()
    with write_transaction(engine) as conn:
        done = conn.execute(
            update(learners)
            .where(learners.c.name == name)
            .values(token_hash=hash_token(token), active=True)
        )
    if done.rowcount != 1:
        raise RosterError(f"no learner named {name!r}")
    return token


def remove_learner(engine: Engine, name: str) -> None:
    with write_transaction(engine) as conn:
        done = conn.execute(update(learners).where(learners.c.name == name).values(active=False))
    if done.rowcount != 1:
        raise RosterError(f"no learner named {name!r}")


def list_learners(engine: Engine) -> list[dict[str, object]]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(learners.c.name, learners.c.active, learners.c.created_at).order_by(
                learners.c.name
            )
        ).all()
    return [{"name": r.name, "active": r.active, "created_at": r.created_at} for r in rows]


def set_instructor_token(engine: Engine, token: str | None = None) -> str:
    """Replace every stored instructor token by ``token`` (a new one if None); return it."""
    token = token or new_token(INSTRUCTOR_PREFIX)
    with write_transaction(engine) as conn:
        conn.execute(delete(instructor_tokens))
        conn.execute(
            insert(instructor_tokens).values(token_hash=hash_token(token), created_at=utcnow())
        )
    return token


def ensure_instructor_token(engine: Engine) -> str | None:
    """Create an instructor token if none is stored; return it then, else None."""
    with engine.connect() as conn:
        if conn.execute(select(instructor_tokens.c.id).limit(1)).first() is not None:
            return None
    token = new_token(INSTRUCTOR_PREFIX)
    try:
        with write_transaction(engine) as conn:
            # Another instance may have won the race between the check and this write.
            if conn.execute(select(instructor_tokens.c.id).limit(1)).first() is not None:
                return None
            conn.execute(
                insert(instructor_tokens).values(token_hash=hash_token(token), created_at=utcnow())
            )
    except IntegrityError:
        return None
    return token


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader roster", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--settings", type=Path, help="TOML settings file (as for serve)")
    parser.add_argument("--data-dir", type=Path, help="data directory (SQLite default)")
    parser.add_argument("--database-url", help="SQLAlchemy database URL")
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="add learners and print their tokens")
    add.add_argument("names", nargs="+")
    sub.add_parser("list", help="list learners")
    reissue = sub.add_parser("reissue", help="give a learner a new token")
    reissue.add_argument("name")
    remove = sub.add_parser("remove", help="deactivate a learner")
    remove.add_argument("name")
    sub.add_parser("instructor-token", help="replace the instructor token and print it")
    args = parser.parse_args(argv)
    try:
        settings = load_settings(
            args.settings, data_dir=args.data_dir, database_url=args.database_url
        )
        engine = make_engine(settings)
        if args.command == "add":
            for name in args.names:
                print(f"{_check_name(name)}\t{add_learner(engine, name)}")
        elif args.command == "list":
            for row in list_learners(engine):
                state = "active" if row["active"] else "removed"
                print(f"{row['name']}\t{state}\t{row['created_at']:%Y-%m-%d}")
        elif args.command == "reissue":
            print(f"{args.name}\t{reissue_token(engine, args.name)}")
        elif args.command == "remove":
            remove_learner(engine, args.name)
            print(f"{args.name}\tremoved (results kept)")
        elif args.command == "instructor-token":
            print(set_instructor_token(engine))
    except (RosterError, SettingsError) as exc:
        print(f"roster: {exc}", file=sys.stderr)
        return 2
    return 0

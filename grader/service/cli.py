"""``python -m grader serve``: the built site at ``/`` and the grading API at ``/api/``.

    python -m grader serve [--host 127.0.0.1] [--port 8000] [--site-dir site]
                           [--data-dir data] [--database-url URL] [--settings FILE]
                           [--workers N] [--access-log]

Settings come from (lowest first) defaults, the TOML file, ``COURSE_*`` variables, these options
(see ``grader/service/settings.py``). On first start without an instructor token one is generated,
its hash stored and the token printed once.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from fastapi import FastAPI

from grader.service.settings import ENV_PREFIX, SettingsError, load_settings


def app_from_environment() -> FastAPI:
    """Factory for uvicorn (one call per worker process): settings from ``COURSE_*``."""
    from grader.service.app import create_app

    return create_app(load_settings())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader serve", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--site-dir", type=Path, help="built site to serve at / (omit: API only)")
    parser.add_argument(
        "--data-dir", type=Path, help="data directory (SQLite file: course.sqlite3)"
    )
    parser.add_argument("--database-url", help="SQLAlchemy URL, e.g. postgresql+psycopg://...")
    parser.add_argument("--exercises-dir", type=Path, help="exercise files (default ./exercises)")
    parser.add_argument("--settings", type=Path, help="TOML settings file")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--access-log", action="store_true", help="log every request")
    args = parser.parse_args(argv)

    overrides = {
        "site_dir": args.site_dir,
        "data_dir": args.data_dir,
        "database_url": args.database_url,
        "exercises_dir": args.exercises_dir,
    }
    try:
        settings = load_settings(args.settings, **overrides)
    except SettingsError as exc:
        print(f"serve: {exc}", file=sys.stderr)
        return 2
    # Worker processes rebuild the settings from the environment: pass everything through it.
    if args.settings is not None:
        os.environ[ENV_PREFIX + "SETTINGS"] = str(args.settings.resolve())
    for name, value in overrides.items():
        if value is not None:
            os.environ[ENV_PREFIX + name.upper()] = (
                str(Path(value).resolve()) if isinstance(value, Path) else value
            )

    import uvicorn

    from grader.service.roster import ensure_instructor_token
    from grader.service.storage import make_engine

    try:
        engine = make_engine(settings)
    except Exception as exc:  # noqa: BLE001 - a clear line for the operator, no stack trace
        print(
            f"serve: cannot open the database {settings.resolved_database_url!r}: {exc}",
            file=sys.stderr,
        )
        return 2
    if not settings.instructor_token:
        token = ensure_instructor_token(engine)
        if token:
            print(
                "serve: no instructor token was set; generated one (shown once, stored hashed):\n"
                f"    {token}\n"
                "  set COURSE_INSTRUCTOR_TOKEN or run `python -m grader roster instructor-token`"
                " to replace it.",
                flush=True,
            )
    engine.dispose()
    if settings.site_dir is not None and not (settings.site_dir / "index.html").is_file():
        print(
            f"serve: {settings.site_dir}/index.html not found: build the site first (make site)",
            file=sys.stderr,
        )
        return 2
    where = f"http://{args.host}:{args.port}"
    print(
        f"serve: site {where}/  API {where}/api/ (docs {where}/api/docs)"
        f"  database {engine.dialect.name}",
        flush=True,
    )
    uvicorn.run(
        "grader.service.cli:app_from_environment",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        access_log=args.access_log,
        log_level="warning",
    )
    return 0

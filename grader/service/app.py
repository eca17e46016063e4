"""The application: the API under ``/api``, error answers without stack traces, the built site."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy import Engine
from sqlalchemy.exc import DataError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from grader import __version__
from grader.service.api import router
from grader.service.body_limit import BodyLimitMiddleware
from grader.service.grader_client import GraderClient, GradingUnavailable
from grader.service.settings import Settings
from grader.service.storage import make_engine

log = logging.getLogger("grader.service")


def _where(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc) or "request"


async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    for error in errors:
        if error.get("type") == "json_invalid":
            reason = (error.get("ctx") or {}).get("error", "not JSON")
            return JSONResponse(
                {"detail": f"the request body is not valid JSON: {reason}"}, status_code=400
            )
    messages = [f"{_where(e.get('loc', ()))}: {e.get('msg', 'invalid')}" for e in errors[:10]]
    return JSONResponse(
        {
            "detail": "; ".join(messages),
            "errors": [
                {"loc": list(e.get("loc", ())), "msg": e.get("msg", "")} for e in errors[:10]
            ],
        },
        status_code=422,
    )


async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
    return JSONResponse(
        {"detail": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers
    )


async def _database_unavailable(_: Request, exc: OperationalError) -> JSONResponse:
    incident = uuid.uuid4().hex[:12]
    log.error("database error (incident %s): %s", incident, exc)
    return JSONResponse(
        {"detail": f"the database is unavailable; nothing was stored; retry (incident {incident})"},
        status_code=503,
        headers={"Retry-After": "2"},
    )


async def _unstorable(_: Request, exc: DataError) -> JSONResponse:
    log.warning("refused a value the database cannot store: %s", exc.orig)
    return JSONResponse(
        {"detail": "the submission holds a value the database cannot store (e.g. a NUL character)"},
        status_code=422,
    )


async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
    incident = uuid.uuid4().hex[:12]
    log.exception("unexpected error (incident %s)", incident, exc_info=exc)
    return JSONResponse(
        {"detail": f"internal error: the service logged it as incident {incident}"},
        status_code=500,
    )


def create_app(settings: Settings, engine: Engine | None = None) -> FastAPI:
    """Build the service for ``settings`` (creates the tables if needed)."""
    app = FastAPI(
        title="Course grader",
        version=__version__,
        summary="Grades practice answers and code; stores every attempt; serves the gradebook.",
        openapi_url="/api/openapi.json",
        docs_url="/api/docs",
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.engine = engine or make_engine(settings)
    app.state.grader = GraderClient(settings.exercises_dir, settings.grading_concurrency)
    try:
        app.state.grader.all_questions()  # read the exercise files now, not at the first request
    except GradingUnavailable as exc:
        log.error("the grader cannot grade (submissions get 503 until fixed): %s", exc)
    app.include_router(router, prefix="/api")

    @app.api_route(
        "/api/{path:path}",
        methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
        include_in_schema=False,
    )
    async def _no_such_endpoint(path: str) -> JSONResponse:
        return JSONResponse(
            {"detail": f"no API endpoint /api/{path} (see /api/docs)"}, status_code=404
        )

    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(OperationalError, _database_unavailable)
    app.add_exception_handler(DataError, _unstorable)
    app.add_exception_handler(Exception, _unexpected)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    if settings.site_dir is not None:
        site = Path(settings.site_dir)
        if not (site / "index.html").is_file():
            raise FileNotFoundError(f"{site}/index.html not found: build the site (make site)")
        app.mount("/", StaticFiles(directory=site, html=True), name="site")
    return app

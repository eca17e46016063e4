"""The routes under ``/api``.

Learner routes act on the caller's own data only (``/me``): no route takes a learner's name or id,
so a learner token can never reach another learner's results. Instructor routes need the
instructor token.
"""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Header, HTTPException, Path, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, PlainTextResponse
from sqlalchemy import text

from grader import __version__
from grader.service import results as results_store
from grader.service import submissions as submission_store
from grader.service.attempt_limits import AttemptsUsedUp, RateLimited
from grader.service.auth import InstructorDep, LearnerDep
from grader.service.grader_client import (
    GraderClient,
    GradingUnavailable,
    UnknownLesson,
    UnusableSubmission,
)
from grader.service.schemas import (
    GradebookRow,
    Health,
    LearnerResults,
    Me,
    Problem,
    RateLimitProblem,
    SubmissionIn,
    SubmissionOut,
    Version,
)

router = APIRouter()

LessonPath = Annotated[int, Path(ge=1, le=999, description="Lesson number, e.g. 8")]
LessonQuery = Annotated[int | None, Query(ge=1, le=999, description="Only this lesson")]
IdempotencyKey = Annotated[
    str | None,
    Header(
        min_length=1,
        max_length=200,
        description="A key the client chose for this submission (e.g. a UUID). A retry with the "
        "same key returns the stored result and is never counted twice.",
    ),
]

AUTH_ERRORS = {401: {"model": Problem, "description": "Missing or unknown token"}}


def _client(request: Request) -> GraderClient:
    return request.app.state.grader


@router.get("/version", response_model=Version, summary="Service version and graded lessons")
def version(request: Request) -> Version:
    return Version(service=__version__, lessons=_client(request).lessons)


@router.get("/health", response_model=Health, summary="Liveness, including the database")
def health(request: Request) -> Health:
    engine = request.app.state.engine
    with engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    return Health(status="ok", database=engine.dialect.name)


@router.get("/me", response_model=Me, responses=AUTH_ERRORS, summary="Who this token belongs to")
def me(learner: LearnerDep) -> Me:
    return Me(learner=learner.name)


@router.post(
    "/lessons/{lesson}/submissions",
    response_model=SubmissionOut,
    status_code=201,
    summary="Submit answers for a lesson; get per-question results",
    responses={
        200: {"model": SubmissionOut, "description": "Replay: this key was already stored"},
        **AUTH_ERRORS,
        404: {"model": Problem, "description": "No exercises for this lesson"},
        409: {"model": Problem, "description": "Attempts used up, or key reused for new answers"},
        413: {"model": Problem, "description": "Body over the size limit"},
        422: {"model": Problem, "description": "Unusable submission"},
        429: {"model": RateLimitProblem, "description": "Rate limit (stated in the answer)"},
        503: {"model": Problem, "description": "The grader cannot grade now; nothing stored"},
    },
)
async def submit(
    request: Request,
    response: Response,
    learner: LearnerDep,
    lesson: LessonPath,
    body: SubmissionIn,
    idempotency_key: IdempotencyKey = None,
) -> SubmissionOut | JSONResponse:
    client = _client(request)
    settings = request.app.state.settings
    engine = request.app.state.engine
    key = idempotency_key or f"server-{uuid.uuid4()}"
    answers = body.model_dump()["answers"]
    try:
        questions = await run_in_threadpool(client.check_questions, lesson, answers)
    except UnknownLesson as exc:
        raise HTTPException(404, str(exc)) from exc
    except UnusableSubmission as exc:
        raise HTTPException(422, str(exc)) from exc
    except GradingUnavailable as exc:
        raise HTTPException(503, f"the grader cannot grade now: {exc}") from exc
    try:
        stored = await run_in_threadpool(
            submission_store.find_replay, engine, learner.id, key, lesson, answers
        )
        if stored is None:
            result = await run_in_threadpool(client.grade, learner.name, lesson, answers)
            stored = await run_in_threadpool(
                lambda: submission_store.store(
                    engine,
                    learner_id=learner.id,
                    lesson=lesson,
                    key=key,
                    answers=answers,
                    result=result,
                    max_attempts={q.id: q.max_attempts for q in questions.values()},
                    rate_limit=settings.rate_limit_attempts,
                    window_s=settings.rate_limit_window_s,
                )
            )
    except UnusableSubmission as exc:
        raise HTTPException(422, str(exc)) from exc
    except GradingUnavailable as exc:
        raise HTTPException(503, f"the grader cannot grade now; nothing was stored: {exc}") from exc
    except submission_store.IdempotencyConflict as exc:
        raise HTTPException(409, str(exc)) from exc
    except AttemptsUsedUp as exc:
        raise HTTPException(409, exc.message) from exc
    except RateLimited as exc:
        return JSONResponse(
            RateLimitProblem(
                detail=exc.message,
                question=exc.question,
                limit=exc.limit,
                window_seconds=exc.window_s,
                retry_after_seconds=exc.retry_after_s,
            ).model_dump(),
            status_code=429,
            headers={
                "Retry-After": str(exc.retry_after_s),
                "RateLimit-Policy": f"{exc.limit};w={exc.window_s}",
            },
        )
    if stored.replayed:
        response.status_code = 200
    return SubmissionOut(
        submission_id=stored.id,
        lesson=stored.lesson,
        submitted_at=stored.submitted_at,
        replayed=stored.replayed,
        result=stored.result,
    )


@router.get(
    "/me/results",
    response_model=LearnerResults,
    responses=AUTH_ERRORS,
    summary="My past results: per question, attempts, best score and last feedback",
)
def my_results(request: Request, learner: LearnerDep, lesson: LessonQuery = None) -> LearnerResults:
    rows = results_store.learner_results(request.app.state.engine, learner.id, lesson)
    return LearnerResults(learner=learner.name, results=rows)


INSTRUCTOR_ERRORS = {**AUTH_ERRORS, 403: {"model": Problem, "description": "Not the instructor"}}


@router.get(
    "/instructor/gradebook",
    response_model=list[GradebookRow],
    responses=INSTRUCTOR_ERRORS,
    summary="Gradebook (JSON): learner, lesson, question, best score, attempts, last submission",
)
def gradebook_json(
    request: Request, _: InstructorDep, lesson: LessonQuery = None
) -> list[GradebookRow]:
    return [
        GradebookRow(**row) for row in results_store.gradebook(request.app.state.engine, lesson)
    ]


@router.get(
    "/instructor/gradebook.csv",
    response_class=PlainTextResponse,
    responses={**INSTRUCTOR_ERRORS, 200: {"content": {"text/csv": {}}, "description": "CSV"}},
    summary="Gradebook (CSV, one row per learner and question)",
)
def gradebook_csv(request: Request, _: InstructorDep, lesson: LessonQuery = None) -> Response:
    rows = results_store.gradebook(request.app.state.engine, lesson)
    return Response(
        results_store.gradebook_csv(rows),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="gradebook.csv"'},
    )

"""Request and response models: they make the OpenAPI document at ``/api/openapi.json``."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

QuestionId = Annotated[str, StringConstraints(min_length=1, max_length=200)]
ShortText = Annotated[str, StringConstraints(max_length=100_000)]
# An answer as the grader takes it: text ("112 GB", code), a number, a list of choice ids
# (single or multiple choice), or a mapping left id -> right id (matching).
Answer = (
    ShortText
    | float
    | list[Annotated[str, StringConstraints(max_length=200)]]
    | dict[
        Annotated[str, StringConstraints(max_length=200)],
        Annotated[str, StringConstraints(max_length=200)],
    ]
)


class SubmissionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answers: Annotated[dict[QuestionId, Answer], Field(max_length=100)] = Field(
        description="Question id -> answer. Send only the questions you want graded.",
        examples=[{"l08-practice-7b-states": "112 GB", "l08-practice-why-dp-fails": ["b"]}],
    )


class TestResult(BaseModel):
    """One question's result, as the grader produced it (Gradescope ``results.json`` test)."""

    model_config = ConfigDict(extra="allow")
    name: str
    score: float
    max_score: float
    status: str
    output: str = ""


class GradeResult(BaseModel):
    """The grader's answer (Gradescope ``results.json`` shape)."""

    model_config = ConfigDict(extra="allow")
    score: float
    max_score: float
    tests: list[TestResult]
    output: str = ""


class SubmissionOut(BaseModel):
    submission_id: int
    lesson: int
    submitted_at: dt.datetime
    replayed: bool = Field(description="True when this key was already stored: nothing was counted")
    result: GradeResult


class QuestionResult(BaseModel):
    question: str
    lesson: int
    attempts: int
    best_score: float
    max_score: float
    last_score: float
    last_status: str
    last_output: str
    last_answer: Any = None
    last_submission_at: dt.datetime


class LearnerResults(BaseModel):
    learner: str
    results: list[QuestionResult]


class GradebookRow(BaseModel):
    learner: str
    lesson: int
    question: str
    best_score: float
    max_score: float
    attempts: int
    last_submission_at: dt.datetime


class Me(BaseModel):
    learner: str


class Health(BaseModel):
    status: str
    database: str


class Version(BaseModel):
    service: str
    lessons: list[int]


class Problem(BaseModel):
    """Every error answer: a message for a person, never a stack trace."""

    detail: str


class RateLimitProblem(Problem):
    question: str
    limit: int = Field(description="Attempts allowed per learner and question in the window")
    window_seconds: int
    retry_after_seconds: int

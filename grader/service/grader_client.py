"""The one place where the service calls the grader (``grader.grading``).

``grader.grading.grade`` checks a submission's shape here, then hands it to the grader's warm
parent process, which forks a child per submission; submitted code runs only in the grader's
sandbox processes started by that child, never in the service's process, and only JSON comes back.
Around it the service adds: which lessons and questions exist (the grader's catalogue, reloaded
when an exercise file changes), a bound on code submissions graded at once, and a size cap on
feedback text before it is stored.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.exercises.loader import default_exercises_dir

MAX_OUTPUT_CHARS = 20_000


class UnknownLesson(LookupError):
    pass


class UnusableSubmission(ValueError):
    """The grader refused the submission (``SubmissionError``): a 4xx with its message."""


class GradingUnavailable(RuntimeError):
    """The grader itself cannot grade now (``GraderUnavailable``): a 503, nothing stored."""


@dataclass(frozen=True)
class Question:
    id: str
    lesson: int
    kind: str
    max_attempts: int | None


class GraderClient:
    def __init__(self, exercises_dir: Path | None, code_concurrency: int) -> None:
        self.exercises_dir = Path(exercises_dir or default_exercises_dir()).resolve()
        self._code_slots = threading.BoundedSemaphore(code_concurrency)

    def all_questions(self) -> dict[str, Question]:
        from grader.grading import GraderUnavailable, catalogue

        try:
            exercises, _digest = catalogue(self.exercises_dir)
        except GraderUnavailable as exc:
            raise GradingUnavailable(str(exc)) from exc
        return {
            qid: Question(qid, ex.lesson, ex.kind, ex.data.get("max_attempts"))
            for qid, ex in exercises.items()
        }

    @property
    def lessons(self) -> list[int]:
        return sorted({q.lesson for q in self.all_questions().values()})

    def check_questions(self, lesson: int, answers: dict[str, Any]) -> dict[str, Question]:
        """The questions answered, all of ``lesson``; ``UnknownLesson``/``UnusableSubmission``."""
        questions = {q.id: q for q in self.all_questions().values() if q.lesson == lesson}
        if not questions:
            known = ", ".join(map(str, self.lessons)) or "none"
            raise UnknownLesson(
                f"no exercises for lesson {lesson} (lessons with exercises: {known})"
            )
        if not answers:
            raise UnusableSubmission("no answers: send at least one question's answer")
        unknown = sorted(set(answers) - set(questions))
        if unknown:
            raise UnusableSubmission(
                f"lesson {lesson} has no question {', '.join(map(repr, unknown))} "
                f"(its questions: {', '.join(sorted(questions))})"
            )
        return {qid: questions[qid] for qid in answers}

    def grade(self, learner: str, lesson: int, answers: dict[str, Any]) -> dict[str, Any]:
        """Grade (blocking: call it from a worker thread)."""
        from grader.grading import GraderUnavailable, SubmissionError, grade

        asked = self.check_questions(lesson, answers)
        submission = {"learner": learner, "lesson": lesson, "answers": answers}
        slots = self._code_slots if any(q.kind == "code" for q in asked.values()) else None
        try:
            if slots is not None:
                with slots:
                    result = grade(submission, exercises_dir=self.exercises_dir)
            else:
                result = grade(submission, exercises_dir=self.exercises_dir)
        except SubmissionError as exc:
            raise UnusableSubmission(str(exc)) from exc
        except GraderUnavailable as exc:
            raise GradingUnavailable(str(exc)) from exc
        return _capped(result)


def _cap(text: Any) -> Any:
    if isinstance(text, str) and len(text) > MAX_OUTPUT_CHARS:
        return text[:MAX_OUTPUT_CHARS] + "\n… (output truncated)"
    return text


def _capped(result: dict[str, Any]) -> dict[str, Any]:
    """Cap feedback text so one runaway output cannot bloat the database."""
    for test in result.get("tests", []):
        test["output"] = _cap(test.get("output", ""))
    result["output"] = _cap(result.get("output", ""))
    return result

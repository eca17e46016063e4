"""The one place where the service calls the grader (``grader.grading.grade``).

The grader is stateless and grades answers by comparison; submitted code never runs in this
process: ``grade`` runs it in the grader's sandbox (a separate, limited process) and only JSON
comes back. Here we add what a service needs around it: which lessons and questions exist, a
bound on how many code submissions are graded at once, and a size cap on feedback text.
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.exercises.public import load_public

MAX_OUTPUT_CHARS = 20_000
_LESSON_DIR = re.compile(r"^lesson-(\d+)$")


class UnknownLesson(LookupError):
    pass


class UnusableSubmission(ValueError):
    """The grader refused the submission (``SubmissionError``): a 4xx with its message."""


@dataclass(frozen=True)
class Question:
    id: str
    kind: str
    max_attempts: int | None


def default_exercises_dir() -> Path:
    """``exercises/`` of the source tree (editable install), else of the working directory."""
    source_tree = Path(__file__).resolve().parents[2] / "exercises"
    return source_tree if source_tree.is_dir() else Path("exercises").resolve()


class GraderClient:
    def __init__(self, exercises_dir: Path | None, code_concurrency: int) -> None:
        self.exercises_dir = (exercises_dir or default_exercises_dir()).resolve()
        self._code_slots = threading.BoundedSemaphore(code_concurrency)

    @functools.cached_property
    def lessons(self) -> dict[int, dict[str, Question]]:
        """Every lesson that has exercise files, with its questions (read once per process)."""
        found: dict[int, dict[str, Question]] = {}
        if not self.exercises_dir.is_dir():
            return found
        for folder in sorted(self.exercises_dir.iterdir()):
            match = _LESSON_DIR.match(folder.name)
            if not match or not folder.is_dir():
                continue
            questions: dict[str, Question] = {}
            for path in sorted(folder.glob("*.yaml")):
                view = load_public(path)
                questions[str(view["id"])] = Question(
                    id=str(view["id"]),
                    kind=str(view.get("kind", "")),
                    max_attempts=view.get("max_attempts"),
                )
            found[int(match.group(1))] = questions
        return found

    def questions(self, lesson: int) -> dict[str, Question]:
        if lesson not in self.lessons:
            known = ", ".join(str(n) for n in sorted(self.lessons)) or "none"
            raise UnknownLesson(
                f"no exercises for lesson {lesson} (lessons with exercises: {known})"
            )
        return self.lessons[lesson]

    def check_questions(self, lesson: int, answers: dict[str, Any]) -> dict[str, Question]:
        questions = self.questions(lesson)
        unknown = sorted(set(answers) - set(questions))
        if unknown:
            raise UnusableSubmission(
                f"lesson {lesson} has no question {', '.join(map(repr, unknown))} "
                f"(its questions: {', '.join(sorted(questions))})"
            )
        if not answers:
            raise UnusableSubmission("no answers: send at least one question's answer")
        return {qid: questions[qid] for qid in answers}

    def grade(self, learner: str, lesson: int, answers: dict[str, Any]) -> dict[str, Any]:
        """Grade (blocking: call it from a worker thread). Raises ``UnusableSubmission``."""
        from grader.grading import SubmissionError, grade

        asked = self.check_questions(lesson, answers)
        submission = {"learner": learner, "lesson": lesson, "answers": answers}
        has_code = any(q.kind == "code" for q in asked.values())
        try:
            if has_code:
                with self._code_slots:
                    result = grade(submission, exercises_dir=self.exercises_dir)
            else:
                result = grade(submission, exercises_dir=self.exercises_dir)
        except SubmissionError as exc:
            raise UnusableSubmission(str(exc)) from exc
        return _capped(result)


def _capped(result: dict[str, Any]) -> dict[str, Any]:
    """Cap feedback text so one runaway output cannot bloat the database."""
    for test in result.get("tests", []):
        output = test.get("output")
        if isinstance(output, str) and len(output) > MAX_OUTPUT_CHARS:
            test["output"] = output[:MAX_OUTPUT_CHARS] + "\n… (output truncated)"
    output = result.get("output")
    if isinstance(output, str) and len(output) > MAX_OUTPUT_CHARS:
        result["output"] = output[:MAX_OUTPUT_CHARS] + "\n… (output truncated)"
    return result

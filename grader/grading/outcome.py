"""The result of grading one answer: a score out of the exercise's points and feedback text."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Outcome:
    """Score and feedback for one exercise; ``passed`` is what Gradescope calls the status."""

    score: float
    max_score: float
    feedback: str
    passed: bool | None = None
    mistake: str | None = None  # the name of a recognised known mistake
    details: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.score = max(0.0, min(float(self.score), float(self.max_score)))
        if self.passed is None:
            self.passed = self.score >= self.max_score

    @property
    def status(self) -> str:
        return "passed" if self.passed else "failed"

    @property
    def text(self) -> str:
        return "\n".join([self.feedback, *self.details]).strip()


class AnswerProblem(ValueError):
    """An answer that cannot be read (no unit, not a number): the message is for the learner."""

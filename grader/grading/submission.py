"""Check a submission's shape before anything is graded: learner, lesson, answers by question id.

Structural problems (not a mapping, unknown question ids, an answer of the wrong type for its
kind, NaN/inf numbers, a 10 MB string, a choice id that does not exist) raise
:class:`SubmissionError` with a message naming the question. An answer of the right type that is
merely wrong or unreadable (``"112"`` without a unit, ``"abc"`` for a number) is graded: the
learner gets feedback on that question and the others are still scored.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Any

from grader.exercises.loader import Exercise

from .errors import SubmissionError

MAX_LEARNER = 200
MAX_ANSWERS = 200
#: Hard limits on one answer's text, in characters; longer is refused outright. Softer limits
#: (a short answer of a few words) give feedback on the question instead.
MAX_CHARS = {"code": 100_000, "reflection": 20_000}
MAX_CHARS_DEFAULT = 2_000


@dataclass(frozen=True)
class Submission:
    learner: str
    lesson: int
    answers: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"learner": self.learner, "lesson": self.lesson, "answers": self.answers}


def _type_name(value: Any) -> str:
    return {
        dict: "a mapping",
        list: "a list",
        str: "text",
        bool: "true/false",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _check_text(qid: str, kind: str, value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise SubmissionError(f"answer to {qid!r} ({kind}) must be {what}, got {_type_name(value)}")
    limit = MAX_CHARS.get(kind, MAX_CHARS_DEFAULT)
    if len(value) > limit:
        raise SubmissionError(
            f"answer to {qid!r} ({kind}) is {len(value):,} characters; the limit is {limit:,}"
        )
    if "\x00" in value:
        raise SubmissionError(f"answer to {qid!r} contains a NUL character")
    return value


def _choice_ids(ex: Exercise, field: str = "choices") -> list[str]:
    return [item["id"] for item in ex.data[field]]


def _check_choice(qid: str, ex: Exercise, value: Any, field: str = "choices") -> str:
    ids = _choice_ids(ex, field)
    if not isinstance(value, str):
        raise SubmissionError(
            f"answer to {qid!r}: expected a choice id ({', '.join(ids)}), got {_type_name(value)}"
        )
    if value not in ids:
        raise SubmissionError(f"answer to {qid!r}: {value[:40]!r} is not one of {', '.join(ids)}")
    return value


def check_answer(qid: str, ex: Exercise, value: Any) -> Any:
    """The answer, normalised (a single choice given as ``["b"]`` becomes ``"b"``), or raise."""
    kind = ex.kind
    if kind == "numeric":
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise SubmissionError(
                f"answer to {qid!r} (numeric) must be a number or text such as '112 GB', "
                f"got {_type_name(value)}"
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise SubmissionError(f"answer to {qid!r} (numeric) is {value!r}, not a finite number")
        if isinstance(value, int) and abs(value) > 10**30:
            raise SubmissionError(f"answer to {qid!r} (numeric) is out of range")
        return _check_text(qid, kind, value, "text") if isinstance(value, str) else value
    if kind == "single_choice":
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        return _check_choice(qid, ex, value)
    if kind == "multiple_select":
        if not isinstance(value, list):
            raise SubmissionError(
                f"answer to {qid!r} (multiple select) must be a list of choice "
                f"ids, got {_type_name(value)}"
            )
        if len(value) > len(ex.data["choices"]):
            raise SubmissionError(
                f"answer to {qid!r}: {len(value):,} choices listed; there are "
                f"only {len(ex.data['choices'])}"
            )
        chosen = [_check_choice(qid, ex, v) for v in value]
        if len(set(chosen)) != len(chosen):
            raise SubmissionError(f"answer to {qid!r}: a choice is listed twice")
        return chosen
    if kind == "matching":
        if not isinstance(value, dict):
            raise SubmissionError(
                f"answer to {qid!r} (matching) must be a mapping left id -> "
                f"right id, got {_type_name(value)}"
            )
        left = _choice_ids(ex, "left")
        if len(value) > len(left):
            raise SubmissionError(
                f"answer to {qid!r}: {len(value):,} pairs; there are only "
                f"{len(left)} items to match"
            )
        for left_id, right_id in value.items():
            if left_id not in left:
                raise SubmissionError(
                    f"answer to {qid!r}: {str(left_id)[:40]!r} is not one of {', '.join(left)}"
                )
            _check_choice(qid, ex, right_id, "right")
        return dict(value)
    what = "Python source code" if kind == "code" else "text"
    return _check_text(qid, kind, value, what)


def check_submission(raw: Any, exercises: dict[str, Exercise]) -> Submission:
    """Validate ``raw`` (parsed JSON/YAML) against the known exercises."""
    if not isinstance(raw, dict):
        raise SubmissionError(
            f"a submission must be a mapping with learner, lesson and answers; "
            f"got {_type_name(raw)}"
        )
    unknown = sorted(set(raw) - {"learner", "lesson", "answers"})
    if unknown:
        raise SubmissionError(f"unknown field(s) in the submission: {', '.join(map(str, unknown))}")
    learner = raw.get("learner")
    if not isinstance(learner, str) or not learner.strip() or len(learner) > MAX_LEARNER:
        raise SubmissionError(
            f"'learner' must be a non-empty id of at most {MAX_LEARNER} characters"
        )
    lesson = raw.get("lesson")
    if isinstance(lesson, bool) or not isinstance(lesson, int):
        raise SubmissionError(f"'lesson' must be a lesson number, got {_type_name(lesson)}")
    answers = raw.get("answers")
    if not isinstance(answers, dict) or not answers:
        raise SubmissionError("'answers' must be a non-empty mapping: question id -> answer")
    if len(answers) > MAX_ANSWERS:
        raise SubmissionError(f"too many answers ({len(answers)}); at most {MAX_ANSWERS}")
    lessons = {ex.lesson for ex in exercises.values()}
    if lesson not in lessons:
        raise SubmissionError(
            f"no exercises for lesson {lesson} "
            f"(lessons with exercises: {', '.join(map(str, sorted(lessons)))})"
        )
    checked: dict[str, Any] = {}
    for qid, value in answers.items():
        if not isinstance(qid, str) or qid not in exercises:
            close = difflib.get_close_matches(str(qid), list(exercises), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise SubmissionError(f"unknown question id {str(qid)[:80]!r}{hint}")
        ex = exercises[qid]
        if ex.lesson != lesson:
            raise SubmissionError(f"question {qid!r} belongs to lesson {ex.lesson}, not {lesson}")
        checked[qid] = check_answer(qid, ex, value)
    return Submission(learner.strip(), lesson, checked)

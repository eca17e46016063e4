"""Unusable submissions raise SubmissionError with a message that names the question."""

from __future__ import annotations

import math

import pytest

from grader.grading import SubmissionError
from grader.grading.submission import check_submission


def sub(answers, lesson=8, learner="ada"):
    return {"learner": learner, "lesson": lesson, "answers": answers}


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ([], "must be a mapping"),
        ({"learner": "a", "lesson": 8}, "'answers' must be a non-empty mapping"),
        (sub({}), "'answers' must be a non-empty mapping"),
        (sub({"x": 1}, learner=""), "'learner'"),
        (sub({"x": 1}, lesson="8"), "'lesson' must be a lesson number"),
        (sub({"x": 1}, lesson=True), "'lesson' must be a lesson number"),
        (sub({"l08-practice-7b-states": "1 GB"}, lesson=99), "no exercises for lesson 99"),
        ({**sub({"a": 1}), "score": 10}, "unknown field(s) in the submission: score"),
        (sub({"l08-practice-7b-state": "112 GB"}), "did you mean 'l08-practice-7b-states'"),
        (sub({"l11-warmup-fsdp-stage": "3"}), "'l11-warmup-fsdp-stage' belongs to lesson 11"),
        (sub({"l08-practice-7b-states": [112]}), "'l08-practice-7b-states' (numeric) must be"),
        (sub({"l08-practice-7b-states": math.nan}), "'l08-practice-7b-states' (numeric) is nan"),
        (sub({"l08-practice-7b-states": math.inf}), "not a finite number"),
        (sub({"l08-practice-7b-states": True}), "got true/false"),
        (sub({"l08-practice-7b-states": "1" * 10_000_000}), "10,000,000 characters"),
        (sub({"l08-warmup-allreduce": "x" * 10_000_000}), "'l08-warmup-allreduce' (short_answer)"),
        (sub({"l08-code-model-state-bytes": "#" * 10_000_000}), "the limit is 100,000"),
        (sub({"l08-practice-why-dp-fails": "e"}), "'e' is not one of a, b, c, d"),
        (sub({"l08-practice-why-dp-fails": 2}), "expected a choice id (a, b, c, d)"),
        (sub({"l08-warmup-allreduce": {"a": 1}}), "must be text, got a mapping"),
        (sub({"l08-warmup-allreduce": "a\x00b"}), "NUL"),
    ],
)
def test_unusable_submissions(exercises, raw, words):
    with pytest.raises(SubmissionError) as caught:
        check_submission(raw, exercises)
    assert words in str(caught.value)


@pytest.mark.parametrize(
    ("answers", "words"),
    [
        ({"l11-practice-oom-long-seq": "a"}, "must be a list of choice ids"),
        ({"l11-practice-oom-long-seq": ["a", "a"]}, "listed twice"),
        ({"l11-practice-oom-long-seq": ["z"]}, "'z' is not one of a, b, c, d"),
        ({"l11-practice-zero-r-match": ["partition"]}, "must be a mapping left id -> right id"),
        ({"l11-practice-zero-r-match": {"nope": "replicated"}}, "'nope' is not one of"),
        ({"l11-practice-zero-r-match": {"defrag": "nope"}}, "'nope' is not one of"),
        ({"l11-code-activation-bytes": 42}, "must be Python source code, got int"),
    ],
)
def test_wrong_types_for_each_kind(exercises, answers, words):
    with pytest.raises(SubmissionError, match="answer to 'l11-") as caught:
        check_submission(sub(answers, lesson=11), exercises)
    assert words in str(caught.value)


def test_a_usable_submission_is_normalised(exercises):
    checked = check_submission(
        sub({"l08-practice-why-dp-fails": ["b"], "l08-practice-7b-states": 112e9}), exercises
    )
    assert checked.answers == {"l08-practice-why-dp-fails": "b", "l08-practice-7b-states": 112e9}


HUGE = "x" * 10_000_000


@pytest.mark.parametrize(
    ("lesson", "qid", "answer", "words"),
    [
        (8, "l08-practice-7b-states", HUGE, "10,000,000 characters"),
        (8, "l08-practice-7b-states", {"$gt": ""}, "must be a number or text"),
        (8, "l08-practice-7b-states", 10**400, "out of range"),
        (8, "l08-practice-why-dp-fails", HUGE, "is not one of a, b, c, d"),
        (8, "l08-practice-why-dp-fails", [["b"]], "expected a choice id"),
        (11, "l11-practice-oom-long-seq", ["a"] * 1_000_000, "1,000,000 choices listed"),
        (11, "l11-practice-oom-long-seq", [{"id": "a"}], "expected a choice id"),
        (11, "l11-practice-zero-r-match", {str(i): "x" for i in range(100_000)}, "100,000 pairs"),
        (11, "l11-practice-zero-r-match", {"defrag": ["alloc-fails"]}, "expected a choice id"),
        (8, "l08-warmup-allreduce", ["all-reduce"], "must be text, got a list"),
        (8, "l08-warmup-more-devices", HUGE, "the limit is 20,000"),
        (11, "l11-code-activation-bytes", ["def f(): pass"], "must be Python source code"),
    ],
    ids=[
        "numeric-10MB",
        "numeric-object",
        "numeric-huge-int",
        "choice-10MB",
        "choice-nested",
        "select-million",
        "select-objects",
        "matching-100k",
        "matching-nested",
        "short-list",
        "reflection-10MB",
        "code-list",
    ],
)
def test_hostile_answers_for_every_kind(exercises, lesson, qid, answer, words):
    with pytest.raises(SubmissionError, match=f"answer to '{qid}'") as caught:
        check_submission(sub({qid: answer}, lesson=lesson), exercises)
    assert words in str(caught.value)

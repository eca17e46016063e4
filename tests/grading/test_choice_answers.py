"""Single choice, multiple select, matching, short answer and reflection: right, wrong and
partially right answers with their feedback."""

from __future__ import annotations

from grader.grading.choices import grade_matching, grade_multiple_select, grade_single_choice
from grader.grading.text_answers import grade_reflection, grade_short_answer, normalise


def test_single_choice(exercises):
    exercise = exercises["l08-practice-why-dp-fails"]
    right = grade_single_choice(exercise, "b")
    assert right.passed and right.score == 1 and right.feedback.startswith("Right (b).")
    for wrong in "acd":
        outcome = grade_single_choice(exercise, wrong)
        assert outcome.score == 0 and f"({wrong})" in outcome.feedback
    assert "Bandwidth limits" in grade_single_choice(exercise, "a").feedback
    assert grade_single_choice(exercise, ["b"]).passed


def test_multiple_select_partial_credit(exercises):
    exercise = exercises["l11-practice-oom-long-seq"]  # correct: a, c; 2 points
    assert grade_multiple_select(exercise, ["a", "c"]).score == 2
    half = grade_multiple_select(exercise, ["a"])
    assert half.score == 1 and not half.passed and "1 more option(s) also apply" in half.feedback
    cancelled = grade_multiple_select(exercise, ["a", "b"])
    assert cancelled.score == 0 and "sharding model states does not touch" in cancelled.text
    assert grade_multiple_select(exercise, ["a", "b", "c", "d"]).score == 0
    assert grade_multiple_select(exercise, []).feedback == "No option selected."


def test_multiple_select_all_or_nothing(exercises):
    exercise = exercises["l11-practice-oom-long-seq"]
    strict = type(exercise)(exercise.path, {**exercise.data, "partial_credit": False})
    assert grade_multiple_select(strict, ["a"]).score == 0
    assert grade_multiple_select(strict, ["c", "a"]).score == 2


def test_matching(exercises):
    exercise = exercises["l11-practice-zero-r-match"]
    key = exercise.data["key"]
    assert grade_matching(exercise, dict(key)).score == 3
    swapped = {**key, "buffers": key["defrag"], "defrag": key["buffers"]}
    partial = grade_matching(exercise, swapped)
    assert partial.score == 1 and partial.feedback == "1 of 3 pairs right."
    assert "lifetime" in partial.text  # the defragmentation feedback
    missing = grade_matching(exercise, {"partition": key["partition"]})
    assert missing.score == 1 and "not matched" in missing.text


def test_short_answer_forms_and_near_misses(exercises):
    exercise = exercises["l08-warmup-allreduce"]
    for answer in (
        "all-reduce",
        "All-Reduce",
        "allreduce",
        " all reduce. ",
        "an all-reduce",
        "Ring AllReduce",
    ):
        assert grade_short_answer(exercise, answer).passed, answer
    near = grade_short_answer(exercise, "broadcast")
    assert near.score == 0 and "copies one device's tensor" in near.feedback
    assert "reduces *and* shares" in grade_short_answer(exercise, "reduce").feedback
    other = grade_short_answer(exercise, "gossip")
    assert other.score == 0 and "not one of the accepted" in other.feedback
    assert "characters" in grade_short_answer(exercise, "x" * 500).feedback
    assert grade_short_answer(exercises["l11-warmup-fsdp-stage"], "ZeRO stage 3").passed
    assert "Stage 2 shards" in grade_short_answer(exercises["l11-warmup-fsdp-stage"], "2").feedback


def test_normalise():
    assert normalise("The All-Reduce!") == normalise("allreduce") == "allreduce"
    assert normalise("P_os+g+p") == "pos+g+p"


def test_reflection_shows_the_model_answer(exercises):
    exercise = exercises["l08-warmup-more-devices"]
    answered = grade_reflection(exercise, "No: every device keeps the full copy")
    assert answered.passed and answered.max_score == 0 and "**No.**" in answered.feedback
    short = grade_reflection(exercise, "no")
    assert not short.passed and "at least 3 words" in short.feedback
    assert not grade_reflection(exercise, "word " * 3000).passed

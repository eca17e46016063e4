"""Numeric answers: read as people write them, tolerances, and targeted feedback for known
mistakes (GiB for GB, bits for bytes, fp32 for fp16, optimizer forgotten, wrong ZeRO part,
off by N_d)."""

from __future__ import annotations

import pytest

from grader.exercises.loader import load_exercises
from grader.grading.numeric import grade_numeric


@pytest.fixture(scope="module")
def seven_b(exercises):
    return exercises["l08-practice-7b-states"]


@pytest.fixture(scope="module")
def zero(zero_dir):
    return load_exercises(zero_dir)


@pytest.mark.parametrize(
    "answer",
    [
        "112 GB",
        "1.12e11 bytes",
        "112e9",
        "0.112 TB",
        "112 gigabytes",
        "112GB",
        112e9,
        "1.12 × 10^11 B",
        "110 GB",
        "116 GB",
        "104.3 GiB",
        "about 112 GB",
        "~112 GB",
        "112 GB.",
        "112,000,000,000 bytes",
        "112 000 000 000 B",
        "1.12x10^11 B",
        "112 billion bytes",
        " 112gb",
    ],
)
def test_right_answers_as_people_write_them(seven_b, answer):
    outcome = grade_numeric(seven_b, answer)
    assert outcome.passed and outcome.score == 2, outcome.feedback


@pytest.mark.parametrize(
    ("answer", "mistake", "words"),
    [
        ("104.3 GB", "gib-for-gb", "GiB"),
        ("120.3 GB", "gib-for-gb", "1.074"),
        ("896 GB", "bits-for-bytes", "bits"),
        ("14 GB", "bits-for-bytes", "1/8"),  # also the fp16 parameters alone; bytes/8 named
        ("224 GB", "fp32-for-fp16", "fp32"),
        ("28 GB", "optimizer-forgotten", "optimizer state is missing"),
        ("84 GB", "optimizer-only", "optimizer state alone"),
    ],
)
def test_known_mistakes_get_their_message(seven_b, answer, mistake, words):
    outcome = grade_numeric(seven_b, answer)
    assert outcome.score == 0 and not outcome.passed
    assert outcome.mistake in {mistake, "fp16-parameters-only"}
    assert words in outcome.feedback or outcome.mistake == "fp16-parameters-only"


def test_fp16_parameters_only_is_named(seven_b):
    # 14 GB is both "fp16 parameters only" (named in the file, checked first) and bytes/8
    outcome = grade_numeric(seven_b, "14 GB")
    assert outcome.mistake == "fp16-parameters-only" and "only the fp16 copy" in outcome.feedback


def test_zero_stage_mistakes(zero):
    exercise = zero["l09-practice-zero2"]
    assert grade_numeric(exercise, "16.6 GB").passed
    stage3 = grade_numeric(exercise, "1.875 GB")
    assert (
        stage3.mistake == "wrong-zero-part"
        and "Stage 1 shards only the optimizer" in stage3.feedback
    )
    assert grade_numeric(exercise, "31.4 GB").mistake == "wrong-zero-part"
    off = grade_numeric(exercise, f"{16.640625 * 64} GB")
    assert off.mistake == "off-by-dp" and "N_d" in off.feedback


def test_a_missing_unit_gets_a_specific_message(seven_b):
    outcome = grade_numeric(seven_b, "112")
    assert outcome.score == 0
    assert "'112' has no unit" in outcome.feedback and "'112 GB'" in outcome.feedback
    assert "has no unit" in grade_numeric(seven_b, 112).feedback
    assert "'112 billion' has no unit" in grade_numeric(seven_b, "112 billion").feedback


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        ("nan GB", "not a finite"),
        ("inf", "finite"),
        ("112 Gb", "bits"),
        ("112 GX", "unknown unit"),
        ("lots", "missing number"),
        ("", "missing"),
        ("-112 GB", "negative"),
        ("9" * 300, "characters"),
    ],
)
def test_unreadable_answers_say_why(seven_b, answer, words):
    outcome = grade_numeric(seven_b, answer)
    assert outcome.score == 0 and outcome.feedback.startswith("Could not read the answer")
    assert words in outcome.feedback


def test_wrong_answers_say_too_high_or_low_without_the_key(seven_b):
    high = grade_numeric(seven_b, "150 GB")
    low = grade_numeric(seven_b, "60 GB")
    assert "too high" in high.feedback and "too low" in low.feedback
    assert "112" not in high.feedback + low.feedback


def test_counts_and_the_factor_tolerance(zero):
    exercise = zero["l09-practice-params-fit"]  # key 128e9, within 1.5x
    for answer in ("128B", "100 billion", "1.28e11", "180B", "90B", 128e9):
        assert grade_numeric(exercise, answer).passed, answer
    for answer in ("200B", "80B", "1.28e12"):
        assert not grade_numeric(exercise, answer).passed, answer


def test_absolute_tolerance_and_no_unit_slips(zero):
    exercise = zero["l09-practice-margin"]  # 2000 bytes ± 100, common_mistakes: []
    assert grade_numeric(exercise, "2.05 KB").passed
    wrong = grade_numeric(exercise, "16000 B")  # 8x, but unit slips are switched off here
    assert not wrong.passed and wrong.mistake is None


def test_plain_numbers(scratch):
    scratch(
        9,
        "l09-practice-ratio",
        """
        id: l09-practice-ratio
        lesson: 9
        section: practice
        kind: numeric
        title: Ratio
        prompt: Stage-3 traffic over plain data parallelism?
        unit: number
        points: 1
        key: 3 / 2
        tolerance: {absolute: 0.01}
        explanation: 3Ψ / 2Ψ = 1.5.
        """,
    )
    exercise = load_exercises(scratch.root)["l09-practice-ratio"]
    for answer in ("1.5", "3/2", 1.5, "1.50"):
        assert grade_numeric(exercise, answer).passed, answer
    assert not grade_numeric(exercise, "2").passed
    assert "Could not read" in grade_numeric(exercise, "one and a half").feedback

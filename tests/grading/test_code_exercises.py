"""Code exercises: hidden tests compare the learner's function with the memory model on
hypothesis-generated cases; partial credit per hidden test; targeted messages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.grading import grade
from grader.memory import activations, model_states


def load(source: str, name: str):
    namespace: dict = {}
    exec(compile(source, "<solution>", "exec"), namespace)  # our own reference solution
    return namespace[name]


@settings(max_examples=200, deadline=None)
@given(
    params=st.integers(min_value=1, max_value=10**13),
    dp=st.integers(min_value=1, max_value=100_000),
    zero=st.sampled_from([0, 1, 2, 3]),
)
def test_the_l08_solution_matches_the_memory_model(exercises, params, dp, zero):
    solution = load(exercises["l08-code-model-state-bytes"].data["solution"], "model_state_bytes")
    expected = model_states(params, dp=dp, zero=zero).total
    assert solution(params, dp, zero) == pytest.approx(expected, rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    hidden=st.integers(min_value=1, max_value=10**5),
    layers=st.integers(min_value=1, max_value=512),
    seq=st.integers(min_value=1, max_value=10**6),
    batch=st.integers(min_value=1, max_value=10**4),
)
def test_the_l11_solution_matches_the_memory_model(exercises, hidden, layers, seq, batch):
    solution = load(exercises["l11-code-activation-bytes"].data["solution"], "activation_bytes")
    expected = activations(hidden=hidden, layers=layers, seq=seq, batch=batch).total
    assert solution(hidden, layers, seq, batch) == pytest.approx(expected, rel=1e-12)


def graded(lesson: int, ident: str, source: str) -> dict:
    result = grade({"learner": "t", "lesson": lesson, "answers": {ident: source}})
    (test,) = result["tests"]
    return test


def test_sharding_the_wrong_part_gets_partial_credit_and_a_message():
    # shards the parameters already at stage 2 (stage 3's rule): stages 0, 1 and 3 are right
    source = """
def model_state_bytes(params, dp, zero):
    p, g, o = 2 * params, 2 * params, 12 * params
    if zero >= 1:
        o /= dp
    if zero >= 2:
        g /= dp
        p /= dp
    return p + g + o
"""
    test = graded(8, "l08-code-model-state-bytes", source)
    assert test["status"] == "failed" and 0 < test["score"] < test["max_score"]
    assert (
        "that is stage 3's count: stage 2 shards the optimizer state and gradients"
        in test["output"]
    )
    assert "✓ plain data parallelism" in test["output"]


def test_the_forgotten_optimizer_state_is_named():
    source = (
        "def model_state_bytes(params, dp, zero):\n"
        "    return 4 * params / (dp if zero == 3 else 1)\n"
    )
    test = graded(8, "l08-code-model-state-bytes", source)
    assert (
        test["score"] == 0
        and "the optimizer state (12 bytes per parameter) is missing" in test["output"]
    )


def test_counting_elements_not_bytes_is_named():
    source = (
        "def activation_bytes(hidden, layers, seq, batch):\n"
        "    return 12 * hidden * layers * seq * batch\n"
    )
    test = graded(11, "l11-code-activation-bytes", source)
    assert test["score"] == 0 and "each is stored in fp16, 2 bytes" in test["output"]


def test_a_right_answer_with_floats_and_prints_passes():
    source = """
def activation_bytes(hidden, layers, seq, batch):
    print("computing", hidden)
    return 24.0 * hidden * layers * seq * batch
"""
    test = graded(11, "l11-code-activation-bytes", source)
    assert test["status"] == "passed" and test["score"] == 3
    assert "Your code printed:" in test["output"] and "computing" in test["output"]


def test_an_exception_names_the_line():
    source = "def activation_bytes(hidden, layers, seq, batch):\n    return hidden / 0\n"
    test = graded(11, "l11-code-activation-bytes", source)
    assert (
        test["score"] == 0
        and "ZeroDivisionError: division by zero (line 2 of your code)" in test["output"]
    )

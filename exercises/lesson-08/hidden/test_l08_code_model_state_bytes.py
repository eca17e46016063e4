"""Hidden tests for l08-code-model-state-bytes (server-only; never shipped to the browser).

``submitted`` (a fixture of grader.grading.plugin) calls the learner's function in the sandbox;
only a plain number comes back. Expected values come from the memory model (grader.memory), and
a wrong value that another ZeRO stage, a forgotten optimizer state or a factor N_d would give is
named in the feedback.
"""

from __future__ import annotations

from functools import partial

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from grader.grading.hidden import close, points, property_settings
from grader.memory import model_states

SHARDED = {
    0: "nothing",
    1: "the optimizer state",
    2: "the optimizer state and gradients",
    3: "the optimizer state, gradients and parameters",
}


def known_mistakes(params: int, dp: int, zero: int) -> dict[str, float]:
    """Wrong numbers a learner is likely to produce, each with the message it deserves."""
    right = model_states(params, dp=dp, zero=zero).total
    mistakes: dict[str, float] = {}
    for other in range(4):
        if other != zero:
            wrong = model_states(params, dp=dp, zero=other).total
            mistakes[
                f"that is stage {other}'s count: stage {zero} shards {SHARDED[zero]} across the "
                f"{dp} devices (wrong part sharded)"
            ] = wrong
    if dp > 1:
        mistakes["off by a factor of N_d: check which parts are divided by dp"] = right * dp
        mistakes["off by a factor of N_d: only the sharded parts are divided by dp"] = right / dp
    mistakes[
        "the optimizer state (12 bytes per parameter) is missing: 16, not 4, bytes per "
        "parameter before sharding"
    ] = right * 4 / 16
    mistakes["the fp16 parameters and gradients take 2 bytes each, not 4"] = right * 2
    return mistakes


@points(1)
def test_plain_data_parallelism(submitted):
    """Stage 0: every device holds all 16 bytes per parameter (7B model: 112 GB)."""
    params, dp = 7_000_000_000, 8
    close(
        submitted(params=params, dp=dp, zero=0),
        model_states(params, dp=dp, zero=0).total,
        what="params=7e9, dp=8, zero=0",
        mistakes=partial(known_mistakes, params, dp, 0),
    )


@points(1)
@pytest.mark.parametrize("zero", [1, 2, 3])
def test_zero_paper_example(submitted, zero):
    """ZeRO paper, Figure 1: Ψ = 7.5B, N_d = 64 -> 31.4 GB, 16.6 GB, 1.9 GB."""
    params, dp = 7_500_000_000, 64
    close(
        submitted(params=params, dp=dp, zero=zero),
        model_states(params, dp=dp, zero=zero).total,
        what=f"params=7.5e9, dp=64, zero={zero}",
        mistakes=partial(known_mistakes, params, dp, zero),
    )


CASE = st.fixed_dictionaries(
    {
        "params": st.integers(min_value=1, max_value=10**13),
        "dp": st.integers(min_value=1, max_value=4096),
        "zero": st.sampled_from([0, 1, 2, 3]),
    }
)


@points(2)
@property_settings
@given(cases=st.lists(CASE, min_size=1, max_size=20))
@example(
    cases=[{"params": 1_500_000_000, "dp": 1, "zero": 3}, {"params": 10**6, "dp": 3, "zero": 2}]
)
def test_matches_the_memory_model(submitted, cases):
    """Any model size, any number of devices, any stage (a batch of cases per sandbox call)."""
    for case, got in zip(cases, submitted.many(cases), strict=True):
        params, dp, zero = case["params"], case["dp"], case["zero"]
        close(
            got,
            model_states(params, dp=dp, zero=zero).total,
            what=f"params={params}, dp={dp}, zero={zero}",
            mistakes=partial(known_mistakes, params, dp, zero),
        )

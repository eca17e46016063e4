"""Hidden tests for l08-code-model-state-bytes (server-only; never shipped to the browser).

``submitted`` (a fixture of grader.grading.plugin) calls the learner's function in the sandbox;
only a plain number comes back. Expected values come from the memory model (grader.memory).
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from grader.grading.hidden import close, points, property_settings
from grader.memory import model_states


@points(1)
def test_plain_data_parallelism(submitted):
    """Stage 0: every device holds all 16 bytes per parameter (7B model: 112 GB)."""
    close(submitted(params=7_000_000_000, dp=8, zero=0), model_states(7e9, dp=8, zero=0).total)


@points(1)
@pytest.mark.parametrize("zero", [1, 2, 3])
def test_zero_paper_example(submitted, zero):
    """ZeRO paper, Figure 1: Ψ = 7.5B, N_d = 64."""
    expected = model_states(7.5e9, dp=64, zero=zero).total
    close(submitted(params=7_500_000_000, dp=64, zero=zero), expected, what=f"stage {zero}")


@points(2)
@property_settings
@given(
    params=st.integers(min_value=1, max_value=10**13),
    dp=st.integers(min_value=1, max_value=4096),
    zero=st.sampled_from([0, 1, 2, 3]),
)
@example(params=1_500_000_000, dp=1, zero=3)
@example(params=1_000_000, dp=3, zero=2)
def test_matches_the_memory_model(submitted, params, dp, zero):
    """Any model size, any number of devices, any stage."""
    expected = model_states(params, dp=dp, zero=zero).total
    close(
        submitted(params=params, dp=dp, zero=zero),
        expected,
        what=f"params={params}, dp={dp}, zero={zero}",
    )

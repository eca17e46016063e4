"""Hidden tests for l11-code-activation-bytes (server-only; never shipped to the browser).

``submitted`` (a fixture of grader.grading.plugin) calls the learner's function in the sandbox;
only a plain number comes back. Expected values come from the memory model (grader.memory).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from grader.grading.hidden import close, points, property_settings
from grader.memory import activations


def expected(hidden: int, layers: int, seq: int, batch: int) -> float:
    return activations(
        hidden=hidden, layers=layers, seq=seq, batch=batch, method="zero-paper"
    ).total


@points(1)
def test_gpt2_example(submitted):
    """ZeRO paper, Section 3.2: GPT-2 1.5B, seq 1K, batch 32 → about 60 GB."""
    close(submitted(hidden=1600, layers=48, seq=1024, batch=32), expected(1600, 48, 1024, 32))


@points(2)
@property_settings
@given(
    hidden=st.integers(min_value=64, max_value=65536),
    layers=st.integers(min_value=1, max_value=256),
    seq=st.integers(min_value=1, max_value=1 << 20),
    batch=st.integers(min_value=1, max_value=4096),
)
def test_matches_the_memory_model(submitted, hidden, layers, seq, batch):
    """Any shape."""
    close(
        submitted(hidden=hidden, layers=layers, seq=seq, batch=batch),
        expected(hidden, layers, seq, batch),
        what=f"hidden={hidden}, layers={layers}, seq={seq}, batch={batch}",
    )

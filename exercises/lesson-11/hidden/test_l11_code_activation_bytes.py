"""Hidden tests for l11-code-activation-bytes (server-only; never shipped to the browser).

``submitted`` (a fixture of grader.grading.plugin) calls the learner's function in the sandbox;
only a plain number comes back. Expected values come from the memory model (grader.memory).
"""

from __future__ import annotations

from functools import partial

from hypothesis import given
from hypothesis import strategies as st

from grader.grading.hidden import close, points, property_settings
from grader.memory import activations


def expected(hidden: int, layers: int, seq: int, batch: int) -> float:
    return activations(
        hidden=hidden, layers=layers, seq=seq, batch=batch, method="zero-paper"
    ).total


def known_mistakes(value: float) -> dict[str, float]:
    return {
        "that counts activation values; each is stored in fp16, 2 bytes": value / 2,
        "each activation is fp16 (2 bytes), not fp32 (4 bytes)": value * 2,
        "that is in bits; the answer is in bytes (1 byte = 8 bits)": value * 8,
    }


@points(1)
def test_gpt2_example(submitted):
    """ZeRO paper, Section 3.2: GPT-2 1.5B, seq 1K, batch 32 -> about 60 GB."""
    value = expected(1600, 48, 1024, 32)
    got = submitted(hidden=1600, layers=48, seq=1024, batch=32)
    close(
        got, value, what="GPT-2 1.5B, seq 1024, batch 32", mistakes=partial(known_mistakes, value)
    )


CASE = st.fixed_dictionaries(
    {
        "hidden": st.integers(min_value=64, max_value=65536),
        "layers": st.integers(min_value=1, max_value=256),
        "seq": st.integers(min_value=1, max_value=1 << 20),
        "batch": st.integers(min_value=1, max_value=4096),
    }
)


@points(2)
@property_settings
@given(cases=st.lists(CASE, min_size=1, max_size=20))
def test_matches_the_memory_model(submitted, cases):
    """Any shape (a batch of cases per sandbox call)."""
    for case, got in zip(cases, submitted.many(cases), strict=True):
        value = expected(**case)
        shown = ", ".join(f"{k}={v}" for k, v in case.items())
        close(got, value, what=shown, mistakes=partial(known_mistakes, value))

"""Property tests (hypothesis) of the ZeRO model-state formulas.

Source: Rajbhandari et al., ZeRO, arXiv:1910.02054, Section 5: stage 3 partitions all 16Ψ bytes,
so per-device memory × N_d equals stage 0's; partitioning never adds memory.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.memory import activations, model_states, parse_bytes
from grader.memory.model_states import OPTIMIZERS, PRECISIONS
from grader.memory.units import format_bytes

params = st.integers(min_value=1, max_value=10**13)
devices = st.integers(min_value=1, max_value=4096)
stages = st.integers(min_value=0, max_value=3)
optimizers = st.sampled_from(OPTIMIZERS)
precisions = st.sampled_from(PRECISIONS)


@settings(max_examples=200, deadline=None)
@given(psi=params, nd=devices, optimizer=optimizers, precision=precisions)
def test_stage_3_times_devices_equals_stage_0(
    psi: int, nd: int, optimizer: str, precision: str
) -> None:
    stage3 = model_states(psi, dp=nd, zero=3, optimizer=optimizer, precision=precision)
    stage0 = model_states(psi, dp=nd, zero=0, optimizer=optimizer, precision=precision)
    assert stage3.total * nd == pytest.approx(stage0.total, rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(psi=params, nd=devices, extra=st.integers(min_value=1, max_value=4096), zero=stages)
def test_more_devices_never_raise_per_device_memory(
    psi: int, nd: int, extra: int, zero: int
) -> None:
    fewer = model_states(psi, dp=nd, zero=zero).total
    more = model_states(psi, dp=nd + extra, zero=zero).total
    assert more <= fewer * (1 + 1e-12)


@settings(max_examples=200, deadline=None)
@given(psi=params, nd=devices, zero=stages)
def test_higher_stage_never_raises_memory(psi: int, nd: int, zero: int) -> None:
    if zero < 3:
        assert model_states(psi, dp=nd, zero=zero + 1).total <= model_states(
            psi, dp=nd, zero=zero
        ).total * (1 + 1e-12)


@settings(max_examples=200, deadline=None)
@given(psi=params, nd=devices, zero=stages, optimizer=optimizers, offload=st.booleans())
def test_total_is_sum_of_parts(psi: int, nd: int, zero: int, optimizer: str, offload: bool) -> None:
    if offload and zero == 0:
        return
    result = model_states(psi, dp=nd, zero=zero, optimizer=optimizer, offload_optimizer=offload)
    assert result.total == pytest.approx(sum(result.parts.values()), rel=1e-12)
    assert result.to_dict()["total"] == result.total
    if offload:
        everything = model_states(psi, dp=nd, zero=zero, optimizer=optimizer)
        assert result.total + result.host_total == pytest.approx(everything.total, rel=1e-12)


@settings(max_examples=100, deadline=None)
@given(
    h=st.integers(1, 16384),
    layers=st.integers(1, 128),
    s=st.integers(1, 8192),
    b=st.integers(1, 64),
    a=st.integers(1, 128),
    t=st.sampled_from([1, 2, 4, 8]),
    sp=st.booleans(),
    recompute=st.sampled_from(["none", "selective", "full"]),
)
def test_activation_totals_and_ordering(
    h: int, layers: int, s: int, b: int, a: int, t: int, sp: bool, recompute: str
) -> None:
    """Korthikanti et al. Table 2: each technique keeps at most what the one before it kept."""
    if sp and t == 1:
        sp = False
    common = {
        "hidden": h,
        "layers": layers,
        "seq": s,
        "batch": b,
        "heads": a,
        "method": "korthikanti",
    }
    result = activations(**common, tp=t, sequence_parallel=sp, recompute=recompute)
    assert result.total == pytest.approx(sum(result.parts.values()), rel=1e-12)
    none = activations(**common, tp=t, sequence_parallel=sp)
    assert result.total <= none.total * (1 + 1e-12)
    assert none.total <= activations(**common).total * (1 + 1e-12)


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=0, max_value=1e15, allow_nan=False), st.sampled_from(["GB", "GiB"]))
def test_format_then_parse_round_trips_closely(n: float, unit: str) -> None:
    text = format_bytes(n, unit, digits=6)
    assert parse_bytes(text) == pytest.approx(
        n, rel=1e-5, abs=1e-3 * (10**9 if unit == "GB" else 2**30)
    )


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_parse_bytes_never_crashes_otherwise(text: str) -> None:
    """Arbitrary text gives a number or a ValueError, never another exception."""
    try:
        value = parse_bytes(text)
    except ValueError:
        return
    assert value >= 0

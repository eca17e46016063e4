"""Residual memory, communication volumes and the pipeline bubble.

Sources: Rajbhandari et al., ZeRO, arXiv:1910.02054, Sections 3.2, 6.2, 7 and 8; Korthikanti et
al., arXiv:2205.05198, Section 4.2.2; Narayanan et al., "Efficient Large-Scale Language Model
Training on GPU Clusters Using Megatron-LM", arXiv:2104.04473, Section 2.2.
"""

from __future__ import annotations

import pytest

from grader.memory import (
    GB,
    data_parallel_volume,
    fused_buffer_bytes,
    pipeline_bubble,
    residual,
    tensor_parallel_volume,
)


def test_fused_fp32_buffer_1_5b_is_6_gb() -> None:
    """ZeRO Section 3.2: "for a model with 1.5B parameters, a flattened fp32 buffer would require
    6 GB of memory" (4Ψ bytes)."""
    assert fused_buffer_bytes(1.5e9) == 6 * GB


def test_fused_fp32_buffer_3b_is_12_gb() -> None:
    """ZeRO Section 6.2: "for a 3B parameter model, a 32-bit fused buffer will require 12 GB"."""
    assert residual(params=3e9).total == 12 * GB


def test_allowance_is_a_named_part_never_hidden() -> None:
    """ZeRO Section 3.2 gives no formula for fragmentation: the caller's allowance is its own
    part, and a constant-size buffer (ZeRO-R C_B, Section 6.2) replaces the 4Ψ buffer."""
    result = residual(params=1.5e9, allowance="2 GB")
    assert result.parts["fragmentation / headroom allowance (given)"] == 2 * GB
    assert result.total == 8 * GB
    constant = residual(params=100e9, constant_buffer="1 GB")
    assert dict(constant.parts) == {"constant-size fused buffer (ZeRO-R C_B)": GB}
    assert residual(params=1e9, fused_buffer_bytes_per_element=None).total == 0
    with pytest.raises(ValueError):
        residual(allowance="2 Gb")
    with pytest.raises(ValueError):
        residual()


@pytest.mark.parametrize(("zero", "psi_multiple"), [(0, 2), (1, 2), (2, 2), (3, 3)])
def test_zero_communication_volume(zero: int, psi_multiple: int) -> None:
    """ZeRO Section 7: data parallelism moves 2Ψ per step (reduce-scatter + all-gather); P_os+g also
    2Ψ; P_os+g+p 3Ψ, 1.5× the baseline. Volumes in elements; fp16 = 2 bytes."""
    psi = 7.5e9
    volume = data_parallel_volume(psi, zero=zero)
    assert volume.total == psi_multiple * psi * 2
    assert data_parallel_volume(psi, zero=zero, bytes_per_element=1).total == psi_multiple * psi


def test_zero_stage_3_is_1_5x_baseline() -> None:
    """ZeRO Section 7.2.2: "The total volume is therefore 3Ψ which is 1.5x compared to the
    baseline"."""
    assert data_parallel_volume(1e9, zero=3).total / data_parallel_volume(1e9).total == 1.5


def test_ring_factor_is_optional() -> None:
    """The paper's count leaves out the ring all-reduce factor (N_d - 1)/N_d."""
    assert data_parallel_volume(1e9, dp=4).total == 2 * 1e9 * 2 * 3 / 4


def test_megatron_all_reduces_per_block() -> None:
    """ZeRO Section 8: with activation checkpointing, each transformer block performs two
    all-reduces of batch × seq × hidden in forward, two in the forward recomputation and two in
    backward; an all-reduce moves 2 × message size: 12 × seq × hidden per block (batch 1)."""
    s, h = 1024, 8192
    volume = tensor_parallel_volume(hidden=h, seq=s, batch=1, recompute="full", bytes_per_element=1)
    assert volume.total == 12 * s * h
    plain = tensor_parallel_volume(hidden=h, seq=s, batch=1, bytes_per_element=1)
    assert plain.total == 8 * s * h


def test_partitioned_activation_overhead_under_10_percent() -> None:
    """ZeRO Section 8: P_a adds one all-gather of seq × hidden per block, "less than 10% of the
    original communication volume for model parallelism"."""
    base = tensor_parallel_volume(hidden=4096, seq=2048, batch=1, recompute="full")
    with_pa = tensor_parallel_volume(
        hidden=4096, seq=2048, batch=1, recompute="full", partition_activations=True
    )
    extra = with_pa.total - base.total
    assert extra == 4096 * 2048 * 2
    assert extra / base.total < 0.10


def test_sequence_parallel_keeps_the_volume() -> None:
    """Korthikanti Section 4.2.2: four all-gathers and four reduce-scatters in place of four
    all-reduces: the same bandwidth."""
    tp = tensor_parallel_volume(hidden=4096, seq=2048, batch=2, layers=4)
    sp = tensor_parallel_volume(hidden=4096, seq=2048, batch=2, layers=4, sequence_parallel=True)
    assert tp.total == sp.total
    assert any("all-gather + reduce-scatter" in name for name in sp.parts)


@pytest.mark.parametrize(
    ("p", "m", "v", "expected"),
    [
        (4, 8, 1, 3 / 8),
        (8, 32, 1, 7 / 32),
        (8, 32, 2, 7 / 64),
        (1, 4, 1, 0.0),
        (64, 512, 3, 63 / 1536),
    ],
)
def test_pipeline_bubble(p: int, m: int, v: int, expected: float) -> None:
    """Narayanan et al. 2021 Section 2.2.1: bubble fraction (p - 1)/m; Section 2.2.2: interleaved
    schedule with v chunks per device, (p - 1)/(v·m)."""
    assert pipeline_bubble(p, m, interleave=v) == pytest.approx(expected)


def test_pipeline_bubble_rejects_bad_input() -> None:
    for args in ((0, 4), (4, 0), (2.5, 4)):
        with pytest.raises(ValueError):
            pipeline_bubble(*args)

"""Model states per device, checked against the numbers the ZeRO paper prints.

Source for every test here unless it says otherwise: Rajbhandari, Rasley, Ruwase, He, "ZeRO: Memory
Optimizations Toward Training Trillion Parameter Models", SC 2020, arXiv:1910.02054.
"""

from __future__ import annotations

import pytest

from grader.memory import (
    GB,
    Breakdown,
    bytes_per_param_per_device,
    model_states,
    optimizer_multiplier,
    state_parts,
)


@pytest.mark.parametrize(
    ("zero", "printed_gb"),
    [(0, "120"), (1, "31.4"), (2, "16.6"), (3, "1.9")],
)
def test_zero_figure_1(zero: int, printed_gb: str) -> None:
    """ZeRO paper, Figure 1: Ψ = 7.5B, N_d = 64, K = 12 -> 120 / 31.4 / 16.6 / 1.9 GB.

    Figure 1 prints one decimal (rounded: 1.875 GB is printed 1.9).
    """
    total = model_states(7.5e9, dp=64, zero=zero).total
    decimals = len(printed_gb.split(".")[1]) if "." in printed_gb else 0
    assert f"{total / GB:.{decimals}f}" == printed_gb


def test_zero_figure_1_exact_bytes() -> None:
    """ZeRO paper, Figure 1 / Section 5 formulas: 16Ψ, 4Ψ + 12Ψ/N_d, 2Ψ + 14Ψ/N_d, 16Ψ/N_d."""
    psi, nd = 7.5e9, 64
    assert model_states(psi, dp=nd, zero=0).total == 16 * psi
    assert model_states(psi, dp=nd, zero=1).total == 4 * psi + 12 * psi / nd
    assert model_states(psi, dp=nd, zero=2).total == 2 * psi + 14 * psi / nd
    assert model_states(psi, dp=nd, zero=3).total == 16 * psi / nd


def test_gpt2_model_states_24_gb_and_fp16_weights_3_gb() -> None:
    """ZeRO paper, Section 3.1: GPT-2 (1.5B parameters) needs 24 GB of model states with
    mixed-precision Adam, against 3 GB for the fp16 weights alone."""
    states = model_states(1.5e9)
    assert states.total == 24 * GB
    assert states.parts["fp16 parameters"] == 3 * GB


def test_named_parts_of_mixed_precision_adam() -> None:
    """ZeRO paper, Section 3.1: 2Ψ fp16 parameters, 2Ψ fp16 gradients, and K = 12: fp32
    parameters, momentum, variance (4Ψ each)."""
    states = model_states(1)
    assert list(states.parts) == [
        "fp16 parameters",
        "fp16 gradients",
        "fp32 master parameters",
        "fp32 momentum",
        "fp32 variance",
    ]
    assert list(states.parts.values()) == [2, 2, 4, 4, 4]
    assert optimizer_multiplier() == 12


@pytest.mark.parametrize(
    ("optimizer", "precision", "per_param", "k"),
    [
        ("adam", "mixed", 16, 12),
        ("adamw", "fp16", 16, 12),
        ("adam", "bf16", 16, 12),
        ("adam", "fp32", 16, 8),
        ("sgd", "mixed", 8, 4),
        ("sgd", "fp32", 8, 0),
        ("sgd-momentum", "mixed", 12, 8),
        ("sgd-momentum", "fp32", 12, 4),
        ("adam-8bit", "mixed", 10 + 8 / 2048, 6 + 8 / 2048),
    ],
)
def test_other_optimizers(optimizer: str, precision: str, per_param: float, k: float) -> None:
    """Bytes per parameter: ZeRO Section 3.1 (mixed Adam), plain fp32 training (4-byte
    parameters and gradients, no master copy), and 8-bit Adam (Dettmers et al. 2022,
    arXiv:2110.02861: one byte per state, one fp32 scale per block of 2048)."""
    assert bytes_per_param_per_device(optimizer=optimizer, precision=precision) == pytest.approx(
        per_param
    )
    assert optimizer_multiplier(optimizer, precision) == pytest.approx(k)


def test_bf16_names_its_parts() -> None:
    names = [p.name for p in state_parts("adam", "bf16")]
    assert names[:2] == ["bf16 parameters", "bf16 gradients"]


def test_offload_moves_optimizer_state_to_host() -> None:
    """ZeRO-Offload (Ren et al. 2021, arXiv:2101.06840): optimizer state lives in CPU memory."""
    states = model_states(7.5e9, dp=64, zero=2, offload_optimizer=True)
    assert set(states.parts) == {"fp16 parameters", "fp16 gradients"}
    assert states.total == 2 * 7.5e9 + 2 * 7.5e9 / 64
    assert states.host_total == 12 * 7.5e9 / 64
    assert states.to_dict()["host_total"] == states.host_total


def test_breakdown_result_shape() -> None:
    states = model_states("7.5B", dp=64, zero=3)
    assert isinstance(states, Breakdown)
    data = states.to_dict()
    assert data["unit"] == "bytes"
    assert data["total"] == sum(data["parts"].values()) == 1_875_000_000
    assert data["inputs"]["params"] == 7_500_000_000
    assert "1910.02054" in data["source"]
    assert "stage 3" in states.method
    text = states.format("GB")
    assert "1.88 GB" in text and "1 GB = 10**9 bytes" in text
    assert "GiB" in states.format("GiB")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"params": 0},
        {"params": -1},
        {"params": float("nan")},
        {"params": "lots"},
        {"params": 1e9, "zero": 4},
        {"params": 1e9, "zero": -1},
        {"params": 1e9, "dp": 0},
        {"params": 1e9, "dp": 2.5},
        {"params": 1e9, "optimizer": "lion"},
        {"params": 1e9, "precision": "fp8"},
        {"params": 1e9, "offload_optimizer": True},
    ],
)
def test_bad_arguments_raise_value_error(kwargs: dict) -> None:
    params = kwargs.pop("params")
    with pytest.raises(ValueError):
        model_states(params, **kwargs)

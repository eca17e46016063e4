"""Fits or not: the largest model for a device, the fewest devices for a model.

Source: Rajbhandari et al., ZeRO, arXiv:1910.02054, Section 5 (per-device model states) and the
lessons' 32 GB example (Section 1: data parallelism alone runs out of memory above about 1.4B
parameters on 32 GB GPUs once activations and buffers are counted; model states alone allow 2B).
"""

from __future__ import annotations

import pytest

from grader.memory import GB, fits, max_params, min_devices, model_states, usable_memory


def test_max_params_plain_data_parallelism_32_gb() -> None:
    """ZeRO Table 2, MP = 1: 32 GB / 16 bytes = 2B parameters of model states at most."""
    assert max_params("32 GB") == 2_000_000_000
    assert max_params(32 * GB, dp=64) == 2_000_000_000  # no ZeRO: N_d does not help


def test_reserve_is_subtracted_openly() -> None:
    """A caller-given reserve (activations, buffers, fragmentation) comes off the device first."""
    assert max_params("32 GB", reserve="8 GB") == 1_500_000_000
    assert usable_memory("80 GB", reserve="10 GB") == 70 * GB
    with pytest.raises(ValueError, match="leaves nothing"):
        usable_memory("32 GB", reserve="40 GB")


def test_min_devices_figure_1_model() -> None:
    """7.5B parameters (ZeRO Figure 1) on 32 GB devices: stage 3 needs 16Ψ/N_d ≤ 32 GB, N_d ≥ 4;
    stage 1 needs 4Ψ + 12Ψ/N_d ≤ 32 GB, N_d ≥ 45; stage 0 never fits (120 GB on every device)."""
    assert min_devices(7.5e9, "32 GB", zero=3) == 4
    assert min_devices(7.5e9, "32 GB", zero=2) == 7
    assert min_devices(7.5e9, "32 GB", zero=1) == 45
    assert min_devices(7.5e9, "32 GB", zero=0) is None
    for zero, n in ((3, 4), (2, 7), (1, 45)):
        assert model_states(7.5e9, dp=n, zero=zero).total <= 32 * GB
        assert model_states(7.5e9, dp=n - 1, zero=zero).total > 32 * GB


def test_fits() -> None:
    states = model_states(1.4e9)  # Lesson 8: 22.4 GB of states for 1.4B parameters
    assert states.total == 22.4 * GB
    assert fits(states, "32 GB")
    assert not fits(states, "32 GB", reserve="10 GB")
    assert fits("22.4 GB", "22.4 GB")

"""ZeRO paper Tables 1 and 2, every printed cell, from the memory model.

Source: Rajbhandari, Rasley, Ruwase, He, "ZeRO: Memory Optimizations Toward Training Trillion
Parameter Models", SC 2020, arXiv:1910.02054. Table 1 (Section 5.4) and Table 2 (Section 6/7,
"Maximum model size through memory analysis"). Cell values copied from the paper's text.
"""

from __future__ import annotations

import math
from decimal import ROUND_FLOOR, ROUND_HALF_UP, Decimal

import pytest

from grader.memory import GB, max_params, min_devices, model_states

DP_DEGREES = [1, 4, 16, 64, 256, 1024]
MODELS = {"7.5B": 7.5e9, "128B": 128e9, "1T": 1e12}
STAGES = {"P_os": 1, "P_os+g": 2, "P_os+g+p": 3}

#: ZeRO Table 1, as printed: model -> stage -> one value (GB) per DP degree 1, 4, 16, 64, 256, 1024.
TABLE_1 = {
    "7.5B": {
        "P_os": ["120", "52.5", "35.6", "31.4", "30.4", "30.1"],
        "P_os+g": ["120", "41.3", "21.6", "16.6", "15.4", "15.1"],
        "P_os+g+p": ["120", "30", "7.5", "1.88", "0.47", "0.12"],
    },
    "128B": {
        "P_os": ["2048", "896", "608", "536", "518", "513"],
        "P_os+g": ["2048", "704", "368", "284", "263", "257"],
        "P_os+g+p": ["2048", "512", "128", "32", "8", "2"],
    },
    "1T": {
        "P_os": ["16000", "7000", "4750", "4187", "4046", "4011"],
        "P_os+g": ["16000", "5500", "2875", "2218", "2054", "2013"],
        "P_os+g+p": ["16000", "4000", "1000", "250", "62.5", "15.6"],
    },
}

#: Table 1's bold cells ("the combinations for which the model can fit into a cluster of 32GB V100
#: GPUs"): (model, stage) -> DP degree.
TABLE_1_BOLD = {
    ("7.5B", "P_os"): 64,
    ("7.5B", "P_os+g"): 16,
    ("7.5B", "P_os+g+p"): 4,
    ("128B", "P_os+g+p"): 64,
    ("1T", "P_os+g+p"): 1024,
}


def as_printed_in_table_1(n_bytes: float) -> str:
    """The paper's presentation rule, inferred from its cells (the paper does not state it).

    Values of 100 GB or more are truncated to whole GB (128B: 513.5 -> "513", 257.75 -> "257";
    1T: 4187.5 -> "4187", 2218.75 -> "2218"). Smaller values are rounded half up to three
    significant figures and at most two decimals (41.25 -> "41.3", 30.35 -> "30.4",
    0.46875 -> "0.47", 0.1171875 -> "0.12", 62.5 -> "62.5"). This one rule gives all 54 cells.
    """
    value = Decimal(n_bytes) / Decimal(GB)
    if value >= 100:
        return str(value.to_integral_value(rounding=ROUND_FLOOR))
    decimals = min(2, max(0, 2 - math.floor(math.log10(value))))
    text = str(value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))
    return text.rstrip("0").rstrip(".") if "." in text else text


@pytest.mark.parametrize("model", list(TABLE_1))
@pytest.mark.parametrize("stage", list(STAGES))
def test_zero_table_1_every_cell(model: str, stage: str) -> None:
    """ZeRO Table 1: per-device model-state memory (GB) as a function of the DP degree."""
    printed = [
        as_printed_in_table_1(model_states(MODELS[model], dp=nd, zero=STAGES[stage]).total)
        for nd in DP_DEGREES
    ]
    assert printed == TABLE_1[model][stage]


def test_zero_table_1_truncation_is_real() -> None:
    """ZeRO Table 1 truncates large values: the 128B P_os cell at N_d = 1024 is 513.5 GB exactly
    (4Ψ + 12Ψ/1024), printed 513; ordinary rounding would print 514."""
    exact = model_states(128e9, dp=1024, zero=1).total / GB
    assert exact == 513.5
    assert round(exact) == 514 and TABLE_1["128B"]["P_os"][-1] == "513"


def test_zero_table_1_bold_cells_are_the_first_that_fit_32_gb() -> None:
    """ZeRO Table 1 caption: bold cells are the combinations that fit 32 GB V100 GPUs. For each
    model and stage, the bold DP degree is the smallest of the table's degrees at or above the
    fewest devices ``min_devices`` finds (none for P_os and P_os+g of 128B and 1T)."""
    found = {}
    for model, psi in MODELS.items():
        for stage, zero in STAGES.items():
            need = min_devices(psi, 32 * GB, zero=zero)
            if need is not None and need <= DP_DEGREES[-1]:
                found[(model, stage)] = min(nd for nd in DP_DEGREES if nd >= need)
    assert found == TABLE_1_BOLD


#: ZeRO Table 2, "Max Theoretical Model Size" (32 GB V100, N_d = GPUs / MP), as printed.
TABLE_2 = [
    # (MP, GPUs, baseline, P_os, P_os+g, P_os+g+p)
    (1, 64, "2B", "7.6B", "14.4B", "128B"),
    (2, 128, "4B", "15.2B", "28.8B", "256B"),
    (4, 256, "8B", "30.4B", "57.6B", "0.5T"),
    (8, 512, "16B", "60.8B", "115.2B", "1T"),
    (16, 1024, "32B", "121.6B", "230.4B", "2T"),
]


def as_printed_in_table_2(params_mp1: float, mp: int) -> str:
    """Table 2's presentation, inferred from its cells: the MP = 1 maximum is truncated to 0.1B
    (7.64B -> 7.6B, 14.42B -> 14.4B) and each row prints MP times that figure (so MP = 2 shows
    15.2B, where 2 × 7.64B = 15.28B); 512B and more are written in T to one decimal (0.5T, 1T)."""
    billions = Decimal(params_mp1) / Decimal(10**9)
    base = billions.quantize(Decimal("0.1"), rounding=ROUND_FLOOR)
    value = base * mp
    if value >= 500:
        tera = (value / 1000).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
        return f"{tera.normalize():f}T"
    return f"{value.normalize():f}B"


@pytest.mark.parametrize("row", TABLE_2, ids=[f"MP{r[0]}" for r in TABLE_2])
def test_zero_table_2_theoretical_maxima(row: tuple) -> None:
    """ZeRO Table 2: largest model whose model states fit 32 GB per GPU, with N_d = GPUs / MP."""
    mp, gpus, *printed = row
    nd = gpus // mp
    got = [as_printed_in_table_2(max_params(32 * GB, dp=nd, zero=zero), mp) for zero in range(4)]
    assert got == printed


def test_zero_table_2_exact_maxima_scale_with_mp() -> None:
    """ZeRO Table 2 / Section 5: the maximum scales with MP, since each GPU holds Ψ/MP."""
    one = max_params(32 * GB, dp=64, zero=1)
    assert max_params(32 * GB, dp=64, zero=1, mp=16) == pytest.approx(16 * one, abs=16)
    assert one == math.floor(32e9 / (4 + 12 / 64))


def test_zero_section_5_4_claims() -> None:
    """ZeRO Section 5.4: with N_d = 64, ZeRO can train models with up to 7.5B, 14B and 128B
    parameters using P_os, P_os+g and P_os+g+p (32 GB devices); with N_d = 1024 and all stages,
    1 trillion parameters (15.6 GB per device in Table 1)."""
    assert max_params(32 * GB, dp=64, zero=1) >= 7.5e9
    assert max_params(32 * GB, dp=64, zero=2) >= 14e9
    assert max_params(32 * GB, dp=64, zero=3) == 128e9
    assert model_states(1e12, dp=1024, zero=3).total <= 32 * GB

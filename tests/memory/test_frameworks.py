"""What frameworks print: DeepSpeed's estimator and PyTorch FSDP's sharding strategies.

Sources: DeepSpeed documentation, "Memory Requirements" (docs/code-docs/source/memory.rst):
``estimate_zero3_model_states_mem_needs_all_cold`` and ``estimate_zero2_..._all_cold`` for t5-3b
(2851M parameters, 32M largest layer) on 1 node of 8 GPUs. DeepSpeed divides bytes by 2**30 and
labels the result "GB": the numbers below are GiB, and the tests compare in GiB.
PyTorch documentation, ``torch.distributed.fsdp.ShardingStrategy``.
"""

from __future__ import annotations

import pytest

from grader.memory import (
    GiB,
    deepspeed_zero2_estimate,
    deepspeed_zero3_estimate,
    format_deepspeed_rows,
    fsdp_model_states,
    fsdp_strategy,
    model_states,
)

#: DeepSpeed docs, ZeRO-3 "all_cold" output for t5-3b on 8 GPUs: (per CPU, per GPU, options).
DEEPSPEED_ZERO3_T5_3B = [
    ("71.69", "0.12", "offload_param=cpu , offload_optimizer=cpu , zero_init=1"),
    ("127.45", "0.12", "offload_param=cpu , offload_optimizer=cpu , zero_init=0"),
    ("63.72", "0.78", "offload_param=none, offload_optimizer=cpu , zero_init=1"),
    ("127.45", "0.78", "offload_param=none, offload_optimizer=cpu , zero_init=0"),
    ("1.43", "6.09", "offload_param=none, offload_optimizer=none, zero_init=1"),
    ("127.45", "6.09", "offload_param=none, offload_optimizer=none, zero_init=0"),
]
#: DeepSpeed docs, ZeRO-2 "all_cold" output for t5-3b on 8 GPUs.
DEEPSPEED_ZERO2_T5_3B = [
    ("127.45", "5.31", "offload_optimizer=cpu"),
    ("127.45", "15.93", "offload_optimizer=none"),
]


def test_deepspeed_zero3_all_cold_t5_3b() -> None:
    """DeepSpeed "Memory Requirements": estimate_zero3_model_states_mem_needs_all_cold(
    total_params=2851e6, largest_layer_params=32e6, num_gpus_per_node=8, num_nodes=1); the
    printed "GB" are bytes / 2**30 (GiB)."""
    rows = deepspeed_zero3_estimate(2851e6, 32e6, num_gpus_per_node=8, num_nodes=1)
    got = [(f"{r.per_cpu / GiB:.2f}", f"{r.per_gpu / GiB:.2f}", r.options()) for r in rows]
    assert got == DEEPSPEED_ZERO3_T5_3B


def test_deepspeed_zero2_all_cold_t5_3b() -> None:
    """DeepSpeed "Memory Requirements": estimate_zero2_model_states_mem_needs_all_cold(
    total_params=2851e6, num_gpus_per_node=8, num_nodes=1), in GiB as printed."""
    rows = deepspeed_zero2_estimate(2851e6, num_gpus_per_node=8)
    got = [(f"{r.per_cpu / GiB:.2f}", f"{r.per_gpu / GiB:.2f}", r.options()) for r in rows]
    assert got == DEEPSPEED_ZERO2_T5_3B


def test_deepspeed_prints_gib_not_gb() -> None:
    """Read as GB (10**9) the same 6.09 would be wrong: the GPU bytes are 6.54e9."""
    rows = deepspeed_zero3_estimate(2851e6, 32e6, num_gpus_per_node=8)
    no_offload = rows[4]
    assert no_offload.per_gpu == 128_000_000 + int(18 * 2851e6 / 8)
    assert f"{no_offload.per_gpu / 1e9:.2f}" == "6.54"
    table = format_deepspeed_rows(rows)
    assert "6.09GB" in table and "71.69GB" in table


def test_deepspeed_counts_differ_from_the_paper() -> None:
    """DeepSpeed's ZeRO-3 estimate counts 18 bytes per parameter (fp32 gradients as well), the
    ZeRO paper 16: the same model gives different per-GPU numbers, and the tests keep both."""
    paper = model_states(2851e6, dp=8, zero=3).total
    deepspeed = deepspeed_zero3_estimate(2851e6, 32e6, num_gpus_per_node=8)[4].per_gpu
    assert paper == 16 * 2851e6 / 8
    assert deepspeed > paper


@pytest.mark.parametrize(
    ("strategy", "zero", "group"),
    [
        ("NO_SHARD", 0, "none"),
        ("SHARD_GRAD_OP", 2, "world"),
        ("FULL_SHARD", 3, "world"),
        ("HYBRID_SHARD", 3, "node"),
        ("_HYBRID_SHARD_ZERO2", 2, "node"),
        ("ShardingStrategy.FULL_SHARD", 3, "world"),
        ("full_shard", 3, "world"),
    ],
)
def test_fsdp_strategies_map_to_zero_stages(strategy: str, zero: int, group: str) -> None:
    """PyTorch ShardingStrategy docs: NO_SHARD replicates like DDP (ZeRO-0); SHARD_GRAD_OP shards
    gradients and optimizer state (ZeRO-2); FULL_SHARD shards parameters too (ZeRO-3);
    HYBRID_SHARD is FULL_SHARD within a node, replicated across nodes; _HYBRID_SHARD_ZERO2 is
    SHARD_GRAD_OP within a node."""
    found = fsdp_strategy(strategy)
    assert (found.zero, found.shard_group) == (zero, group)


def test_fsdp_model_states() -> None:
    """FULL_SHARD over 64 GPUs = ZeRO-3 with N_d = 64; HYBRID_SHARD on 8-GPU nodes = ZeRO-3 with
    N_d = 8; NO_SHARD = 16Ψ on every GPU."""
    psi = 7.5e9
    assert fsdp_model_states(psi, "FULL_SHARD", world_size=64).total == 16 * psi / 64
    hybrid = fsdp_model_states(psi, "HYBRID_SHARD", world_size=64, gpus_per_node=8)
    assert hybrid.total == 16 * psi / 8
    assert "HYBRID_SHARD" in hybrid.method
    assert fsdp_model_states(psi, "NO_SHARD", world_size=64).total == 16 * psi
    sgo = fsdp_model_states(psi, "SHARD_GRAD_OP", world_size=64)
    assert sgo.total == model_states(psi, dp=64, zero=2).total


def test_fsdp_bad_input() -> None:
    with pytest.raises(ValueError, match="unknown FSDP"):
        fsdp_strategy("SHARD_EVERYTHING")
    with pytest.raises(ValueError, match="gpus_per_node"):
        fsdp_model_states(1e9, "HYBRID_SHARD", world_size=64)
    with pytest.raises(ValueError, match="multiple"):
        fsdp_model_states(1e9, "HYBRID_SHARD", world_size=60, gpus_per_node=8)

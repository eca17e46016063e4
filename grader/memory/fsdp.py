"""PyTorch FSDP sharding strategies, mapped to ZeRO stages.

Source: PyTorch documentation, ``torch.distributed.fsdp.ShardingStrategy``: FULL_SHARD shards
parameters, gradients and optimizer states (ZeRO-3); SHARD_GRAD_OP shards gradients and optimizer
states, and parameters only outside computation (ZeRO-2); NO_SHARD replicates everything like
DistributedDataParallel (no ZeRO); HYBRID_SHARD applies FULL_SHARD within a node and replicates
across nodes; _HYBRID_SHARD_ZERO2 applies SHARD_GRAD_OP within a node and replicates across nodes.
"""

from __future__ import annotations

from collections import namedtuple

from . import sources
from .breakdown import Breakdown
from .model_states import model_states
from .validation import check_int


class FsdpStrategy(namedtuple("FsdpStrategy", "name zero shard_group description")):
    """One FSDP sharding strategy: its ZeRO stage and over which group it shards.

    Fields: name, zero (stage), shard_group ("world", "node" or "none"), description.
    """

    __slots__ = ()


FSDP_STRATEGIES: dict[str, FsdpStrategy] = {
    "NO_SHARD": FsdpStrategy(
        "NO_SHARD", 0, "none", "replicates parameters, gradients and optimizer state (like DDP)"
    ),
    "SHARD_GRAD_OP": FsdpStrategy(
        "SHARD_GRAD_OP",
        2,
        "world",
        "shards gradients and optimizer state; parameters are sharded only outside computation",
    ),
    "FULL_SHARD": FsdpStrategy(
        "FULL_SHARD", 3, "world", "shards parameters, gradients and optimizer state"
    ),
    "HYBRID_SHARD": FsdpStrategy(
        "HYBRID_SHARD", 3, "node", "FULL_SHARD within a node, replicated across nodes"
    ),
    "_HYBRID_SHARD_ZERO2": FsdpStrategy(
        "_HYBRID_SHARD_ZERO2", 2, "node", "SHARD_GRAD_OP within a node, replicated across nodes"
    ),
}


def fsdp_strategy(name: str) -> FsdpStrategy:
    """Look up a strategy by name ("FULL_SHARD", "ShardingStrategy.FULL_SHARD", "full_shard")."""
    key = name.strip().split(".")[-1].upper() if isinstance(name, str) else ""
    if key not in FSDP_STRATEGIES:
        raise ValueError(
            f"unknown FSDP sharding strategy {name!r}; choose one of: {', '.join(FSDP_STRATEGIES)}"
        )
    return FSDP_STRATEGIES[key]


def fsdp_model_states(
    params: int | float | str,
    strategy: str,
    *,
    world_size: int,
    gpus_per_node: int | None = None,
    optimizer: str = "adam",
    precision: str = "mixed",
) -> Breakdown:
    """Model states per GPU under an FSDP strategy, computed as the equivalent ZeRO stage.

    Sharding happens over ``world_size`` ranks, or over ``gpus_per_node`` ranks for the hybrid
    strategies (PyTorch ``ShardingStrategy`` docs; ZeRO arXiv:1910.02054 Section 5 for the bytes).
    """
    found = fsdp_strategy(strategy)
    world = check_int("world_size", world_size, minimum=1)
    if found.shard_group == "node":
        if gpus_per_node is None:
            raise ValueError(f"{found.name} shards within a node: give gpus_per_node")
        group = check_int("gpus_per_node", gpus_per_node, minimum=1)
        if world % group:
            raise ValueError(f"world_size {world} is not a multiple of gpus_per_node {group}")
    else:
        group = world
    states = model_states(
        params, optimizer=optimizer, precision=precision, dp=group, zero=found.zero
    )
    return states.replace(
        method=f"FSDP {found.name} = ZeRO stage {found.zero} over {group} GPUs",
        source=states.source + "; " + sources.FSDP,
        inputs={**states.inputs, "fsdp_strategy": found.name, "world_size": world},
    )

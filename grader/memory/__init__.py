"""The memory model: every formula the course teaches, in one place, standard library only.

It runs unchanged in CPython and in Pyodide. Every function returns bytes; GB means 10**9 bytes
and GiB means 2**30 bytes, never mixed. Every formula cites its source in its docstring, and every
result says which model produced it.

Results
    :class:`Breakdown` - ``.parts`` (ordered name -> bytes), ``.total``, ``.method``, ``.source``,
    ``.inputs``, ``.host_parts`` (CPU memory, e.g. offloaded optimizer state), ``.notes``,
    ``.to_dict()``, ``.format(unit="GB")``.

Model states (ZeRO, arXiv:1910.02054 Section 3.1, 5)
    ``model_states(params, *, optimizer="adam", precision="mixed", dp=1, zero=0,
    offload_optimizer=False) -> Breakdown``; ``state_parts(optimizer, precision)``;
    ``optimizer_multiplier(optimizer, precision)`` (K); ``bytes_per_param_per_device(...)``.

Activations (ZeRO Section 3.2; Korthikanti et al. 2022, arXiv:2205.05198)
    ``activations(*, hidden, layers, seq, batch, heads=None, method="zero-paper"|"korthikanti",
    tp=1, sequence_parallel=False, recompute="none"|"selective"|"full", pipeline=1,
    interleave=1, vocab=None, bytes_per_element=2) -> Breakdown``;
    ``korthikanti_per_layer(...)``; ``attention_score_ratio(hidden=, seq=, heads=)`` (5as/h).

Residual memory (ZeRO Section 3.2, 6.2)
    ``residual(*, params=None, fused_buffer_bytes_per_element=4, constant_buffer=None,
    allowance=0) -> Breakdown``; ``fused_buffer_bytes(params)`` (4Ψ).

Communication (ZeRO Section 7-8; Korthikanti Section 4.2.2; Narayanan et al. 2021 Section 2.2)
    ``data_parallel_volume(params, *, zero=0, bytes_per_element=2, dp=None) -> Breakdown``;
    ``tensor_parallel_volume(*, hidden, seq, batch, layers=1, recompute="none",
    sequence_parallel=False, partition_activations=False) -> Breakdown``;
    ``pipeline_bubble(stages, microbatches, *, interleave=1) -> float``.

Fits or not (ZeRO Section 5, Table 2)
    ``max_params(device_memory, *, optimizer, precision, dp, zero, offload_optimizer, mp=1,
    reserve=0) -> int``; ``min_devices(params, device_memory, *, zero=3, reserve=0, ...) ->
    int | None``; ``fits(required, device_memory, *, reserve=0) -> bool``;
    ``usable_memory(device_memory, *, reserve=0)``.

Frameworks
    ``deepspeed_zero3_estimate(total_params, largest_layer_params, *, num_gpus_per_node=1,
    num_nodes=1)`` and ``deepspeed_zero2_estimate(...)`` (DeepSpeed's own estimator, rows in bytes;
    DeepSpeed prints bytes / 2**30 as "GB"); ``fsdp_strategy(name)``, ``FSDP_STRATEGIES``,
    ``fsdp_model_states(params, strategy, *, world_size, gpus_per_node=None)``.

Picture
    ``stacked_bar_svg(bars, *, unit="GB", title=..., capacity=None) -> str`` (pure SVG string).

Units
    ``GB``, ``GiB`` (and KB, MB, TB, KiB, MiB, TiB), ``parse_bytes(text)``, ``parse_count(text)``,
    ``format_bytes(n, unit="GB")``, ``to_unit(n, unit)``.

Command line: ``python -m grader.memory --help`` (also ``python -m grader memory ...``).
"""

from __future__ import annotations

from .activations import activations, attention_score_ratio, korthikanti_per_layer
from .breakdown import Breakdown, combine
from .communication import data_parallel_volume, pipeline_bubble, tensor_parallel_volume
from .deepspeed_estimator import (
    EstimateRow,
    deepspeed_zero2_estimate,
    deepspeed_zero3_estimate,
    format_deepspeed_rows,
)
from .fit import fits, max_params, min_devices, usable_memory
from .fsdp import FSDP_STRATEGIES, FsdpStrategy, fsdp_model_states, fsdp_strategy
from .model_states import (
    bytes_per_param_per_device,
    model_states,
    optimizer_multiplier,
    state_parts,
)
from .residual import fused_buffer_bytes, residual
from .svg import stacked_bar_svg
from .units import (
    BYTE_UNITS,
    GB,
    KB,
    MB,
    TB,
    GiB,
    KiB,
    MiB,
    TiB,
    canonical_unit,
    format_bytes,
    parse_bytes,
    parse_count,
    to_unit,
)

__all__ = [
    "BYTE_UNITS",
    "GB",
    "GiB",
    "KB",
    "KiB",
    "MB",
    "MiB",
    "TB",
    "TiB",
    "Breakdown",
    "EstimateRow",
    "FSDP_STRATEGIES",
    "FsdpStrategy",
    "data_parallel_volume",
    "deepspeed_zero2_estimate",
    "deepspeed_zero3_estimate",
    "fits",
    "format_deepspeed_rows",
    "fsdp_model_states",
    "fsdp_strategy",
    "fused_buffer_bytes",
    "max_params",
    "min_devices",
    "pipeline_bubble",
    "residual",
    "stacked_bar_svg",
    "tensor_parallel_volume",
    "usable_memory",
    "activations",
    "attention_score_ratio",
    "bytes_per_param_per_device",
    "canonical_unit",
    "combine",
    "format_bytes",
    "korthikanti_per_layer",
    "model_states",
    "optimizer_multiplier",
    "parse_bytes",
    "parse_count",
    "state_parts",
    "to_unit",
]

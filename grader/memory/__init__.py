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
    microbatches=None, interleave=1, bytes_per_element=2) -> Breakdown``;
    ``korthikanti_per_layer(...)``; ``attention_score_ratio(hidden=, seq=, heads=)`` (5as/h).

Units
    ``GB``, ``GiB`` (and KB, MB, TB, KiB, MiB, TiB), ``parse_bytes(text)``, ``parse_count(text)``,
    ``format_bytes(n, unit="GB")``, ``to_unit(n, unit)``.
"""

from __future__ import annotations

from .activations import activations, attention_score_ratio, korthikanti_per_layer
from .breakdown import Breakdown, combine
from .model_states import (
    bytes_per_param_per_device,
    model_states,
    optimizer_multiplier,
    state_parts,
)
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

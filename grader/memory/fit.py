"""Fits or not: the largest model a device holds, and the fewest devices a model needs.

Model-state memory per device is linear in Ψ (ZeRO, arXiv:1910.02054, Section 5), so the largest
model is (usable memory) / (bytes per parameter per device), times the model-parallel degree, as in
ZeRO Table 2 ("Max Theoretical Model Size": 32 GB V100s, N_d = GPUs / MP). Anything besides model
states (activations, buffers, fragmentation) is a caller-given ``reserve`` in bytes, subtracted
openly, never guessed.
"""

from __future__ import annotations

import math

from .breakdown import Breakdown
from .model_states import bytes_per_param_per_device, model_states
from .units import parse_bytes
from .validation import check_int, check_params

#: Relative slack for floating-point rounding when comparing a total with a budget (one part in
#: 10**12, a few bytes on a GPU): 4Ψ + 12Ψ/45 for Ψ = 7.5B is exactly 32 GB.
TOLERANCE = 1e-12


def usable_memory(device_memory: int | float | str, *, reserve: int | float | str = 0) -> float:
    """Device memory left for model states after a caller-given ``reserve`` (bytes or text)."""
    total = parse_bytes(device_memory)
    left = total - parse_bytes(reserve)
    if left <= 0:
        raise ValueError(
            f"the reserve ({parse_bytes(reserve)} bytes) leaves nothing of {total} bytes of memory"
        )
    return left


def max_params(
    device_memory: int | float | str,
    *,
    optimizer: str = "adam",
    precision: str = "mixed",
    dp: int = 1,
    zero: int = 0,
    offload_optimizer: bool = False,
    mp: int = 1,
    reserve: int | float | str = 0,
) -> int:
    """The largest parameter count whose model states fit ``device_memory`` on every device.

    Ψ_max = mp × (device_memory - reserve) / (model-state bytes per parameter per device), rounded
    down; ``dp`` is N_d, the data-parallel degree (ZeRO Section 5, Table 2 "Max Theoretical Model
    Size"; e.g. 32 GB, N_d = 64: 2B with no ZeRO, 7.6B with P_os, 14.4B with P_os+g, 128B with
    P_os+g+p).
    """
    mp = check_int("mp", mp, minimum=1)
    per_param = bytes_per_param_per_device(
        optimizer=optimizer,
        precision=precision,
        dp=dp,
        zero=zero,
        offload_optimizer=offload_optimizer,
    )
    return math.floor(mp * usable_memory(device_memory, reserve=reserve) / per_param)


def min_devices(
    params: int | float | str,
    device_memory: int | float | str,
    *,
    optimizer: str = "adam",
    precision: str = "mixed",
    zero: int = 3,
    offload_optimizer: bool = False,
    reserve: int | float | str = 0,
    limit: int = 2**24,
) -> int | None:
    """The fewest data-parallel devices N_d on which the model states of ``params`` fit.

    Uses :func:`model_states` (ZeRO Section 5: per-device memory falls with N_d only for the
    partitioned parts). Returns ``None`` when no N_d up to ``limit`` is enough, e.g. with no ZeRO
    (stage 0 replicates everything) or when the replicated fp16 parameters alone exceed the device.
    """
    psi = check_params(params)
    budget = usable_memory(device_memory, reserve=reserve)
    limit = check_int("limit", limit, minimum=1)

    def fits(n: int) -> bool:
        states = model_states(
            psi,
            optimizer=optimizer,
            precision=precision,
            dp=n,
            zero=zero,
            offload_optimizer=offload_optimizer,
        )
        return states.total <= budget * (1 + TOLERANCE)

    if not fits(limit):
        return None
    low, high = 1, limit
    while low < high:
        mid = (low + high) // 2
        if fits(mid):
            high = mid
        else:
            low = mid + 1
    return low


def fits(
    required: Breakdown | int | float | str,
    device_memory: int | float | str,
    *,
    reserve: int | float | str = 0,
) -> bool:
    """Whether ``required`` bytes (or a :class:`Breakdown`'s total) fit in ``device_memory``."""
    need = required.total if isinstance(required, Breakdown) else parse_bytes(required)
    return need <= (parse_bytes(device_memory) - parse_bytes(reserve)) * (1 + TOLERANCE)

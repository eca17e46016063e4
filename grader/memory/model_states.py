"""Model states: parameters, gradients and optimizer state, per device, under ZeRO stages 0-3.

Source: Rajbhandari et al., ZeRO (arXiv:1910.02054), Section 3.1 and Section 5. Mixed-precision
Adam keeps, per parameter, an fp16 copy of the parameters (2 bytes) and gradients (2 bytes), and an
fp32 copy of the parameters, momentum and variance (K = 12 bytes): 16Ψ bytes for Ψ parameters.
ZeRO-DP over N_d devices partitions the optimizer state (stage 1, P_os: 4Ψ + KΨ/N_d), then the
gradients (stage 2, P_os+g: 2Ψ + (2+K)Ψ/N_d), then the parameters (stage 3, P_os+g+p:
(2+2+K)Ψ/N_d).
"""

from __future__ import annotations

from collections import namedtuple

from . import sources
from .breakdown import Breakdown, whole
from .validation import check_choice, check_int, check_params

#: The three kinds of model state; ZeRO stage s partitions the first s of
#: ("optimizer", "gradients", "parameters").
CATEGORIES = ("parameters", "gradients", "optimizer")
ZERO_NAMES = {0: "plain data parallelism", 1: "P_os", 2: "P_os+g", 3: "P_os+g+p"}
PRECISIONS = ("mixed", "fp16", "bf16", "fp32")
OPTIMIZERS = ("adam", "adamw", "adam-8bit", "sgd", "sgd-momentum")

#: bitsandbytes / Dettmers et al. 2022 quantize each state in blocks of 2048 values and keep one
#: fp32 absolute maximum per block.
ADAM_8BIT_BLOCK = 2048


class StatePart(namedtuple("StatePart", "name bytes_per_param category")):
    """One named part of the model states: bytes per parameter and which ZeRO stage shards it.

    Fields: name (str), bytes_per_param (float), category ("parameters", "gradients" or
    "optimizer").
    """

    __slots__ = ()


def state_parts(optimizer: str = "adam", precision: str = "mixed") -> tuple[StatePart, ...]:
    """The named parts of the model states for one optimizer and precision, in bytes per parameter.

    Sources: ZeRO Section 3.1 (mixed-precision Adam: 2 + 2 + 12 bytes; K = 12), Micikevicius et al.
    2018 (fp32 master weights in mixed precision), Dettmers et al. 2022 (8-bit Adam: one byte per
    state plus one fp32 scale per block of 2048). ``precision``: "mixed"/"fp16" (fp16 compute copy
    with fp32 master), "bf16" (the same with bf16 compute copy), "fp32" (no master copy).
    """
    optimizer = check_choice("optimizer", optimizer, OPTIMIZERS)
    precision = check_choice("precision", precision, PRECISIONS)
    parts: list[StatePart] = []
    if precision == "fp32":
        parts.append(StatePart("fp32 parameters", 4, "parameters"))
        parts.append(StatePart("fp32 gradients", 4, "gradients"))
    else:
        low = "bf16" if precision == "bf16" else "fp16"
        parts.append(StatePart(f"{low} parameters", 2, "parameters"))
        parts.append(StatePart(f"{low} gradients", 2, "gradients"))
        parts.append(StatePart("fp32 master parameters", 4, "optimizer"))
    if optimizer in {"adam", "adamw"}:
        parts.append(StatePart("fp32 momentum", 4, "optimizer"))
        parts.append(StatePart("fp32 variance", 4, "optimizer"))
    elif optimizer == "adam-8bit":
        parts.append(StatePart("8-bit momentum", 1, "optimizer"))
        parts.append(StatePart("8-bit variance", 1, "optimizer"))
        parts.append(StatePart("8-bit block scales (fp32)", 2 * 4 / ADAM_8BIT_BLOCK, "optimizer"))
    elif optimizer == "sgd-momentum":
        parts.append(StatePart("fp32 momentum", 4, "optimizer"))
    return tuple(parts)


def optimizer_multiplier(optimizer: str = "adam", precision: str = "mixed") -> float:
    """K, the bytes of optimizer state per parameter (ZeRO Section 3.1; K = 12 for mixed Adam)."""
    return sum(
        p.bytes_per_param for p in state_parts(optimizer, precision) if p.category == "optimizer"
    )


def model_states(
    params: int | float | str,
    *,
    optimizer: str = "adam",
    precision: str = "mixed",
    dp: int = 1,
    zero: int = 0,
    offload_optimizer: bool = False,
) -> Breakdown:
    """Model-state memory per device for ``params`` (Ψ) parameters on ``dp`` (N_d) devices.

    Source: ZeRO (arXiv:1910.02054) Section 3.1 (16Ψ bytes for mixed-precision Adam) and
    Section 5.1-5.3 / Figure 1 (stage 1 P_os: 4Ψ + KΨ/N_d; stage 2 P_os+g: 2Ψ + (2+K)Ψ/N_d;
    stage 3 P_os+g+p: (2+2+K)Ψ/N_d). With ``offload_optimizer`` (ZeRO-Offload, arXiv:2101.06840)
    the optimizer-state parts (fp32 master parameters, momentum, variance) move to ``host_parts``
    (CPU memory, still partitioned over the N_d processes) and leave the device total.

    >>> model_states(7.5e9, dp=64, zero=1).total / 1e9
    31.40625
    """
    psi = check_params(params)
    dp = check_int("dp", dp, minimum=1)
    zero = check_int("zero", zero, minimum=0)
    if zero > 3:
        raise ValueError(f"zero must be 0, 1, 2 or 3, got {zero}")
    if not isinstance(offload_optimizer, bool):
        raise ValueError("offload_optimizer must be True or False")
    if offload_optimizer and zero == 0:
        raise ValueError(
            "offload_optimizer needs ZeRO stage 1, 2 or 3 (ZeRO-Offload offloads the partitioned "
            "optimizer state); use zero=1 or more"
        )
    sharded = set(("optimizer", "gradients", "parameters")[:zero])
    device: dict[str, float] = {}
    host: dict[str, float] = {}
    for part in state_parts(optimizer, precision):
        per_device = part.bytes_per_param * psi
        if part.category in sharded:
            per_device = per_device / dp
        if offload_optimizer and part.category == "optimizer":
            host[part.name] = per_device
        else:
            device[part.name] = per_device
    notes = []
    if zero and dp == 1:
        notes.append(
            "with one device ZeRO partitions nothing: every stage equals plain data parallelism"
        )
    return Breakdown(
        parts=device,
        host_parts=host,
        method=f"ZeRO stage {zero}: {ZERO_NAMES[zero]}",
        source=sources.ZERO_MODEL_STATES
        + ("; " + sources.ZERO_OFFLOAD if offload_optimizer else ""),
        inputs={
            "params": whole(psi),
            "optimizer": optimizer.lower(),
            "precision": precision.lower(),
            "dp": dp,
            "zero": zero,
            "offload_optimizer": offload_optimizer,
        },
        notes=tuple(notes),
        kind="model states",
    )


def bytes_per_param_per_device(
    *,
    optimizer: str = "adam",
    precision: str = "mixed",
    dp: int = 1,
    zero: int = 0,
    offload_optimizer: bool = False,
) -> float:
    """Device bytes of model state per parameter under a configuration (e.g. 16 for ZeRO-0 Adam)."""
    return model_states(
        1,
        optimizer=optimizer,
        precision=precision,
        dp=dp,
        zero=zero,
        offload_optimizer=offload_optimizer,
    ).total

"""Residual memory the course names: temporary fused buffers and a caller-given allowance.

Source: Rajbhandari et al., ZeRO (arXiv:1910.02054) Section 3.2: gradient all-reduce and norm
computation fuse all gradients into one flattened buffer, which can be fp32: "for a model with 1.5B
parameters, a flattened fp32 buffer would require 6 GB" (4Ψ bytes); Section 6.2 (ZeRO-R C_B): a
constant-size buffer instead, independent of model size. Fragmentation ("out of memory with over
30% of memory still available in some extreme cases", Section 3.2) has no formula: the caller
states an allowance, and it shows as its own named part, never folded in silently.
"""

from __future__ import annotations

from . import sources
from .breakdown import Breakdown, whole
from .units import parse_bytes
from .validation import check_params, check_positive


def fused_buffer_bytes(params: int | float | str, *, bytes_per_element: int = 4) -> int | float:
    """Bytes of one flattened buffer over all Ψ gradients: 4Ψ for fp32 (ZeRO Section 3.2, 6.2).

    >>> fused_buffer_bytes(1.5e9) / 1e9   # ZeRO Section 3.2: 6 GB for 1.5B parameters
    6.0
    """
    psi = check_params(params)
    return whole(psi * check_positive("bytes_per_element", bytes_per_element))


def residual(
    *,
    params: int | float | str | None = None,
    fused_buffer_bytes_per_element: int | None = 4,
    constant_buffer: int | float | str | None = None,
    allowance: int | float | str = 0,
    allowance_label: str = "fragmentation / headroom allowance (given)",
) -> Breakdown:
    """Residual memory per device, as named parts.

    - a fused gradient buffer of ``fused_buffer_bytes_per_element`` × Ψ bytes (4Ψ for fp32;
      ZeRO Section 3.2), or, with ``constant_buffer`` (bytes or text such as "2 GB"), ZeRO-R's
      constant-size buffer C_B instead (ZeRO Section 6.2); ``fused_buffer_bytes_per_element=None``
      leaves the buffer out;
    - ``allowance`` (bytes or text): fragmentation and headroom stated by the caller, shown as its
      own part (ZeRO Section 3.2 gives no formula for it).
    """
    parts: dict[str, int | float] = {}
    inputs: dict[str, object] = {"params": params, "allowance": allowance}
    if constant_buffer is not None:
        parts["constant-size fused buffer (ZeRO-R C_B)"] = parse_bytes(constant_buffer)
        inputs["constant_buffer"] = parts["constant-size fused buffer (ZeRO-R C_B)"]
    elif fused_buffer_bytes_per_element is not None:
        if params is None:
            raise ValueError("a fused buffer needs params (its size is proportional to Ψ)")
        size = fused_buffer_bytes_per_element
        label = {4: "fp32", 2: "fp16"}.get(size, f"{size}-byte")
        parts[f"fused {label} gradient buffer ({size}Ψ)"] = fused_buffer_bytes(
            params, bytes_per_element=size
        )
        inputs["params"] = whole(check_params(params))
    allowance_bytes = parse_bytes(allowance)
    if allowance_bytes:
        parts[allowance_label] = allowance_bytes
    return Breakdown(
        parts=parts,
        method="residual",
        source=sources.ZERO_RESIDUAL + "; allowance " + sources.CALLER,
        inputs=inputs,
        kind="residual memory",
    )

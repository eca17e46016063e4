"""Activation memory of one forward pass: counted saved tensors and, on a GPU, the allocator.

Measured: ``memory_allocated`` after the last layer minus before the first one. The first layer
keeps the stack's input, which was allocated before we start; the last layer's output is
allocated inside but kept by the final LayerNorm, outside the layers. Both are ``2sbh`` bytes and
are added and taken away explicitly, so the measurement covers the L layers that the formulas of
Korthikanti et al. count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from labkit.counting import SavedActivations
from labkit.device import allocated, peak_allocated, reset_peak, warm_up
from labkit.gpt import GPT, random_batch


@dataclass
class ActivationMemory:
    counted: dict[str, int]  # every part, including "not in the formula: ..."
    in_formula: dict[str, int]  # the parts Korthikanti et al. count
    per_layer: list[int]
    measured_layers: int | None  # allocator bytes kept by the L layers after the forward pass
    peak: int | None  # peak allocator bytes above the model during forward + backward


def measure(model: GPT, seq: int, batch: int, device: torch.device) -> ActivationMemory:
    """One forward and backward pass; activations counted (any device) and measured (CUDA)."""
    tokens, targets = random_batch(model.cfg, seq, batch, device)
    warm_up(device, next(model.parameters()).dtype)  # cuBLAS workspaces before counting starts
    first, last = model.blocks[0], model.blocks[-1]
    marks: dict[str, Any] = {}

    def before(module: nn.Module, inputs: tuple[torch.Tensor, ...]) -> None:
        marks["before"] = allocated(device)
        marks["input"] = inputs[0].numel() * inputs[0].element_size()

    def after(module: nn.Module, inputs: tuple[torch.Tensor, ...], out: torch.Tensor) -> None:
        marks["after"] = allocated(device)
        marks["output"] = out.numel() * out.element_size()

    handles = [first.register_forward_pre_hook(before), last.register_forward_hook(after)]
    start = allocated(device)
    reset_peak(device)
    try:
        with SavedActivations(model) as saved:
            loss = model(tokens, targets)
        loss.backward()
    finally:
        for h in handles:
            h.remove()
    del loss
    model.zero_grad(set_to_none=True)
    measured = None
    if marks.get("before") is not None:
        measured = marks["after"] - marks["before"] + marks["input"] - marks["output"]
    peak = peak_allocated(device)
    return ActivationMemory(
        counted=dict(saved.parts),
        in_formula=saved.in_formula(),
        per_layer=list(saved.per_layer),
        measured_layers=measured,
        peak=None if peak is None or start is None else peak - start,
    )

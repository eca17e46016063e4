"""One training step of the GPT-2-style model with mixed-precision Adam, measured part by part.

Lesson 8's lab and its DDP worker use :func:`one_step`. On a GPU each part is measured as the
change in ``torch.cuda.memory_allocated`` when that part comes into existence; on any device the
same parts are counted as tensor bytes, and ``grader.memory.model_states`` predicts them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn

from labkit.counting import count_parts
from labkit.device import allocated, peak_allocated, reset_peak, warm_up
from labkit.gpt import GPT, GPTConfig, parameter_count, random_batch
from labkit.mixed_adam import MixedPrecisionAdam


@dataclass
class StepMemory:
    """Model-state bytes after the first optimizer step: counted, and measured on a GPU."""

    params: int
    counted: dict[str, int]
    measured: dict[str, int | None] = field(default_factory=dict)
    measured_total: int | None = None
    peak: int | None = None


def one_step(
    cfg: GPTConfig,
    device: torch.device,
    dtype: torch.dtype,
    *,
    seq: int,
    batch: int,
    wrap: Callable[[nn.Module], nn.Module] | None = None,
    seed: int = 0,
) -> StepMemory:
    """Build the model on ``device`` in ``dtype``, run forward, backward and one Adam step.

    ``wrap`` (e.g. DDP) is applied after the model is on the device; memory it allocates (DDP's
    gradient buckets) is filed under the gradients, which live in those buckets.
    """
    tokens, targets = random_batch(cfg, seq, batch, device, seed=seed)
    warm_up(device, dtype)
    marks: dict[str, int | None] = {"start": allocated(device)}
    reset_peak(device)
    torch.manual_seed(seed)
    model: nn.Module = GPT(cfg).to(device=device, dtype=dtype)
    marks["parameters"] = allocated(device)
    if wrap is not None:
        model = wrap(model)
    marks["wrapped"] = allocated(device)

    def mark(part: str) -> None:
        marks[part] = allocated(device)

    optimizer = MixedPrecisionAdam(model.parameters(), on_allocate=mark)
    loss = model(tokens, targets)
    loss.backward()
    del loss
    marks["backward"] = allocated(device)
    optimizer.step()
    marks["step"] = allocated(device)

    names = list(optimizer.parts())  # "<low> parameters", "<low> gradients", fp32 parts
    measured: dict[str, int | None] = dict.fromkeys(names)
    if marks["start"] is not None:
        m = {k: int(v) for k, v in marks.items() if v is not None}
        measured = {
            names[0]: m["parameters"] - m["start"],
            names[1]: (m["wrapped"] - m["parameters"]) + (m["backward"] - m[names[2]]),
            names[2]: m[names[2]] - m["wrapped"],
            names[3]: m[names[3]] - m["backward"],
            names[4]: m[names[4]] - m[names[3]],
        }
    start = marks["start"]
    return StepMemory(
        params=parameter_count(cfg),
        counted=count_parts(optimizer.parts()),
        measured=measured,
        measured_total=None if start is None else int(marks["step"] or 0) - start,
        peak=None if start is None else int(peak_allocated(device) or 0) - start,
    )

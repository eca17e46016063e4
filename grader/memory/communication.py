"""Communication volume per step: data parallelism and ZeRO, tensor parallelism, pipeline bubble.

Sources:
- Rajbhandari et al., ZeRO (arXiv:1910.02054) Section 7: a data-parallel all-reduce is a
  reduce-scatter plus an all-gather, Ψ elements each, 2Ψ per step; P_os and P_os+g also move 2Ψ
  (reduce-scatter of gradients, all-gather of parameters); P_os+g+p moves 3Ψ (parameters are
  all-gathered in the forward and again in the backward pass): 1.5× the baseline.
- ZeRO Section 8 (after Megatron-LM, arXiv:1909.08053): each transformer block does two all-reduces
  of batch × seq × hidden in the forward pass, two in the backward pass and two more in the forward
  recomputation when activations are checkpointed; an all-reduce moves 2 × its message size.
  ZeRO-R's partitioned activation checkpoints add one all-gather of the message size per block.
- Korthikanti et al. 2022 (arXiv:2205.05198) Section 4.2.2: with sequence parallelism the
  all-reduces become all-gathers and reduce-scatters of the same total volume.
- Narayanan et al. 2021 (arXiv:2104.04473) Section 2.2: pipeline bubble fraction (p-1)/m for p
  stages and m micro-batches; (p-1)/(v·m) with the interleaved schedule of v chunks per device.
"""

from __future__ import annotations

from . import sources
from .breakdown import Breakdown, whole
from .validation import check_choice, check_int, check_params


def data_parallel_volume(
    params: int | float | str,
    *,
    zero: int = 0,
    bytes_per_element: int = 2,
    dp: int | None = None,
) -> Breakdown:
    """Bytes each data-parallel device sends and receives per step, as named collectives.

    ZeRO Section 7: 2Ψ elements for plain DP and stages 1-2, 3Ψ for stage 3 (fp16: 2 bytes each).
    The paper's count leaves out the ring factor (N_d - 1)/N_d; give ``dp`` to apply it.
    """
    psi = check_params(params)
    zero = check_int("zero", zero, minimum=0)
    if zero > 3:
        raise ValueError(f"zero must be 0, 1, 2 or 3, got {zero}")
    size = check_int("bytes_per_element", bytes_per_element, minimum=1)
    ring = 1.0
    notes = ["volumes in the ZeRO paper's convention: Ψ elements per reduce-scatter or all-gather"]
    if dp is not None:
        n = check_int("dp", dp, minimum=1)
        ring = (n - 1) / n
        notes.append(f"ring factor (N_d - 1)/N_d = {ring:.4g} applied")
    unit = psi * size * ring
    if zero == 0:
        parts = {"gradient all-reduce (reduce-scatter Ψ + all-gather Ψ)": 2 * unit}
    elif zero in (1, 2):
        parts = {
            "gradient reduce-scatter (Ψ)": unit,
            "parameter all-gather after the update (Ψ)": unit,
        }
    else:
        parts = {
            "parameter all-gather, forward (Ψ)": unit,
            "parameter all-gather, backward (Ψ)": unit,
            "gradient reduce-scatter (Ψ)": unit,
        }
    return Breakdown(
        parts=parts,
        method=f"ZeRO stage {zero} data parallelism",
        source=sources.ZERO_COMMUNICATION,
        inputs={"params": whole(psi), "zero": zero, "bytes_per_element": size, "dp": dp},
        notes=tuple(notes),
        kind="communication per step",
    )


def tensor_parallel_volume(
    *,
    hidden: int,
    seq: int,
    batch: int,
    layers: int = 1,
    recompute: str = "none",
    sequence_parallel: bool = False,
    partition_activations: bool = False,
    bytes_per_element: int = 2,
) -> Breakdown:
    """Tensor-parallel (Megatron-LM) traffic per device per step, as named collectives.

    ZeRO Section 8: per transformer block, two all-reduces of b·s·h in the forward pass, two in the
    backward pass, two more when the forward is recomputed (``recompute="full"``); an all-reduce
    moves 2 × its message size, so a block moves 12·b·s·h elements with recomputation. With
    ``partition_activations`` (ZeRO-R P_a) add one all-gather of b·s·h per block. Korthikanti et
    al. 2022 Section 4.2.2: sequence parallelism keeps the same volume (all-gather +
    reduce-scatter in place of each all-reduce).
    """
    h = check_int("hidden", hidden, minimum=1)
    s = check_int("seq", seq, minimum=1)
    b = check_int("batch", batch, minimum=1)
    n_layers = check_int("layers", layers, minimum=1)
    recompute = check_choice("recompute", recompute, ("none", "selective", "full"))
    size = check_int("bytes_per_element", bytes_per_element, minimum=1)
    message = b * s * h * size
    kind = "all-gather + reduce-scatter" if sequence_parallel else "all-reduce"
    parts = {
        f"forward {kind} (2 per layer)": 2 * 2 * message * n_layers,
        f"backward {kind} (2 per layer)": 2 * 2 * message * n_layers,
    }
    if recompute == "full":
        parts[f"recomputed forward {kind} (2 per layer)"] = 2 * 2 * message * n_layers
    if partition_activations:
        parts["activation-checkpoint all-gather (P_a, 1 per layer)"] = message * n_layers
    notes = ["an all-reduce counts 2 × its message size (ZeRO Section 8)"]
    if recompute == "selective":
        notes.append(
            "selective recomputation re-runs attention internals only: no extra collective"
        )
    return Breakdown(
        parts=parts,
        method="Megatron-LM tensor parallelism"
        + (" + sequence parallelism" if sequence_parallel else ""),
        source=sources.ZERO
        + ", Section 8; "
        + sources.MEGATRON
        + "; "
        + sources.KORTHIKANTI
        + ", Section 4.2.2",
        inputs={
            "hidden": h,
            "seq": s,
            "batch": b,
            "layers": n_layers,
            "recompute": recompute,
            "sequence_parallel": sequence_parallel,
            "partition_activations": partition_activations,
            "bytes_per_element": size,
        },
        notes=tuple(notes),
        kind="communication per step",
    )


def pipeline_bubble(stages: int, microbatches: int, *, interleave: int = 1) -> float:
    """Fraction of ideal step time lost to the pipeline bubble: (p - 1)/(v·m).

    Narayanan et al. 2021 (arXiv:2104.04473) Section 2.2.1 (GPipe / 1F1B: (p-1)/m) and 2.2.2
    (interleaved schedule with v model chunks per device: (p-1)/(v·m)).

    >>> pipeline_bubble(8, 32), pipeline_bubble(8, 32, interleave=4)
    (0.21875, 0.0546875)
    """
    p = check_int("stages", stages, minimum=1)
    m = check_int("microbatches", microbatches, minimum=1)
    v = check_int("interleave", interleave, minimum=1)
    return (p - 1) / (v * m)

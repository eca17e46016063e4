"""Activation memory of a transformer, by two published models that disagree (say which you use).

- ``method="zero-paper"``: Rajbhandari et al., ZeRO (arXiv:1910.02054) Section 3.2: activations
  are about 12 × hidden × batch × seq × layers elements of 2 bytes (GPT-2 1.5B, seq 1024, batch
  32: about 60 GB). A coarse count, with no tensor-parallel or recomputation form.
- ``method="korthikanti"``: Korthikanti et al. 2022 (arXiv:2205.05198) Section 4: per layer
  sbh(34 + 5as/h) bytes (16-bit activations, 1-byte dropout masks) without parallelism (Eq. 1);
  sbh(10 + 24/t + 5as/(ht)) with tensor parallelism t (Eq. 2); sbh/t · (34 + 5as/h) with sequence
  parallelism (Eq. 4); the first pipeline stage holds L layers' worth, sbhL/t · (34 + 5as/h)
  (Eq. 5), times (1 + (p-1)/(p·m)) with the interleaved schedule of m interleaving stages;
  selective recomputation drops the 5as/h term (Eq. 6: 34·sbhL/t with sequence parallelism);
  full recomputation keeps only each layer's input, 2sbhL (Section 5). Section 4.3's extra terms
  (embedding dropout, last layer norm, output layer and loss) are added when ``vocab`` is given.
"""

from __future__ import annotations

from . import sources
from .breakdown import Breakdown
from .validation import check_choice, check_int

METHODS = ("zero-paper", "korthikanti")
RECOMPUTE = ("none", "selective", "full")


def activations(
    *,
    hidden: int,
    layers: int,
    seq: int,
    batch: int,
    heads: int | None = None,
    method: str = "zero-paper",
    tp: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
    pipeline: int = 1,
    interleave: int = 1,
    vocab: int | None = None,
    bytes_per_element: int = 2,
) -> Breakdown:
    """Activation memory per device, in bytes, with the model used named in ``.method``.

    ``hidden`` h, ``layers`` L, ``seq`` s, ``batch`` b (the micro-batch on one device), ``heads``
    a (needed by "korthikanti"), ``tp`` t (tensor-parallel size), ``sequence_parallel``,
    ``recompute`` ("none" | "selective" | "full"), ``pipeline`` p and ``interleave`` m (the
    interleaving stages of Megatron-LM's interleaved schedule); the result is for the first
    pipeline stage, which holds the most. ``vocab`` v adds Section 4.3's terms outside the layers.

    Sources: ZeRO (arXiv:1910.02054) Section 3.2 and footnote 3 for "zero-paper" (12·h·b·s·L
    elements of ``bytes_per_element`` bytes); Korthikanti et al. 2022 (arXiv:2205.05198) for
    "korthikanti": Eq. 1 sbh(34 + 5as/h) per layer; Eq. 2 sbh(10 + 24/t + 5as/(ht)); Eq. 4
    sbh/t·(34 + 5as/h); Eq. 5 first stage sbhL/t·(34 + 5as/h), scaled by (1 + (p-1)/(pm)) when
    interleaved; Eq. 6 selective recomputation 34·sbhL/t; Section 5 full recomputation 2sbhL;
    Table 2 (per-layer forms); Section 4.3 sbhL/t·(p/L + δ_{p=1}·4/L·(1 + v/h)).
    """
    method = check_choice("method", method, METHODS)
    recompute = check_choice("recompute", recompute, RECOMPUTE)
    h = check_int("hidden", hidden, minimum=1)
    n_layers = check_int("layers", layers, minimum=1)
    s = check_int("seq", seq, minimum=1)
    b = check_int("batch", batch, minimum=1)
    t = check_int("tp", tp, minimum=1)
    p = check_int("pipeline", pipeline, minimum=1)
    m = check_int("interleave", interleave, minimum=1)
    if not isinstance(sequence_parallel, bool):
        raise ValueError("sequence_parallel must be True or False")
    inputs: dict[str, object] = {
        "hidden": h,
        "layers": n_layers,
        "seq": s,
        "batch": b,
        "heads": heads,
        "method": method,
        "tp": t,
        "sequence_parallel": sequence_parallel,
        "recompute": recompute,
        "pipeline": p,
        "interleave": m,
        "vocab": vocab,
    }
    if method == "zero-paper":
        if t != 1 or sequence_parallel or recompute != "none" or p != 1 or m != 1 or vocab:
            raise ValueError(
                "the ZeRO paper's estimate (12·h·b·s·L) has no tensor-parallel, sequence-parallel, "
                "pipeline, vocabulary or recomputation form; use method='korthikanti'"
            )
        size = check_int("bytes_per_element", bytes_per_element, minimum=1)
        inputs["bytes_per_element"] = size
        elements = 12 * h * b * s * n_layers
        return Breakdown(
            parts={f"activations (12·h·b·s·L elements × {size} bytes)": elements * size},
            method="zero-paper",
            source=sources.ZERO_ACTIVATIONS,
            inputs=inputs,
            notes=(
                "a coarse estimate; Korthikanti et al. 2022 count sbh(34 + 5as/h) bytes per layer, "
                "which is larger",
            ),
            kind="activations",
        )

    if heads is None:
        raise ValueError("method='korthikanti' needs heads (the number of attention heads a)")
    a = check_int("heads", heads, minimum=1)
    if bytes_per_element != 2:
        raise ValueError("Korthikanti et al. count 16-bit activations; bytes_per_element must be 2")
    if sequence_parallel and t == 1:
        raise ValueError("sequence_parallel needs tp > 1 (it splits the tensor-parallel regions)")
    if m > 1 and p == 1:
        raise ValueError("interleave > 1 needs pipeline > 1")
    factor = 1 + (p - 1) / (p * m) if m > 1 else 1
    notes: list[str] = []
    if p > 1:
        notes.append(
            "first pipeline stage: p micro-batches in flight × L/p layers = L layers' worth (Eq. 5)"
        )
    if m > 1:
        notes.append(f"interleaved schedule: × (1 + (p-1)/(pm)) = × {factor:.4g} (Section 4.2.3)")

    sbh = s * b * h
    scores = 5 * a * s * s * b  # softmax output 2as²b, its dropout mask as²b, dropout output 2as²b
    per_layer: dict[str, float]
    if recompute == "full":
        per_layer = {"layer inputs (2sbh per layer)": 2 * sbh}
        notes.append(
            "full recomputation keeps only each layer's input, 2sbhL (Section 5); the layer being "
            "recomputed in the backward pass needs its own activations on top"
        )
    elif sequence_parallel:
        per_layer = {
            "attention (11sbh/t)": 11 * sbh / t,
            "attention scores (5as²b/t)": scores / t,
            "MLP (19sbh/t)": 19 * sbh / t,
            "layer norms (4sbh/t)": 4 * sbh / t,
        }
    elif t > 1:
        # Eq. 2: the 10sbh outside the tensor-parallel regions (layer-norm inputs 4, the inputs of
        # the attention and MLP blocks 2 + 2, their dropout masks 1 + 1) stay replicated.
        per_layer = {
            "attention (3sbh + 8sbh/t)": 3 * sbh + 8 * sbh / t,
            "attention scores (5as²b/t)": scores / t,
            "MLP (3sbh + 16sbh/t)": 3 * sbh + 16 * sbh / t,
            "layer norms (4sbh)": 4 * sbh,
        }
    else:
        per_layer = {
            "attention (11sbh)": 11 * sbh,
            "attention scores (5as²b)": scores,
            "MLP (19sbh)": 19 * sbh,
            "layer norms (4sbh)": 4 * sbh,
        }
    if recompute == "selective":
        per_layer = {k: val for k, val in per_layer.items() if not k.startswith("attention scores")}
        notes.append("selective recomputation recomputes the attention scores (the 5as/h term)")
    parts = {name: value * n_layers * factor for name, value in per_layer.items()}
    if vocab is None:
        notes.append(
            "excludes the embedding and output-layer activations (Section 4.3; pass vocab)"
        )
    else:
        v = check_int("vocab", vocab, minimum=1)
        if not sequence_parallel:
            notes.append("Section 4.3's terms outside the layers assume sequence parallelism (÷ t)")
        parts["embedding dropout (sbhp/t)"] = sbh * p / t
        if p == 1:
            parts["output layer and loss (4sbh/t·(1 + v/h))"] = 4 * sbh / t * (1 + v / h)
    return Breakdown(
        parts=parts,
        method="korthikanti",
        source=sources.KORTHIKANTI + ", Section 4 (Eq. 1, 2, 4, 5), Section 5 (Eq. 6), Table 2",
        inputs=inputs,
        notes=tuple(notes),
        kind="activations",
    )


def korthikanti_per_layer(
    *,
    hidden: int,
    seq: int,
    batch: int,
    heads: int,
    tp: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
) -> float:
    """Activation bytes of one transformer layer (Korthikanti et al. 2022, Eq. 1, 2 and 4)."""
    return activations(
        hidden=hidden,
        layers=1,
        seq=seq,
        batch=batch,
        heads=heads,
        method="korthikanti",
        tp=tp,
        sequence_parallel=sequence_parallel,
        recompute=recompute,
    ).total


def attention_score_ratio(*, hidden: int, seq: int, heads: int) -> float:
    """The 5as/h term of Korthikanti et al. 2022 Eq. 1, to compare with the 34 of the other terms.

    Korthikanti et al. Section 5: 80 for GPT-3 (a=96, s=2048, h=12288) and 64 for MT-NLG
    (a=128, s=2048, h=20480).
    """
    return (
        5
        * check_int("heads", heads, minimum=1)
        * check_int("seq", seq, minimum=1)
        / check_int("hidden", hidden, minimum=1)
    )

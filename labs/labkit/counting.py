"""Tensor bytes, counted part by part: what the memory model predicts, without an allocator.

``numel() * element_size()`` summed over the tensors of a part is exact on any device, so the smoke
mode can check it against ``grader.memory`` to the byte. ``torch.cuda.memory_allocated`` (the
measurement on a GPU) adds what the allocator does on top: 512-byte rounding, workspaces, caches.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import Any

import torch
from torch import nn

from labkit.gpt import GPT, Block

OUTSIDE = "not in the formula: embeddings, final LayerNorm, output layer, loss"
LN_STATS = "not in the formula: LayerNorm mean and rstd"
ATTENTION = "attention (11sbh)"
SCORES = "attention scores (5as²b)"
MLP_PART = "MLP (19sbh)"
LAYER_NORMS = "layer norms (4sbh)"
LAYER_INPUTS = "layer inputs (2sbh per layer)"


def tensor_bytes(tensors: Iterable[torch.Tensor]) -> int:
    """Sum of ``numel() * element_size()`` over distinct tensors."""
    seen: set[int] = set()
    total = 0
    for t in tensors:
        if id(t) not in seen:
            seen.add(id(t))
            total += t.numel() * t.element_size()
    return total


def count_parts(parts: Mapping[str, Iterable[torch.Tensor]]) -> dict[str, int]:
    """Bytes of every named part."""
    return {name: tensor_bytes(tensors) for name, tensors in parts.items()}


def _storage(t: torch.Tensor) -> tuple[int, int]:
    storage = t.untyped_storage()
    return storage.data_ptr(), storage.nbytes()


class SavedActivations:
    """Count, during a forward pass, the bytes autograd keeps for the backward pass.

    Uses ``torch.autograd.graph.saved_tensors_hooks``: every tensor saved for backward passes
    through ``pack``. A storage is counted once (Q, K and V are views of one tensor), parameters
    are skipped, and each storage is filed under the part of Korthikanti et al.'s count that the
    module saving it belongs to (the part names of ``grader.memory.activations``). What the paper
    leaves out is counted too, under names starting with "not in the formula".
    """

    def __init__(self, model: GPT) -> None:
        self.model = model
        self.params = {_storage(p)[0] for p in model.parameters()}
        self.seen: set[int] = set()
        self.parts: dict[str, int] = {}
        self.per_layer: list[int] = [0] * len(model.blocks)
        self._stack: list[tuple[str, int, set[int]]] = []
        self._handles: list[Any] = []
        self._saved_hooks: Any = None

    def _push(self, kind: str, layer: int) -> Any:
        def hook(module: nn.Module, inputs: tuple[Any, ...]) -> None:
            ptrs = {_storage(x)[0] for x in inputs if isinstance(x, torch.Tensor)}
            self._stack.append((kind, layer, ptrs))

        return hook

    def _pop(self, module: nn.Module, inputs: tuple[Any, ...], output: Any) -> None:
        self._stack.pop()

    def __enter__(self) -> SavedActivations:
        for i, block in enumerate(self.model.blocks):
            assert isinstance(block, Block)
            for kind, module in (
                ("block", block), ("ln", block.ln1), ("ln", block.ln2),
                ("attn", block.attn), ("core", block.attn.core), ("mlp", block.mlp),
            ):
                self._handles.append(module.register_forward_pre_hook(self._push(kind, i)))
                self._handles.append(module.register_forward_hook(self._pop))
        self._saved_hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)
        self._saved_hooks.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._saved_hooks.__exit__(exc_type, exc, tb)
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        self._stack.clear()

    def _part(self, ptr: int) -> tuple[str, int | None]:
        if not self._stack:
            return OUTSIDE, None
        kind, layer, inputs = self._stack[-1]
        if kind == "ln":
            return (LAYER_NORMS if ptr in inputs else LN_STATS), layer
        if kind == "core":
            return (ATTENTION if ptr in inputs else SCORES), layer
        if kind == "attn":
            return ATTENTION, layer
        if kind == "mlp":
            return MLP_PART, layer
        return LAYER_INPUTS, layer  # a whole layer under torch.utils.checkpoint keeps its input

    def _pack(self, t: torch.Tensor) -> torch.Tensor:
        ptr, nbytes = _storage(t)
        if ptr in self.params or ptr in self.seen or nbytes == 0:
            return t
        self.seen.add(ptr)
        part, layer = self._part(ptr)
        self.parts[part] = self.parts.get(part, 0) + nbytes
        if layer is not None and not part.startswith("not in the formula"):
            self.per_layer[layer] += nbytes
        return t

    @staticmethod
    def _unpack(t: torch.Tensor) -> torch.Tensor:
        return t

    def in_formula(self) -> dict[str, int]:
        """The parts Korthikanti et al. count, in ``grader.memory``'s order-independent form."""
        return {k: v for k, v in self.parts.items() if not k.startswith("not in the formula")}

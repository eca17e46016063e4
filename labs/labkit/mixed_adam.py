"""Mixed-precision Adam with its five model-state parts as real tensors (ZeRO Section 3.1).

The model holds the 16-bit parameters (2Ψ bytes) and, after the backward pass, the 16-bit
gradients (2Ψ). The optimizer holds an fp32 master copy of the parameters (4Ψ), Adam's fp32
momentum (4Ψ) and fp32 variance (4Ψ): 16Ψ bytes in all. Each step casts a gradient to fp32,
updates the master copy and copies it back into the 16-bit parameter (Micikevicius et al. 2018).
Loss scaling is left out: it changes no memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import torch

LOW_PRECISION = {torch.float16: "fp16", torch.bfloat16: "bf16"}


def precision_name(dtype: torch.dtype) -> str:
    """The ``precision`` argument of ``grader.memory.model_states`` for a 16-bit compute dtype."""
    if dtype == torch.float16:
        return "mixed"  # the ZeRO paper's fp16 mixed precision
    if dtype == torch.bfloat16:
        return "bf16"
    raise ValueError(f"mixed-precision Adam needs float16 or bfloat16 parameters, not {dtype}")


class MixedPrecisionAdam:
    """Adam over 16-bit parameters with fp32 master weights, momentum and variance.

    ``on_allocate(part_name)`` is called right after each fp32 part is allocated, so that a lab can
    read ``torch.cuda.memory_allocated`` part by part. The master copy is allocated at
    construction; momentum and variance at the first step, as ``torch.optim.Adam`` does.
    """

    def __init__(
        self,
        params: Iterable[torch.nn.Parameter],
        *,
        lr: float = 1e-4,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        on_allocate: Callable[[str], None] | None = None,
    ) -> None:
        self.params = [p for p in params if p.requires_grad]
        if not self.params:
            raise ValueError("no trainable parameters")
        dtypes = {p.dtype for p in self.params}
        if len(dtypes) != 1 or next(iter(dtypes)) not in LOW_PRECISION:
            raise ValueError(f"parameters must all be float16 or all bfloat16, got {dtypes}")
        self.dtype = next(iter(dtypes))
        self.low = LOW_PRECISION[self.dtype]
        self.lr, self.betas, self.eps = lr, betas, eps
        self.on_allocate = on_allocate or (lambda name: None)
        self.steps = 0
        with torch.no_grad():
            self.master = [p.detach().to(torch.float32, copy=True) for p in self.params]
        self.on_allocate("fp32 master parameters")
        self.momentum: list[torch.Tensor] = []
        self.variance: list[torch.Tensor] = []

    @torch.no_grad()
    def step(self) -> None:
        if not self.momentum:
            self.momentum = [torch.zeros_like(w) for w in self.master]
            self.on_allocate("fp32 momentum")
            self.variance = [torch.zeros_like(w) for w in self.master]
            self.on_allocate("fp32 variance")
        self.steps += 1
        beta1, beta2 = self.betas
        correction1 = 1 - beta1**self.steps
        correction2 = 1 - beta2**self.steps
        for p, w, m, v in zip(self.params, self.master, self.momentum, self.variance, strict=True):
            if p.grad is None:
                continue
            g = p.grad.float()  # a temporary fp32 copy of one gradient, freed at once
            m.mul_(beta1).add_(g, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            denom = (v / correction2).sqrt_().add_(self.eps)
            w.addcdiv_(m, denom, value=-self.lr / correction1)
            p.copy_(w)  # back to 16 bits

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    def parts(self) -> dict[str, list[torch.Tensor]]:
        """Tensors of each model-state part, named as ``grader.memory.state_parts`` names them."""
        return {
            f"{self.low} parameters": [p.detach() for p in self.params],
            f"{self.low} gradients": [p.grad for p in self.params if p.grad is not None],
            "fp32 master parameters": list(self.master),
            "fp32 momentum": list(self.momentum),
            "fp32 variance": list(self.variance),
        }

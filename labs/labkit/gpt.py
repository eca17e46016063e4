"""A GPT-2-style decoder whose saved activations match Korthikanti et al. 2022, Section 4.1.

Layout ``[s, b, h]`` (sequence, batch, hidden) as in Megatron-LM. Each layer keeps, for the
backward pass: the two LayerNorm inputs (4sbh), the QKV input (2sbh), Q, K and V (6sbh, one
tensor), the softmax output (2as²b), its dropout mask (as²b, 1 byte per element), the dropout
output (2as²b), the projection input (2sbh), the attention-dropout mask (sbh), the MLP's first
input (2sbh), the GELU input (8sbh), the second MLP input (8sbh) and its dropout mask (sbh):
sbh(34 + 5as/h) bytes with 2-byte activations. Dropout calls ``torch.native_dropout`` so that the
mask is a 1-byte bool tensor on every device (PyTorch's CPU ``F.dropout`` keeps a 2-byte mask).

``recompute``: "none"; "selective" (the attention core, from the scores to the attention over V,
runs under ``torch.utils.checkpoint`` and is recomputed in the backward pass; Korthikanti et al.
Section 5); "full" (each whole layer is checkpointed and keeps only its input).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

RECOMPUTE = ("none", "selective", "full")


@dataclass(frozen=True)
class GPTConfig:
    """Sizes of the model: vocabulary V, context S (max positions), hidden h, layers L, heads a."""

    vocab: int = 50257
    context: int = 1024
    hidden: int = 768
    layers: int = 12
    heads: int = 12
    dropout: float = 0.1

    def __post_init__(self) -> None:
        if self.hidden % self.heads:
            raise ValueError(f"hidden ({self.hidden}) must be a multiple of heads ({self.heads})")

    def as_dict(self) -> dict[str, int | float]:
        return asdict(self)


def parameter_count(cfg: GPTConfig) -> int:
    """Ψ for this architecture: V·h + S·h (embeddings, LM head tied) + L(12h² + 13h) + 2h."""
    h = cfg.hidden
    return cfg.vocab * h + cfg.context * h + cfg.layers * (12 * h * h + 13 * h) + 2 * h


class Dropout(nn.Module):
    """Dropout through ``torch.native_dropout``: the kept mask is bool (1 byte per element)."""

    def __init__(self, p: float) -> None:
        super().__init__()
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return x
        out, _mask = torch.native_dropout(x, self.p, True)
        return out


class CoreAttention(nn.Module):
    """softmax(QKᵀ/√d) with dropout, times V, on ``[b·a, s, d]`` views (no copies are kept)."""

    def __init__(self, cfg: GPTConfig) -> None:
        super().__init__()
        self.scale = 1.0 / math.sqrt(cfg.hidden // cfg.heads)
        self.drop = Dropout(cfg.dropout)

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        seq = q.shape[1]
        # The causal mask as an additive bias: baddbmm keeps only Q and K for its backward pass
        # (a masked_fill would also keep an s×s bool mask, which the paper does not count).
        causal = torch.full((seq, seq), float("-inf"), dtype=q.dtype, device=q.device).triu(1)
        scores = torch.baddbmm(causal, q, k.transpose(1, 2), alpha=self.scale)
        probs = self.drop(torch.softmax(scores, dim=-1))
        return torch.bmm(probs, v)


class Attention(nn.Module):
    def __init__(self, cfg: GPTConfig, recompute: str) -> None:
        super().__init__()
        self.heads = cfg.heads
        self.qkv = nn.Linear(cfg.hidden, 3 * cfg.hidden)
        self.core = CoreAttention(cfg)
        self.proj = nn.Linear(cfg.hidden, cfg.hidden)
        self.drop = Dropout(cfg.dropout)
        self.selective = recompute == "selective"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s, b, h = x.shape
        a, d = self.heads, h // self.heads
        qkv = self.qkv(x).view(s, b * a, 3 * d)  # one tensor holds Q, K and V (Megatron layout)
        q, k, v = (qkv[..., i * d : (i + 1) * d].transpose(0, 1) for i in range(3))
        if self.selective:
            ctx = checkpoint(self.core, q, k, v, use_reentrant=True)
        else:
            ctx = self.core(q, k, v)
        ctx = ctx.transpose(0, 1).reshape(s, b, h)  # a copy, kept as the projection's input
        return self.drop(self.proj(ctx))


class MLP(nn.Module):
    def __init__(self, cfg: GPTConfig) -> None:
        super().__init__()
        self.fc1 = nn.Linear(cfg.hidden, 4 * cfg.hidden)
        self.fc2 = nn.Linear(4 * cfg.hidden, cfg.hidden)
        self.drop = Dropout(cfg.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(self.fc2(F.gelu(self.fc1(x))))


class Block(nn.Module):
    """Pre-LayerNorm transformer layer: x + attn(ln1(x)), then + mlp(ln2(·))."""

    def __init__(self, cfg: GPTConfig, recompute: str) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.hidden)
        self.attn = Attention(cfg, recompute)
        self.ln2 = nn.LayerNorm(cfg.hidden)
        self.mlp = MLP(cfg)
        self.full = recompute == "full"

    def layer(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.full:
            return checkpoint(self.layer, x, use_reentrant=True)
        return self.layer(x)


class GPT(nn.Module):
    """Token and position embeddings, L blocks, final LayerNorm, LM head tied to the embedding."""

    def __init__(self, cfg: GPTConfig, recompute: str = "none") -> None:
        super().__init__()
        if recompute not in RECOMPUTE:
            raise ValueError(f"recompute must be one of {RECOMPUTE}, got {recompute!r}")
        self.cfg = cfg
        self.wte = nn.Embedding(cfg.vocab, cfg.hidden)
        self.wpe = nn.Embedding(cfg.context, cfg.hidden)
        self.drop = Dropout(cfg.dropout)
        self.blocks = nn.ModuleList(Block(cfg, recompute) for _ in range(cfg.layers))
        self.ln_f = nn.LayerNorm(cfg.hidden)

    def forward(self, tokens: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """``tokens`` and ``targets`` are ``[s, b]`` integer tensors; returns the mean loss."""
        s = tokens.shape[0]
        pos = torch.arange(s, device=tokens.device)
        x = self.drop(self.wte(tokens) + self.wpe(pos)[:, None, :])
        for block in self.blocks:
            x = block(x)
        logits = F.linear(self.ln_f(x), self.wte.weight)
        return F.cross_entropy(logits.float().view(-1, logits.shape[-1]), targets.reshape(-1))


def random_batch(
    cfg: GPTConfig, seq: int, batch: int, device: torch.device, seed: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random token ids ``[s, b]`` and next-token targets, reproducible from ``seed``."""
    gen = torch.Generator().manual_seed(seed)
    tokens = torch.randint(cfg.vocab, (seq + 1, batch), generator=gen)
    return tokens[:-1].to(device), tokens[1:].to(device)

"""The published sources every formula in :mod:`grader.memory` comes from (one string each)."""

from __future__ import annotations

ZERO = (
    "Rajbhandari, Rasley, Ruwase, He. ZeRO: Memory Optimizations Toward Training Trillion "
    "Parameter Models. SC 2020, arXiv:1910.02054"
)
ZERO_MODEL_STATES = ZERO + ", Section 3.1 (2Ψ + 2Ψ + KΨ, K = 12) and Section 5 / Figure 1"
ZERO_ACTIVATIONS = ZERO + ", Section 3.2 (12 × hidden × batch × seq × layers activations)"
ZERO_RESIDUAL = ZERO + ", Section 3.2 (temporary buffers: fp32 fused buffer of 4Ψ bytes)"
ZERO_COMMUNICATION = (
    ZERO + ", Section 7 (communication volume: 2Ψ for DP and P_os+g, 3Ψ for P_os+g+p)"
)
KORTHIKANTI = (
    "Korthikanti, Casper, Lym, McAfee, Andersch, Shoeybi, Catanzaro. Reducing Activation "
    "Recomputation in Large Transformer Models. MLSys 2023, arXiv:2205.05198"
)
MEGATRON = (
    "Shoeybi, Patwary, Puri, LeGresley, Casper, Catanzaro. Megatron-LM: Training Multi-Billion "
    "Parameter Language Models Using Model Parallelism. arXiv:1909.08053, Section 3 (f and g)"
)
NARAYANAN = (
    "Narayanan, Shoeybi, Casper, LeGresley, Patwary, Korthikanti, et al. Efficient Large-Scale "
    "Language Model Training on GPU Clusters Using Megatron-LM. SC 2021, arXiv:2104.04473, "
    "Section 2.2 (bubble (p-1)/m; interleaved (p-1)/(v·m))"
)
ZERO_OFFLOAD = (
    "Ren, Rajbhandari, Aminabadi, Ruwase, Yang, Zhang, Li, He. ZeRO-Offload: Democratizing "
    "Billion-Scale Model Training. USENIX ATC 2021, arXiv:2101.06840"
)
ADAM_8BIT = (
    "Dettmers, Lewis, Shleifer, Zettlemoyer. 8-bit Optimizers via Block-wise Quantization. "
    "ICLR 2022, arXiv:2110.02861 (1 byte per state, block size 2048)"
)
MIXED_PRECISION = (
    "Micikevicius et al. Mixed Precision Training. ICLR 2018, arXiv:1710.03740 (fp32 master "
    "weights); byte counts as in ZeRO Section 3.1"
)
DEEPSPEED_ESTIMATOR = (
    "DeepSpeed documentation, 'Memory Requirements' (deepspeed.runtime.zero.stage3."
    "estimate_zero3_model_states_mem_needs_all_cold); numbers printed as 'GB' are bytes / 2**30"
)
FSDP = (
    "PyTorch documentation, torch.distributed.fsdp.ShardingStrategy (FULL_SHARD, SHARD_GRAD_OP, "
    "NO_SHARD, HYBRID_SHARD, _HYBRID_SHARD_ZERO2)"
)
CALLER = "given by the caller (an allowance, not a formula)"

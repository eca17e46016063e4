"""The ``torchrun`` worker of the DDP and FSDP measurements (one process per device).

    python -m torch.distributed.run --standalone --nproc_per_node N -m labkit.dist_states \
        --wrap ddp --out ddp-N.json [--smoke] [model sizes]

``--wrap ddp``: DistributedDataParallel (``gradient_as_bucket_view=True``) around the GPT-2-style
model with mixed-precision Adam: every rank holds all 16Ψ bytes. ``--wrap fsdp``: FSDP with
each transformer block as one unit, for each of ``--strategies`` in turn (NO_SHARD,
SHARD_GRAD_OP, FULL_SHARD), with the same optimizer over FSDP's flat parameter shards. NCCL on
GPUs, gloo on the CPU (``--smoke``). Rank 0 writes every rank's counts and measurements as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from torch import nn

from labkit.counting import count_parts
from labkit.device import (
    allocated,
    device_name,
    dtype_of,
    gpu_required_message,
    peak_allocated,
    reset_peak,
    warm_up,
)
from labkit.gpt import GPT, Block, GPTConfig, parameter_count, random_batch
from labkit.mixed_adam import MixedPrecisionAdam
from labkit.states import one_step

STRATEGIES = ("NO_SHARD", "SHARD_GRAD_OP", "FULL_SHARD")


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="labkit.dist_states")
    p.add_argument("--wrap", choices=("ddp", "fsdp"), required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--smoke", action="store_true", help="CPU and gloo instead of CUDA and NCCL")
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--strategies", default=",".join(STRATEGIES))
    for name, default in (("vocab", 50257), ("context", 1024), ("hidden", 768), ("layers", 12),
                          ("heads", 12), ("seq", 512), ("batch", 4)):
        p.add_argument(f"--{name}", type=int, default=default)
    return p.parse_args(argv)


def ddp_run(args: argparse.Namespace, cfg: GPTConfig, device: torch.device) -> dict[str, Any]:
    from torch.nn.parallel import DistributedDataParallel as DDP

    def wrap(model: nn.Module) -> nn.Module:
        ids = [device.index] if device.type == "cuda" else None
        return DDP(model, device_ids=ids, gradient_as_bucket_view=True)

    r = one_step(cfg, device, dtype_of(args.dtype), seq=args.seq, batch=args.batch, wrap=wrap,
                 seed=dist.get_rank())
    return {"counted": r.counted, "measured": r.measured, "measured_total": r.measured_total,
            "peak": r.peak}


def gathered_parameter_bytes(model: nn.Module) -> int | None:
    """Bytes of unsharded (gathered) flat parameters that FSDP holds right now.

    Reads FSDP1's ``_full_param_padded`` buffer (an internal attribute: None if a PyTorch version
    renames it). NO_SHARD never gathers: its flat parameters are whole already.
    """
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

    total = 0
    for module in model.modules():
        handle = getattr(module, "_handle", None) if isinstance(module, FSDP) else None
        if handle is None or not handle.uses_sharded_strategy:
            continue
        padded = getattr(handle.flat_param, "_full_param_padded", None)
        if padded is None:
            return None
        total += padded.untyped_storage().nbytes()
    return total


def fsdp_run(
    args: argparse.Namespace, cfg: GPTConfig, device: torch.device, strategy: str
) -> dict[str, Any]:
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torch.distributed.fsdp import ShardingStrategy
    from torch.distributed.fsdp.wrap import ModuleWrapPolicy

    dtype = dtype_of(args.dtype)
    tokens, targets = random_batch(cfg, args.seq, args.batch, device, seed=dist.get_rank())
    warm_up(device, dtype)
    start = allocated(device)
    reset_peak(device)
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # FSDP1's deprecation notice: this lab names its strategies
        model = FSDP(
            GPT(cfg).to(device=device, dtype=dtype),
            sharding_strategy=ShardingStrategy[strategy],
            auto_wrap_policy=ModuleWrapPolicy({Block}),
            device_id=device,
            use_orig_params=False,
        )
    optimizer = MixedPrecisionAdam(model.parameters())
    loss = model(tokens, targets)
    gathered = gathered_parameter_bytes(model)
    after_forward = allocated(device)
    loss.backward()
    del loss
    optimizer.step()
    counted = count_parts(optimizer.parts())
    end = allocated(device)
    peak = peak_allocated(device)
    result = {
        "strategy": strategy,
        "counted_after_step": counted,
        "gathered_after_forward": gathered,
        "measured_after_forward": None if start is None else int(after_forward or 0) - start,
        "measured_total": None if start is None else int(end or 0) - start,
        "peak": None if start is None else int(peak or 0) - start,
    }
    del model, optimizer
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return result


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    if not args.smoke and not torch.cuda.is_available():
        print(f"GPU lab stopped: {gpu_required_message('l08-model-states')}", file=sys.stderr)
        raise SystemExit(3)
    local = int(os.environ.get("LOCAL_RANK", "0"))
    if args.smoke:
        device = torch.device("cpu")
        dist.init_process_group("gloo")
    else:
        device = torch.device("cuda", local)
        torch.cuda.set_device(device)
        dist.init_process_group("nccl", device_id=device)
    cfg = GPTConfig(vocab=args.vocab, context=args.context, hidden=args.hidden,
                    layers=args.layers, heads=args.heads)
    try:
        if args.wrap == "ddp":
            runs = [ddp_run(args, cfg, device)]
        else:
            runs = [fsdp_run(args, cfg, device, s) for s in args.strategies.split(",")]
        record = {"rank": dist.get_rank(), "device": device_name(device), "runs": runs}
        records: list[Any] = [None] * dist.get_world_size()
        dist.all_gather_object(records, record)
        if dist.get_rank() == 0:
            payload = {
                "wrap": args.wrap,
                "world_size": dist.get_world_size(),
                "params": parameter_count(cfg),
                "config": cfg.as_dict(),
                "dtype": args.dtype,
                "seq": args.seq,
                "batch": args.batch,
                "ranks": records,
            }
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(payload, indent=1) + "\n")
        # Every rank waits here before tearing down: a rank that destroys its gloo group while
        # another still finishes its collective aborts ("terminate called without an active
        # exception"), about one run in six on 2 CPU cores.
        dist.barrier()
    finally:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

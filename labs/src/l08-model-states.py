# ruff: noqa: E402, F821  (cells: imports after the parameters; names from the setup cell)
# %% [meta]
# title: Model states on a real GPU: 16 bytes per parameter, and why data parallelism does not
#    shrink them
# lesson: 8
# measures: the memory of the parameters, gradients, fp32 master copy, momentum and variance of a
#    GPT-2-style model after its first mixed-precision Adam step, part by part against 16Ψ;
#    then the per-device memory under DDP on 1, 2, 4… GPUs
# hardware: one NVIDIA GPU with 8 GB or more (GPT-2 small, 124M parameters, needs about 2 GB of
#    model states); every GPU of the machine for the DDP part (two or more to see the point);
#    without a GPU, smoke mode runs on the CPU

# %% [markdown]
# # Lab · Lesson 8 — Model states on a real GPU
#
# Lesson 8 counts what "every device holds a full copy of the model" costs under mixed-precision
# Adam: an fp16 (or bf16) copy of the parameters (2 bytes per parameter) and of the gradients
# (2 bytes), and an fp32 master copy of the parameters, Adam's momentum and its variance
# (4 bytes each): **16Ψ bytes** for Ψ parameters (Rajbhandari et al., ZeRO, Section 3.1).
# This lab builds a GPT-2-style model and a mixed-precision Adam whose five parts are real
# tensors, runs one training step, and measures each part with `torch.cuda.memory_allocated`.
# Then it runs the same step under data parallelism (`torchrun`, DDP) on 1, 2, 4… GPUs and
# shows that the memory per device does not fall as devices are added.
#
# **Hardware.** One NVIDIA GPU with 8 GB or more for part 1 (the default GPT-2 small has
# 124M parameters: about 2 GB of model states, plus activations). Part 2 uses every GPU of the
# machine (at least two to see the point). Without a GPU, keep `SMOKE = True`: a tiny model runs
# on the CPU and the lab checks that the counted tensor bytes equal the memory model's prediction
# exactly; nothing is *measured* then.
#
# **Run it.** In a clone of the course repository, after `make venv` and
# `.venv/bin/pip install jupyterlab`: `jupyter lab labs/l08-model-states.ipynb`, set
# `SMOKE = False` and run all cells (or, without Jupyter's interface,
# `.venv/bin/python labs/run_notebook.py l08-model-states --gpu`). The measurements land in
# `labs/results/l08-model-states-<time>.json`, with a plot beside it.

# %% tags=["parameters"]
SMOKE = True  # True: tiny model on the CPU, counted bytes only. False: measure on the GPU(s).
DTYPE = "bfloat16"  # "float16" on GPUs without bfloat16 (V100, T4)
GPU_MODEL = dict(vocab=50257, context=1024, hidden=768, layers=12, heads=12)  # GPT-2 small
SMOKE_MODEL = dict(vocab=128, context=64, hidden=64, layers=2, heads=4)
SEQ = 512  # one training step's sequence length in GPU mode (smoke mode: 16)
BATCH = 4  # and batch size (smoke mode: 2)
MAX_GPUS = None  # DDP part: use at most this many GPUs (None: all of them)

# %% [setup]

# %%
import json

import torch
from labkit.device import device_name, dtype_of, lab_device
from labkit.gpt import GPTConfig, parameter_count
from labkit.mixed_adam import precision_name
from labkit.report import (
    Row,
    check_exact,
    new_figure,
    results_dir,
    save_figure,
    save_json,
    stamp,
    table,
    torchrun,
)
from labkit.states import one_step

from grader.memory import format_bytes, model_states

LAB = "l08-model-states"
device = lab_device(SMOKE, LAB)  # GPU mode without CUDA stops here, with a message
dtype = dtype_of(DTYPE)
cfg = GPTConfig(**(SMOKE_MODEL if SMOKE else GPU_MODEL))
seq, batch = (16, 2) if SMOKE else (SEQ, BATCH)
psi = parameter_count(cfg)
print(f"device: {device_name(device)}; Ψ = {psi:,} parameters; {DTYPE} compute copy")

# %% [markdown]
# ## 1 · Predict
#
# The course's memory model (`grader.memory`, the same one the lesson pages and the grader use)
# gives the five parts for Ψ parameters.

# %%
predicted = model_states(psi, precision=precision_name(dtype))
print(predicted.format("MB"))
print(f"{predicted.total / psi:g} bytes per parameter; source: {predicted.source}")

# %% [markdown]
# ## 2 · Measure one training step on one device
#
# `one_step` moves the model to the device, builds the optimizer (which allocates the fp32 master
# copy), runs a forward and a backward pass (the gradients appear), then the first optimizer step
# (which allocates momentum and variance, as `torch.optim.Adam` does). Each part is *measured* as
# the change in `torch.cuda.memory_allocated` when it comes into existence, and *counted* as the
# sum of `numel() × element_size()` over its tensors.

# %%
step = one_step(cfg, device, dtype, seq=seq, batch=batch)
rows = [Row(name, predicted[name], step.counted[name], step.measured.get(name))
        for name in predicted.parts]
rows.append(Row("total after the first step", predicted.total, sum(step.counted.values()),
                step.measured_total))
display(Markdown(table(rows, "MB", f"Model states, Ψ = {psi:,}, one device")))
if SMOKE:
    check_exact(rows)
    print("smoke: counted tensor bytes equal the memory model's prediction, part by part")
else:
    print(f"peak during the step (activations included): {format_bytes(step.peak, 'GB')}")

# %% [markdown]
# ## 3 · Data parallelism: add devices, watch the memory per device
#
# Each process of `torchrun` drives one GPU and wraps the same model in
# `DistributedDataParallel` with `gradient_as_bucket_view=True` (so that `.grad` lives inside
# DDP's communication buckets; without it DDP keeps a second, flat copy of the gradients:
# 2Ψ bytes more). The memory model predicts `model_states(Ψ, dp=N)`: the same 16Ψ on every device,
# whatever N. In smoke mode two CPU processes talk over gloo.

# %%
gpus = torch.cuda.device_count() if not SMOKE else 2
if not SMOKE and MAX_GPUS:
    gpus = min(gpus, MAX_GPUS)
sizes = sorted({n for n in (1, 2, 4, 8, 16) if n <= gpus} | {gpus})
model_args = [f"--{k}={v}" for k, v in cfg.as_dict().items() if k != "dropout"]
run_args = [*model_args, f"--seq={seq}", f"--batch={batch}", f"--dtype={DTYPE}"]
out_dir = results_dir(HERE)
when = stamp()
dp_rows, dp_runs = [], {}
for n in sizes:
    out = out_dir / f"{LAB}-ddp{n}-{when}.json"
    torchrun(HERE, n, ["--wrap=ddp", f"--out={out}", *run_args, *(["--smoke"] if SMOKE else [])])
    dp_runs[n] = run = json.loads(out.read_text())
    expected = model_states(psi, precision=precision_name(dtype), dp=n, zero=0)
    for rank in run["ranks"]:
        r = rank["runs"][0]
        dp_rows.append(Row(f"{n} device(s), rank {rank['rank']}", expected.total,
                           sum(r["counted"].values()), r["measured_total"]))
display(Markdown(table(dp_rows, "MB", "Model states per device under DDP")))
if SMOKE:
    check_exact(dp_rows)
    print("smoke: every rank counts the full 16Ψ bytes, as predicted, for every world size")

# %% [markdown]
# ## 4 · Plot and keep the results
#
# The plot is written to `labs/results/` (not into this notebook), next to a JSON file with every
# number above, the model sizes and the machine.

# %%
fig, axes = new_figure(1, 2)
ax = axes[0][0]
names = list(predicted.parts)
xs = range(len(names))
mine = [(r.measured if r.measured is not None else r.counted) / 1e6 for r in rows[:-1]]
ax.bar([x - 0.2 for x in xs], [predicted[n] / 1e6 for n in names], 0.4, label="predicted")
ax.bar([x + 0.2 for x in xs], mine, 0.4, label="counted" if SMOKE else "measured")
ax.set_xticks(list(xs), [n.replace(" ", "\n", 1) for n in names], fontsize=7)
ax.set_ylabel("MB (10^6 bytes)")
ax.set_title(f"Model states, Ψ = {psi:,}")
ax.legend()
ax = axes[0][1]
per_n = {n: max((r["runs"][0]["measured_total"] or sum(r["runs"][0]["counted"].values()))
                for r in dp_runs[n]["ranks"]) for n in sizes}
ax.plot(sizes, [predicted.total / 1e6] * len(sizes), "--", label="predicted (16Ψ)")
ax.plot(sizes, [per_n[n] / 1e6 for n in sizes], "o-", label="counted" if SMOKE else "measured")
ax.set_xticks(sizes)
ax.set_xlabel("data-parallel devices")
ax.set_ylabel("MB per device")
ax.set_ylim(bottom=0)
ax.set_title("DDP: memory per device")
ax.legend()
plot = save_figure(fig, out_dir / f"{LAB}-{when}.png")
saved = save_json(
    out_dir / f"{LAB}-{when}.json", LAB, smoke=SMOKE, device=device,
    parameters={"dtype": DTYPE, "model": cfg.as_dict(), "params": psi, "seq": seq,
                "batch": batch, "ddp_sizes": sizes},
    tables={"one device": rows, "ddp": dp_rows},
)
print(f"results: {saved}\nplot: {plot}")

# %% [markdown]
# ## 5 · Why a GPU measurement can differ from 16Ψ
#
# On a GPU the table compares the model with what PyTorch's caching allocator reports. Where the
# two differ by more than about 10 %, these are the usual reasons (explained here, not measured
# in this course's CI, which has no GPU):
#
# - **The CUDA context is not counted.** `memory_allocated` covers tensors only; the CUDA
#   context, cuBLAS/cuDNN handles and kernels take several hundred MB that `nvidia-smi` shows
#   and this table does not.
# - **Rounding to 512-byte blocks.** The allocator rounds every allocation up to a multiple of
#   512 bytes. A model with many small tensors (biases, LayerNorm weights) gains a few hundred
#   bytes per tensor: negligible for GPT-2 small, large for the tiny smoke model.
# - **cuBLAS workspaces.** The first matrix multiply on a stream allocates a workspace (several
#   MiB) through the same allocator. `warm_up` runs one before counting starts; a backward pass on
#   a new thread or stream can still add one inside a measured step.
# - **DDP's buckets and the allocator's cache.** With `gradient_as_bucket_view=False` DDP keeps
#   its own flat copy of the gradients (+2Ψ). `memory_reserved` (not shown) is larger than
#   `memory_allocated`: freed blocks stay cached and fragmented, and only `reserved` decides when
#   an allocation fails.
# - **Temporaries.** The step casts each gradient to fp32 one tensor at a time; those copies
#   are freed at once and show up only in the peak, not in the parts.
# - **Autocast caches.** Training with `torch.autocast` instead of a 16-bit model keeps fp32
#   weights and caches their 16-bit casts during the forward pass: another 2Ψ until the
#   cache is cleared. This lab's model is 16-bit and does not use autocast.

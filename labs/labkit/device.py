"""Where a lab runs: the CPU in smoke mode, a CUDA GPU otherwise, or a clear stop.

Without CUDA, GPU mode raises :class:`GPURequired`. In Jupyter its ``_render_traceback_`` (an
IPython hook) shows only the message, not a traceback; from a terminal the worker exits with it.
"""

from __future__ import annotations

import torch

DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16}


class GPURequired(RuntimeError):
    """GPU mode was asked for on a machine where PyTorch sees no CUDA device."""

    def _render_traceback_(self) -> list[str]:  # IPython shows these lines instead of a traceback
        return [f"GPU lab stopped: {self}"]


def gpu_required_message(lab: str) -> str:
    return (
        f"this lab measures GPU memory (torch.cuda.memory_allocated), but PyTorch "
        f"{torch.__version__} sees no CUDA device here. Run it on a machine with an NVIDIA GPU "
        f"and a CUDA build of PyTorch (`jupyter lab labs/{lab}.ipynb`, or open it in Colab with a "
        f"GPU runtime), or set SMOKE = True in the first cell to check the code on the CPU."
    )


def lab_device(smoke: bool, lab: str) -> torch.device:
    """The CPU in smoke mode; ``cuda:0`` in GPU mode; :class:`GPURequired` if there is none."""
    if smoke:
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise GPURequired(gpu_required_message(lab))
    return torch.device("cuda", 0)


def device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return "CPU (smoke mode: tensor bytes counted, no allocator measurement)"


def dtype_of(name: str) -> torch.dtype:
    try:
        return DTYPES[name]
    except KeyError:
        raise ValueError(f"DTYPE must be one of {sorted(DTYPES)}, got {name!r}") from None


def allocated(device: torch.device) -> int | None:
    """``torch.cuda.memory_allocated`` after a synchronize; None on the CPU (nothing to read)."""
    if device.type != "cuda":
        return None
    torch.cuda.synchronize(device)
    return torch.cuda.memory_allocated(device)


def peak_allocated(device: torch.device) -> int | None:
    if device.type != "cuda":
        return None
    torch.cuda.synchronize(device)
    return torch.cuda.max_memory_allocated(device)


def reset_peak(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)


def warm_up(device: torch.device, dtype: torch.dtype) -> None:
    """One small matmul forward and backward, so cuBLAS allocates its workspaces before we count.

    cuBLAS keeps a workspace per handle and stream; the autograd engine runs the backward pass on
    its own thread, with its own handle, so both directions are warmed up.
    """
    x = torch.randn(64, 64, device=device, dtype=dtype, requires_grad=True)
    (x @ x).sum().backward()
    del x
    if device.type == "cuda":
        torch.cuda.synchronize(device)

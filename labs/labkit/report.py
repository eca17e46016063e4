"""Results of a lab: the predicted-vs-measured table, the JSON file a learner keeps, the plot.

Files go to ``labs/results/`` (git-ignored): ``<lab>-<UTC timestamp>.json`` and ``.png``. The plot
is saved to a file and not shown inline, so the notebook itself stays free of outputs' weight.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch

from grader.memory import format_bytes


@dataclass
class Row:
    """One line of a results table; bytes, except ``label``."""

    label: str
    predicted: float | None
    counted: int | None = None
    measured: int | None = None

    @property
    def error(self) -> float | None:
        """Relative error of the measurement (of the count, when nothing was measured)."""
        value = self.measured if self.measured is not None else self.counted
        if value is None or not self.predicted:
            return None
        return (value - self.predicted) / self.predicted


def _cell(value: float | None, unit: str) -> str:
    return "—" if value is None else format_bytes(value, unit, digits=4)


def table(rows: list[Row], unit: str = "MB", title: str = "") -> str:
    """A Markdown table: predicted, counted tensor bytes, measured allocator bytes, rel. error."""
    lines = [f"**{title}**\n" if title else ""]
    lines.append("| | predicted | counted (tensor bytes) | measured (allocator) | rel. error |")
    lines.append("|---|---:|---:|---:|---:|")
    for r in rows:
        err = "—" if r.error is None else f"{r.error:+.2%}"
        lines.append(f"| {r.label} | {_cell(r.predicted, unit)} | {_cell(r.counted, unit)} | "
                     f"{_cell(r.measured, unit)} | {err} |")
    return "\n".join(lines) + "\n"


def check_exact(rows: list[Row]) -> None:
    """Counted tensor bytes must equal the prediction to the byte (the smoke-mode check)."""
    wrong = [r for r in rows if r.predicted is not None and r.counted != r.predicted]
    if wrong:
        detail = "; ".join(f"{r.label}: predicted {r.predicted}, counted {r.counted}"
                           for r in wrong)
        raise AssertionError(f"counted bytes differ from the memory model: {detail}")


def results_dir(here: Path) -> Path:
    d = here / "results"
    d.mkdir(parents=True, exist_ok=True)
    return d


def stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")


def environment(device: torch.device) -> dict[str, Any]:
    env: dict[str, Any] = {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        "gpus": torch.cuda.device_count() if torch.cuda.is_available() else 0,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    try:
        env["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=10, check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return env


def save_json(
    path: Path, lab: str, *, smoke: bool, parameters: dict[str, Any], tables: dict[str, list[Row]],
    device: torch.device, extra: dict[str, Any] | None = None,
) -> Path:
    """Write the lab's measurements (every table, the inputs, the machine) as one JSON file."""
    payload = {
        "lab": lab,
        "mode": "smoke (CPU, counted bytes only)" if smoke else "gpu",
        "parameters": parameters,
        "environment": environment(device),
        "tables": {
            name: [dict(asdict(r), relative_error=r.error) for r in rows]
            for name, rows in tables.items()
        },
        "units": "bytes",
        **(extra or {}),
    }
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    return path


def new_figure(*shape: int) -> tuple[Any, Any]:
    """A matplotlib figure on the file-only Agg backend (nothing is stored in the notebook)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt.subplots(*shape, figsize=(5.5 * (shape[1] if len(shape) > 1 else 1), 4),
                        squeeze=False)


def save_figure(fig: Any, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def torchrun(
    here: Path, nproc: int, args: list[str], *, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    """Run ``labkit.dist_states`` under ``torchrun`` with ``nproc`` processes (one per device)."""
    import os

    repo = here.parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(here), str(repo), os.environ.get("PYTHONPATH", "")]))
    if "--smoke" in args and Path("/sys/class/net/lo").exists():
        # gloo picks its network interface from the host name, which containers often resolve
        # to an address they cannot bind; the processes all run here, so loopback is enough.
        env.setdefault("GLOO_SOCKET_IFNAME", "lo")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone",
           f"--nproc_per_node={nproc}", "-m", "labkit.dist_states", *args]
    proc = subprocess.run(cmd, cwd=here, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return proc

"""The three lab notebooks, executed with nbclient: smoke mode on the CPU, GPU mode's clear stop.

Smoke mode is what CI can run (no GPU): a tiny model, gloo processes for DDP/FSDP, and the
notebook's own exact check that counted tensor bytes equal ``grader.memory``'s predictions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import run_notebook  # labs/run_notebook.py (labs/ is put on sys.path by conftest.py)
import torch
from nbclient.exceptions import CellExecutionError

LABS = Path(__file__).resolve().parents[2] / "labs"

LAB_IDS = ["l08-model-states", "l11-activations", "zero-fsdp"]
SMOKE_LINE = {
    "l08-model-states": "every rank counts the full 16Ψ bytes",
    "l11-activations": "counted saved-tensor bytes equal Korthikanti et al.'s formula",
    "zero-fsdp": "counted bytes equal the ZeRO stage predictions on every rank",
}


def outputs_text(nb: Any) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.append(out.get("data", {}).get("text/markdown", ""))
            parts.append(out.get("data", {}).get("text/plain", ""))
            parts.extend(out.get("traceback", []))
    return "\n".join(parts)


@pytest.mark.slow
@pytest.mark.parametrize("lab", LAB_IDS)
def test_smoke_mode_runs_and_counts_exactly(lab: str, lab_kernel: str, labs_copy: Path) -> None:
    before = set((labs_copy / "results").glob(f"{lab}-*")) if (labs_copy / "results").exists() \
        else set()
    nb = run_notebook.execute(lab, {"SMOKE": True}, labs_dir=labs_copy, kernel_name=lab_kernel,
                              timeout=300)
    text = outputs_text(nb)
    assert SMOKE_LINE[lab] in text, text[-3000:]
    assert "Traceback" not in text
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code), "every code cell ran"
    # The plot goes to a file, never into the notebook.
    assert not any("image/png" in o.get("data", {}) for c in code for o in c.outputs)

    new = set((labs_copy / "results").glob(f"{lab}-*")) - before
    [result] = [p for p in new if p.suffix == ".json" and "-raw-" not in p.name
                and "-ddp" not in p.name]
    assert any(p.suffix == ".png" and p.stat().st_size > 5000 for p in new)
    data = json.loads(result.read_text())
    assert data["lab"] == lab and data["mode"].startswith("smoke")
    assert data["environment"]["torch"] == torch.__version__
    rows = [r for rows in data["tables"].values() for r in rows]
    assert rows
    for row in rows:
        assert row["measured"] is None  # nothing is measured on the CPU
        if lab == "l11-activations" and row in data["tables"]["zero-paper"]:
            assert row["relative_error"] > 0.5  # the ZeRO paper's estimate is coarse
        elif row["predicted"] is not None:
            assert row["counted"] == row["predicted"], row
            assert row["relative_error"] == (0 if row["predicted"] else None)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
@pytest.mark.parametrize("lab", LAB_IDS)
def test_gpu_mode_without_cuda_stops_with_a_message(
    lab: str, lab_kernel: str, labs_copy: Path
) -> None:
    with pytest.raises(CellExecutionError) as info:
        run_notebook.execute(lab, {"SMOKE": False}, labs_dir=labs_copy, kernel_name=lab_kernel,
                             timeout=120)
    err = info.value
    assert err.ename == "GPURequired"
    assert "sees no CUDA device" in err.evalue and "SMOKE = True" in err.evalue
    # nbclient's message is the failing cell's source, then what the kernel displayed for the
    # error: IPython shows the message alone, with no traceback, frames or file paths.
    shown = err.traceback.split("------------------", 2)[-1].strip()
    assert shown.startswith("GPU lab stopped: this lab measures GPU memory"), shown
    assert "Traceback" not in shown and "File " not in shown and "---->" not in shown
    assert len(shown.splitlines()) == 1


def test_committed_notebooks_are_built_from_their_sources_and_clean() -> None:
    import build_notebooks

    assert build_notebooks.main(["--check"]) == 0, "run .venv/bin/python labs/build_notebooks.py"
    for lab in LAB_IDS:
        nb = json.loads((LABS / f"{lab}.ipynb").read_text())
        assert nb["metadata"]["kernelspec"]["name"] == "python3"
        meta = nb["metadata"]["course_lab"]
        assert meta["id"] == lab and meta["title"] and meta["measures"] and meta["hardware"]
        cells = nb["cells"]
        assert all(not c.get("outputs") and not c.get("execution_count")
                   for c in cells if c["cell_type"] == "code")
        first_code = next(c for c in cells if c["cell_type"] == "code")
        assert first_code["metadata"].get("tags") == ["parameters"]
        assert "SMOKE = True" in "".join(first_code["source"])
        text = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        assert "**Hardware.**" in text
        for reason in ("CUDA context", "512", "cuBLAS"):
            assert reason in text, f"{lab}: the GPU-vs-model section should explain {reason}"
        assert (LABS / f"{lab}.ipynb").stat().st_size < 40_000, "keep notebooks small"

"""The lab directive (``::: lab <id>``), the course check of the labs, the notebook runner's
parameter injection, the vendoring of the notebooks and the ``torchrun`` worker's GPU stop."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import markdown
import nbformat
import pytest
import run_notebook

from grader.course.labs import LabExtension, check_labs, colab_url
from grader.site_assets import copy_lab_notebooks

ROOT = Path(__file__).resolve().parents[2]
LABS = ROOT / "labs"


def render(text: str, labs_dir: Path = LABS, config: Path = ROOT / "mkdocs.yml") -> str:
    ext = LabExtension(labs_dir=str(labs_dir), config_file=str(config))
    return markdown.markdown(text, extensions=[ext])


def test_lab_box_says_what_where_and_how() -> None:
    meta = json.loads((LABS / "l08-model-states.ipynb").read_text())["metadata"]["course_lab"]
    html = render("Intro.\n\n::: lab l08-model-states\n\nAfter.")
    assert '<div class="course-lab" data-lab-id="l08-model-states" id="lab-l08-model-states">' \
        in html
    assert meta["title"] in html
    assert meta["hardware"][1:] in html and meta["measures"][1:] in html  # first letter: capital
    assert 'data-lab-notebook="l08-model-states.ipynb"' in html
    assert 'download="l08-model-states.ipynb"' in html
    assert ("https://colab.research.google.com/github/example-org/memory-parallelism-course/"
            "blob/main/labs/l08-model-states.ipynb") in html
    assert "<code>jupyter lab labs/l08-model-states.ipynb</code>" in html
    assert html.index("Intro.") < html.index("course-lab") < html.index("After.")


def test_colab_link_follows_repo_url(tmp_path: Path) -> None:
    cfg = tmp_path / "mkdocs.yml"
    cfg.write_text("site_name: x\nrepo_url: https://github.com/someone/other.git\n"
                   "x: !!python/name:os.path\n")
    html = render("::: lab zero-fsdp", config=cfg)
    assert "colab.research.google.com/github/someone/other/blob/main/labs/zero-fsdp.ipynb" in html
    assert colab_url("https://gitlab.com/a/b", "main", "labs/x.ipynb") is None
    cfg.write_text("site_name: x\nrepo_url: https://gitlab.com/a/b\n")
    assert "Open in Colab" not in render("::: lab zero-fsdp", config=cfg)


def test_lab_text_is_escaped(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["course_lab"] = {"title": "<script>x</script>", "lesson": "8",
                                 "measures": "a & b", "hardware": "one <GPU>"}
    nbformat.write(nb, tmp_path / "evil.ipynb")
    html = render("::: lab evil", labs_dir=tmp_path)
    assert "<script>" not in html and "&lt;script&gt;" in html and "A &amp; b." in html


def test_unknown_lab_is_a_visible_error_and_a_strict_build_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="mkdocs.course.labs"):
        html = render("::: lab no-such-lab")
    assert "course-error" in html and "no-such-lab" in html
    assert any("no notebook" in r.getMessage() and r.name.startswith("mkdocs.")
               for r in caplog.records)


def test_course_check_passes_on_this_course() -> None:
    assert check_labs(ROOT) == []


def test_course_check_finds_faults(tmp_path: Path) -> None:
    (tmp_path / "labs").mkdir()
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x = 1")
    cell.outputs = [nbformat.v4.new_output("stream", text="1\n")]
    nb.cells = [cell]
    nb.metadata["course_lab"] = {"title": "t", "lesson": "8", "measures": "m"}
    nbformat.write(nb, tmp_path / "labs" / "dirty.ipynb")
    (tmp_path / "lessons").mkdir()
    (tmp_path / "lessons" / "page.md").write_text(
        "---\ntitle: x\nlabs:\n  - missing-lab\n---\n\n# Page\n\n::: lab dirty\n\n::: lab gone\n")
    found = {(p.path.name, p.line, p.message.split(":")[0]) for p in check_labs(tmp_path)}
    messages = " | ".join(p.message for p in check_labs(tmp_path))
    assert ("page.md", 3, "lab 'missing-lab'") in found
    assert ("page.md", 11, "lab 'gone'") in found
    assert "lacks hardware" in messages and "stored outputs" in messages
    assert "no parameters cell" in messages


def test_parameters_are_replaced_on_their_line() -> None:
    nb = nbformat.read(LABS / "l11-activations.ipynb", as_version=4)
    run_notebook.set_parameters(nb, {"SMOKE": False, "SEQS": [256]})
    params = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    assert "SMOKE = False  # set by run_notebook.py" in params.source
    assert "SEQS = [256]  # set by run_notebook.py" in params.source
    assert "GPU_MODEL = dict(" in params.source  # the rest is kept
    with pytest.raises(ValueError, match="no parameter NOPE"):
        run_notebook.set_parameters(nb, {"NOPE": 1})


def test_vendor_step_copies_the_notebooks(tmp_path: Path) -> None:
    dest = tmp_path / "vendor" / "labs"
    dest.mkdir(parents=True)
    (dest / "stale.ipynb").write_text("{}")
    names = copy_lab_notebooks(LABS, dest)
    assert names == sorted(p.name for p in LABS.glob("*.ipynb")) and len(names) == 3
    assert not (dest / "stale.ipynb").exists()
    assert (dest / names[0]).read_bytes() == (LABS / names[0]).read_bytes()


@pytest.mark.skipif(bool(os.environ.get("CUDA_VISIBLE_DEVICES")), reason="GPU machine")
def test_torchrun_worker_without_cuda_stops_with_a_message(tmp_path: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(LABS), str(ROOT)]))
    proc = subprocess.run(
        [sys.executable, "-m", "labkit.dist_states", "--wrap", "ddp", "--out",
         str(tmp_path / "x.json")], cwd=LABS, env=env, capture_output=True, text=True,
        timeout=120,
    )
    assert proc.returncode == 3
    assert proc.stderr.strip().startswith("GPU lab stopped:") and "Traceback" not in proc.stderr


def test_results_table_lists_measured_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    import results_table

    result = tmp_path / "l08-model-states-20270101T000000Z.json"
    result.write_text(json.dumps({
        "lab": "l08-model-states",
        "environment": {"device": "NVIDIA H100 80GB HBM3", "gpus": 1, "date": "2027-01-01T00:00"},
        "tables": {"one device": [
            {"label": "bf16 parameters", "predicted": 248_879_616, "counted": 248_879_616,
             "measured": 249_000_000, "relative_error": 0.000484},
            {"label": "smoke row", "predicted": 1, "counted": 1, "measured": None,
             "relative_error": 0.0},
        ]},
    }))
    assert results_table.main([str(result)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2] == ("| l08-model-states | one device: bf16 parameters | 248.9 | 249.0 | +0.0% "
                      "| NVIDIA H100 80GB HBM3 | 2027-01-01 |")
    assert len(out) == 3

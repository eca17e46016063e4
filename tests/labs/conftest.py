"""Fixtures of the lab tests: labkit on the path, a kernel of this interpreter, a copy of labs/."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LABS = ROOT / "labs"
if str(LABS) not in sys.path:
    sys.path.insert(0, str(LABS))  # labkit, build_notebooks and run_notebook live in labs/

KERNEL = "course-labs-test"


@pytest.fixture(scope="session")
def lab_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A kernelspec that starts this very interpreter (the venv's), found via JUPYTER_PATH.

    A fresh clone has no registered kernel; a user's own "python3" kernelspec may point at another
    Python. This one cannot: its argv is ``sys.executable -m ipykernel_launcher``.
    """
    base = tmp_path_factory.mktemp("jupyter")
    spec = base / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "course labs (tests)",
        "language": "python",
    }))
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(base), old) if p)
    yield KERNEL
    if old is None:
        os.environ.pop("JUPYTER_PATH", None)
    else:
        os.environ["JUPYTER_PATH"] = old


@pytest.fixture(scope="session")
def labs_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``labs/`` (notebooks and labkit) copied away, so that runs leave the checkout untouched."""
    dest = tmp_path_factory.mktemp("course") / "labs"
    shutil.copytree(LABS, dest, ignore=shutil.ignore_patterns("results", "__pycache__",
                                                              ".ipynb_checkpoints"))
    return dest

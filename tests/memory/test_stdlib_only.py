"""grader.memory uses the standard library only (it runs unchanged in Pyodide)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
sys.path.insert(0, {root!r})
before = set(sys.modules)
import grader.memory as m
m.model_states(7.5e9, dp=64, zero=3); m.activations(hidden=1600, layers=48, seq=1024, batch=32)
m.stacked_bar_svg([m.model_states(1e9)]); m.parse_bytes("24 GB")
from grader.memory import cli
loaded = sorted(set(sys.modules) - before)
print(json.dumps(loaded))
"""


def test_imports_without_site_packages() -> None:
    """With ``python -S`` no third-party package can be found; the model must still work, and
    every module it loads is either ours or in ``sys.stdlib_module_names``."""
    done = subprocess.run(
        [sys.executable, "-S", "-c", PROBE.format(root=str(ROOT))],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    foreign = [
        name
        for name in loaded
        if not name.startswith("grader") and name.split(".")[0] not in sys.stdlib_module_names
    ]
    assert foreign == []
    assert "grader.memory" in loaded
    # grader/__init__.py stays free of the other subpackages' dependencies
    assert not [name for name in loaded if name.startswith(("grader.service", "grader.grading"))]

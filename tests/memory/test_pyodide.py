"""grader.memory runs unchanged inside Pyodide (the vendored one the site ships), under Node.

Needs ``make vendor`` (site_overrides/vendor/pyodide) and ``node``; skipped without them, which
``make test`` always provides. ZeRO paper Figure 1 (arXiv:1910.02054) is the check value.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYODIDE = ROOT / "site_overrides" / "vendor" / "pyodide"

SCRIPT = """
import { loadPyodide } from %(mjs)s;
import fs from "fs";
const py = await loadPyodide({ indexURL: %(index)s });
py.FS.mkdirTree("/pkg/grader/memory");
py.FS.writeFile("/pkg/grader/__init__.py", fs.readFileSync(%(init)s));
for (const name of fs.readdirSync(%(memory)s)) {
  if (name.endsWith(".py")) {
    py.FS.writeFile("/pkg/grader/memory/" + name, fs.readFileSync(%(memory)s + "/" + name));
  }
}
console.log(py.runPython(`
import json, sys
sys.path.insert(0, "/pkg")
import grader.memory as m
json.dumps({
    "python": sys.version.split()[0],
    "figure_1": [m.model_states(7.5e9, dp=64, zero=z).total for z in range(4)],
    "gpt2_activations": m.activations(hidden=1600, layers=48, seq=1024, batch=32).total,
    "parse": m.parse_bytes("22.4 GiB"),
    "svg": m.stacked_bar_svg([m.model_states(1.5e9)]).startswith("<svg"),
})
`));
"""


@pytest.mark.slow
def test_memory_model_in_pyodide(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None or not (PYODIDE / "pyodide.mjs").exists():
        pytest.skip("needs node and the vendored Pyodide (make vendor)")
    script = tmp_path / "run.mjs"
    script.write_text(
        SCRIPT
        % {
            "mjs": json.dumps(str(PYODIDE / "pyodide.mjs")),
            "index": json.dumps(str(PYODIDE) + "/"),
            "init": json.dumps(str(ROOT / "grader" / "__init__.py")),
            "memory": json.dumps(str(ROOT / "grader" / "memory")),
        }
    )
    done = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["figure_1"] == [120e9, 31.40625e9, 16.640625e9, 1.875e9]
    assert result["gpt2_activations"] == 60_397_977_600
    assert result["parse"] == 22.4 * 2**30
    assert result["svg"] is True

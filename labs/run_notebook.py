"""Run a lab notebook from the command line, with its parameters set, and keep the executed copy.

    .venv/bin/python labs/run_notebook.py l08-model-states --gpu      # measure on the GPU(s)
    .venv/bin/python labs/run_notebook.py l11-activations             # smoke mode (CPU)
    .venv/bin/python labs/run_notebook.py zero-fsdp --gpu --set NPROC=4

The parameters cell (the code cell tagged ``parameters``) keeps its text, with each parameter
given on the command line replaced on its line (``NAME = value``). The notebook runs with
nbclient in the ``python3`` kernel of the interpreter running this script, from ``labs/``;
the executed notebook is written to ``labs/results/<lab>-executed-<time>.ipynb`` beside the
lab's JSON file and plot. The tests run the labs through :func:`execute` too.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

HERE = Path(__file__).resolve().parent


def set_parameters(nb: Any, values: dict[str, Any]) -> None:
    """Replace ``NAME = ...`` lines of the parameters cell by ``NAME = repr(value)``."""
    cells = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if not cells:
        raise ValueError("the notebook has no cell tagged 'parameters'")
    cell = cells[0]
    lines = cell.source.splitlines()
    for name, value in values.items():
        pattern = re.compile(rf"^{re.escape(name)}\s*=")
        hits = [i for i, line in enumerate(lines) if pattern.match(line)]
        if not hits:
            known = [m.group(1) for line in lines if (m := re.match(r"^([A-Z_]+)\s*=", line))]
            raise ValueError(f"no parameter {name} (parameters: {', '.join(known)})")
        lines[hits[0]] = f"{name} = {value!r}  # set by run_notebook.py"
    cell.source = "\n".join(lines)


def execute(
    lab: str,
    values: dict[str, Any],
    *,
    labs_dir: Path = HERE,
    kernel_name: str = "python3",
    timeout: int = 3600,
) -> Any:
    """Execute ``labs_dir/<lab>.ipynb`` with ``values`` set; return the executed notebook.

    Raises ``nbclient.exceptions.CellExecutionError`` when a cell fails (the notebook object
    then holds the outputs up to that cell).
    """
    nb = nbformat.read(labs_dir / f"{lab}.ipynb", as_version=4)
    set_parameters(nb, values)
    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name,
                            resources={"metadata": {"path": str(labs_dir)}})
    client.execute()
    return nb


def parse_value(text: str) -> tuple[str, Any]:
    name, _, raw = text.partition("=")
    if not name or not raw:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    try:
        return name.strip(), ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return name.strip(), raw


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="labs/run_notebook.py")
    parser.add_argument("lab", help="lab id, e.g. l08-model-states")
    parser.add_argument("--gpu", action="store_true", help="SMOKE = False: measure on the GPU")
    parser.add_argument("--set", dest="values", type=parse_value, action="append", default=[],
                        metavar="NAME=VALUE", help="set a parameter (a Python literal)")
    args = parser.parse_args(argv)
    values = {"SMOKE": not args.gpu, **dict(args.values)}
    out_dir = HERE / "results"
    out_dir.mkdir(exist_ok=True)
    out = out_dir / f"{args.lab}-executed-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.ipynb"
    try:
        nb = execute(args.lab, values)
    except CellExecutionError as exc:  # the cell's own message (a GPU lab without CUDA: one line)
        message = exc.evalue if exc.ename == "GPURequired" else f"{exc.ename}: {exc.evalue}"
        print(f"{args.lab} stopped: {message}", file=sys.stderr)
        return 1
    nbformat.write(nb, out)
    print(f"{args.lab}: done; executed notebook {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

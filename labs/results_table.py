"""Print the README's measured table from the labs' JSON results (``labs/results/``).

    .venv/bin/python labs/results_table.py                 # newest result of each lab
    .venv/bin/python labs/results_table.py results/l08-model-states-20270101T120000Z.json

One Markdown row per measured value: lab, what, predicted, measured, relative error, GPU model
and date, in MB (10^6 bytes). Smoke-mode results (nothing measured) are skipped with a note.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
LABS = ("l08-model-states", "l11-activations", "zero-fsdp")


def newest(results: Path) -> list[Path]:
    found = []
    for lab in LABS:
        files = sorted(p for p in results.glob(f"{lab}-2*.json"))
        if files:
            found.append(files[-1])
    return found


def rows(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    env = data["environment"]
    gpu = env.get("device", "?")
    if env.get("gpus", 0) > 1:
        gpu = f"{env['gpus']}× {gpu}"
    out = []
    for name, table in data["tables"].items():
        for r in table:
            if r["measured"] is None or r["predicted"] is None:
                continue
            err = r["relative_error"]
            out.append(
                f"| {data['lab']} | {name}: {r['label']} | {r['predicted'] / 1e6:,.1f} | "
                f"{r['measured'] / 1e6:,.1f} | {err:+.1%} | {gpu} | {env['date'][:10]} |"
            )
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    paths = [Path(a) for a in args] or newest(HERE / "results")
    if not paths:
        print("no results in labs/results/: run labs/run_notebook.py <lab> --gpu first",
              file=sys.stderr)
        return 1
    print("| lab | what | predicted (MB) | measured (MB) | rel. error | GPU | date |")
    print("|---|---|---:|---:|---:|---|---|")
    for path in paths:
        lines = rows(path)
        if not lines:
            print(f"{path.name}: nothing measured (smoke mode?)", file=sys.stderr)
        else:
            print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

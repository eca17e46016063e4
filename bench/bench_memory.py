"""Benchmark of the memory model: one full estimate, and importing it in a fresh interpreter.

    .venv/bin/python bench/bench_memory.py [--repeat 15] [--json]

Every figure is printed next to a baseline measured in the same run on the same machine:
- one full estimate (model states, activations by both methods, residual, communication, the
  largest model that fits) against one call of a trivial Python function;
- ``python -c "import grader.memory"`` in a fresh interpreter against ``python -c "pass"`` (runs
  interleaved, best of each), plus
  the import's own time as ``python -X importtime`` reports it (best of the runs).
Nothing here is an assertion: read the numbers, compare runs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.memory import (  # noqa: E402
    activations,
    data_parallel_volume,
    max_params,
    model_states,
    residual,
)


def full_estimate() -> float:
    """What a lesson cell or an answer key computes for one configuration."""
    states = model_states(7.5e9, dp=64, zero=3)
    coarse = activations(hidden=1600, layers=48, seq=1024, batch=32, method="zero-paper")
    fine = activations(
        hidden=1600,
        layers=48,
        seq=1024,
        batch=32,
        heads=25,
        method="korthikanti",
        tp=2,
        sequence_parallel=True,
        recompute="selective",
    )
    extra = residual(params=7.5e9, allowance="2 GB")
    traffic = data_parallel_volume(7.5e9, zero=3)
    largest = max_params("32 GB", dp=64, zero=3)
    return states.total + coarse.total + fine.total + extra.total + traffic.total + largest


def trivial() -> float:
    return 1.0


def per_call_seconds(func, repeat: int) -> float:
    timer = timeit.Timer(func)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=repeat, number=number)) / number


def fresh_interpreter_seconds(codes: list[str], repeat: int) -> list[float]:
    """Best (minimum) wall time of ``python -c CODE`` for each code, runs interleaved so that
    every code sees the same machine load."""
    best = [float("inf")] * len(codes)
    for _ in range(repeat):
        for index, code in enumerate(codes):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
            best[index] = min(best[index], time.perf_counter() - start)
    return best


def importtime_microseconds() -> int:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import grader.memory"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    for line in done.stderr.splitlines():
        fields = [f.strip() for f in line.split("|")]
        if len(fields) == 3 and fields[2] == "grader.memory":
            return int(fields[1])
    raise RuntimeError("grader.memory not found in -X importtime output")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    estimate = per_call_seconds(full_estimate, args.repeat)
    baseline_call = per_call_seconds(trivial, args.repeat)
    empty, with_import = fresh_interpreter_seconds(["pass", "import grader.memory"], args.repeat)
    own_import = min(importtime_microseconds() for _ in range(args.repeat))

    results = {
        "full_estimate_us": estimate * 1e6,
        "trivial_call_us": baseline_call * 1e6,
        "estimate_vs_trivial_call": estimate / baseline_call,
        "python_c_pass_ms": empty * 1e3,
        "python_c_import_grader_memory_ms": with_import * 1e3,
        "import_vs_pass": with_import / empty,
        "import_cost_ms": (with_import - empty) * 1e3,
        "importtime_grader_memory_ms": own_import / 1e3,
        "python": sys.version.split()[0],
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"python {results['python']}, best of {args.repeat} runs each")
    print(
        f"one full estimate        {results['full_estimate_us']:9.1f} µs   "
        f"baseline: trivial call {results['trivial_call_us']:.3f} µs   "
        f"ratio {results['estimate_vs_trivial_call']:.0f}×"
    )
    print(
        f"fresh interpreter import {results['python_c_import_grader_memory_ms']:9.1f} ms   "
        f"baseline: python -c pass {results['python_c_pass_ms']:.1f} ms   "
        f"ratio {results['import_vs_pass']:.2f}× "
        f"(+{results['import_cost_ms']:.1f} ms; -X importtime: "
        f"{results['importtime_grader_memory_ms']:.1f} ms)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: grading the same 100 submissions naively and with the warm forking grader.

- naive: a fresh ``pytest`` process per submission (``python -m pytest -p grader.grading.plugin
  --submission FILE --results OUT ...``), as one would grade with plain pytest;
- ours: ``grader.grading.grade()``: a warm parent (imports done, one throwaway ``pytest.main``,
  ``gc.freeze()``) forks one child per submission, which runs one ``pytest.main``.

Both grade answers-only submissions (numeric, choice, matching, short answer, reflection) and
must agree on every score. Then the median latency of a code submission, sandbox included.
Prints submissions/s, median latency and the ratio; targets on a 2-core machine: ours >= 10x
naive throughput, code submission < 100 ms median. Not a test: numbers depend on the machine.

    .venv/bin/python bench/bench_grading.py [--n 100] [--code 30]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from grader.exercises.loader import default_exercises_dir, load_exercises
from grader.grading import grade
from grader.grading.model_answers import model_answer
from grader.grading.sandbox import Sandbox

WRONG = {
    "numeric": ["104.3 GB", "28 GB", "896 GB", "112", "3 TB"],
    "single_choice": ["a", "c", "d"],
    "multiple_select": [["a"], ["a", "b"], ["b", "d"]],
    "short_answer": ["broadcast", "reduce", "2", "gossip"],
    "reflection": ["no", "because every device holds a full copy of everything"],
}


def submissions(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """``n`` answers-only submissions, alternating lessons, each answer right or wrong."""
    exercises = load_exercises()
    rng = random.Random(seed)
    lessons = sorted({ex.lesson for ex in exercises.values()})
    out = []
    for i in range(n):
        lesson = lessons[i % len(lessons)]
        answers: dict[str, Any] = {}
        for ex in exercises.values():
            if ex.lesson != lesson or ex.kind == "code":
                continue
            if ex.kind == "matching":
                right = dict(ex.data["key"])
                values = list(right.values())
                rng.shuffle(values)
                answers[ex.id] = (
                    right if rng.random() < 0.5 else dict(zip(right, values, strict=True))
                )
            elif rng.random() < 0.5 or ex.kind not in WRONG:
                answers[ex.id] = model_answer(ex)
            else:
                answers[ex.id] = rng.choice(WRONG[ex.kind])
        out.append({"learner": f"bench-{i}", "lesson": lesson, "answers": answers})
    return out


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


CPU: dict[str, list[float]] = {"naive": [], "ours": []}


def naive(subs: list[dict[str, Any]], root: Path) -> tuple[list[float], list[float], float]:
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    latencies, scores = [], []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for i, sub in enumerate(subs):
            path, out = Path(tmp) / f"s{i}.json", Path(tmp) / f"r{i}.json"
            path.write_text(json.dumps(sub))
            files = [str(next(root.glob(f"lesson-*/{qid}.yaml"))) for qid in sub["answers"]]
            t0, c0 = time.perf_counter(), children_cpu()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "-q",
                    "-p",
                    "grader.grading.plugin",
                    "-p",
                    "no:cacheprovider",
                    "--submission",
                    str(path),
                    "--results",
                    str(out),
                    "--rootdir",
                    str(root),
                    *files,
                ],
                cwd=root,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
            latencies.append(time.perf_counter() - t0)
            CPU["naive"].append(children_cpu() - c0)
            scores.append(json.loads(out.read_text())["score"])
    return latencies, scores, time.perf_counter() - started


def ours(subs: list[dict[str, Any]], workers: int = 1) -> tuple[list[float], list[float], float]:
    def one(sub: dict[str, Any]) -> tuple[float, float]:
        t0 = time.perf_counter()
        result = grade(sub)
        CPU["ours"].append(result["extra_data"].get("cpu_time", 0.0))
        return time.perf_counter() - t0, result["score"]

    started = time.perf_counter()
    if workers == 1:
        pairs = [one(sub) for sub in subs]
    else:
        with ThreadPoolExecutor(workers) as pool:
            pairs = list(pool.map(one, subs))
    return [p[0] for p in pairs], [p[1] for p in pairs], time.perf_counter() - started


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:7.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="answers-only submissions")
    parser.add_argument("--code", type=int, default=30, help="code submissions")
    args = parser.parse_args()
    root = default_exercises_dir()
    subs = submissions(args.n)
    print(f"{len(subs)} answers-only submissions, {os.cpu_count()} CPUs")

    t0 = time.perf_counter()
    grade(subs[0])  # starts and warms the parent: reported, not counted per submission
    print(f"warm parent start-up (once per process): {ms(time.perf_counter() - t0)}")

    n_lat, n_scores, n_total = naive(subs, root)
    o_lat, o_scores, o_total = ours(subs)
    answers_cpu = list(CPU["ours"])
    c_lat, c_scores, c_total = ours(subs, workers=2)
    if n_scores != o_scores or o_scores != c_scores:
        diff = [i for i, (a, b) in enumerate(zip(n_scores, o_scores, strict=True)) if a != b]
        print(f"MISMATCH: naive and ours disagree on submissions {diff[:10]}")
        return 1
    print("every submission got the same score both ways")
    rows = [
        ("naive: fresh pytest process", n_lat, n_total),
        ("ours: warm parent, fork per submission", o_lat, o_total),
        ("ours, 2 concurrent callers", c_lat, c_total),
    ]
    for name, lat, total in rows:
        rate, median = len(lat) / total, statistics.median(lat)
        print(f"  {name:<42} {rate:7.1f} submissions/s   median {ms(median)}")
    ratio = (len(o_lat) / o_total) / (len(n_lat) / n_total)
    ratio2 = (len(c_lat) / c_total) / (len(n_lat) / n_total)
    print(
        f"throughput ratio ours/naive: {ratio:.1f}x sequential, {ratio2:.1f}x with 2 callers "
        "(target >= 10x)"
    )
    n_cpu, o_cpu = statistics.median(CPU["naive"]), statistics.median(answers_cpu)
    print(
        f"CPU per submission (does not depend on load): naive {ms(n_cpu)}, ours {ms(o_cpu)} "
        f"in the forked child: {n_cpu / o_cpu:.1f}x"
    )

    exercises = load_exercises(root)
    code_ex = [ex for ex in exercises.values() if ex.kind == "code"]
    code_subs = [
        {"learner": f"code-{i}", "lesson": ex.lesson, "answers": {ex.id: ex.data["solution"]}}
        for i, ex in zip(range(args.code), code_ex * args.code, strict=False)
    ]
    CPU["ours"].clear()
    k_lat, k_scores, _ = ours(code_subs)
    full = all(
        score == exercises[next(iter(s["answers"]))].points
        for s, score in zip(code_subs, k_scores, strict=True)
    )
    starts = []
    for _ in range(20):
        t1 = time.perf_counter()
        with Sandbox("def f():\n    return 1\n", "f") as box:
            box.call()
        starts.append(time.perf_counter() - t1)
    print(
        f"code submission (sandbox + hidden tests, {len(code_subs)} runs): median "
        f"{ms(statistics.median(k_lat))} (target < 100 ms){'' if full else '  WRONG SCORES'}"
    )
    print(f"  CPU per code submission, sandbox included: {ms(statistics.median(CPU['ours']))}")
    print(f"  a sandbox start + one call alone: median {ms(statistics.median(starts))}")
    return 0 if full else 1


if __name__ == "__main__":
    sys.exit(main())

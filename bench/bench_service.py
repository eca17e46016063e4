"""Benchmark of the grader service: throughput and latency under concurrent clients on loopback.

    .venv/bin/python bench/bench_service.py [--duration 8] [--clients 8]
                                            [--backends sqlite,postgresql]

For each database (SQLite file; a throwaway PostgreSQL server started here) a real
``python -m grader serve`` process is loaded by ``--clients`` threads for ``--duration`` seconds
per scenario, each thread with its own keep-alive connection to 127.0.0.1:

- baseline      ``GET /api/version``: routing and JSON only (no database, no grading)
- replay        a stored submission sent again with its idempotency key: auth + one read
- answers-only  a new numeric answer per request: grading (the grader's warm parent forks a child
                that runs pytest) + one durable commit
- code          a new code answer per request: the same, plus the sandboxed run of the code
- service alone answers-only again, on a server whose grade() returns a constant result at
                once (a sitecustomize on PYTHONPATH, for this run only): the service's own share

and, for reference, ``grader.grading.grade`` called directly by as many threads (no HTTP, no
database): what grading alone costs, so the service's own share is visible.

Printed: requests/s, p50 and p99 latency, and each against the baseline of the same run. The
target for answers-only is >= 50 submissions/s with p99 < 250 ms on a 2-core machine; the
verdict line says whether this run met it. Clients and server share the machine's cores, so
numbers on a loaded machine are lower. Nothing here is an assertion.
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from grader.service.roster import add_learner  # noqa: E402
from grader.service.settings import load_settings  # noqa: E402
from grader.service.storage import make_engine  # noqa: E402
from tests.service.postgres_server import (  # noqa: E402
    PostgresServer,
    find_bin_dir,
    fresh_postgres_database,  # noqa: E402
)
from tests.service.server_process import ServerProcess  # noqa: E402

LEARNERS = 400  # code questions allow 10 attempts per learner: spread the load over many
NUMERIC = "l08-practice-7b-states"
CODE = "l08-code-model-state-bytes"
SOLUTION = (
    "def model_state_bytes(params, dp, zero):\n"
    "    p, g, o = 2 * params, 2 * params, 12 * params\n"
    "    if zero >= 1:\n        o /= dp\n"
    "    if zero >= 2:\n        g /= dp\n"
    "    if zero >= 3:\n        p /= dp\n"
    "    return p + g + o\n"
)


@dataclass
class Run:
    name: str
    latencies: list[float]
    errors: int
    seconds: float

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


Request = Callable[[httpx.Client, int], httpx.Response]


def in_threads(worker: Callable[[], None], count: int) -> float:
    """Run ``worker`` in ``count`` threads; return the wall-clock seconds until all ended."""
    threads = [threading.Thread(target=worker) for _ in range(count)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.monotonic() - began


def load(name: str, request: Request, clients: int, duration: float) -> Run:
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    counter = itertools.count()
    stop = time.monotonic() + duration

    def worker() -> None:
        nonlocal errors
        with httpx.Client(timeout=120) as client:
            while time.monotonic() < stop:
                n = next(counter)
                started = time.perf_counter()
                try:
                    ok = request(client, n).status_code < 300
                except httpx.HTTPError:
                    ok = False
                elapsed = time.perf_counter() - started
                with lock:
                    if ok:
                        latencies.append(elapsed)
                    else:
                        errors += 1

    return Run(name, latencies, errors, in_threads(worker, clients))


def scenarios(url: str, tokens: list[str]) -> dict[str, Request]:
    def auth(n: int, key: str | None = None) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {tokens[n % len(tokens)]}",
            "Idempotency-Key": key or uuid.uuid4().hex,
        }

    def submit(client: httpx.Client, n: int, answers: dict[str, str], key: str | None = None):
        return client.post(
            f"{url}/api/lessons/8/submissions", json={"answers": answers}, headers=auth(n, key)
        )

    replay_answers = {NUMERIC: "112 GB"}
    with httpx.Client(timeout=120) as client:  # the stored submission every replay sends again
        for n in range(len(tokens)):
            submit(client, n, replay_answers, key="bench-replay").raise_for_status()

    return {
        "baseline": lambda c, n: c.get(f"{url}/api/version"),
        "replay": lambda c, n: submit(c, n, replay_answers, key="bench-replay"),
        "answers-only": lambda c, n: submit(c, n, {NUMERIC: f"{100 + n % 20} GB"}),
        "code": lambda c, n: submit(c, n, {CODE: SOLUTION + f"# {n}\n"}),
    }


# Loaded into the server process through PYTHONPATH for the "service alone" run only: grade()
# answers at once, so what remains is the service's own work (HTTP, auth, checks, durable write).
CONSTANT_GRADE = """
import grader.grading as grading

def grade(submission, *, exercises_dir=None):
    tests = [{"name": q, "score": 1.0, "max_score": 1.0, "status": "passed", "output": "ok"}
             for q in submission["answers"]]
    return {"score": 1.0, "max_score": 1.0, "output": "", "tests": tests,
            "extra_data": {"grader_version": "bench-constant"}}

grading.grade = grade
"""


def bench_backend(backend: str, database_url: str, clients: int, duration: float) -> list[Run]:
    work = Path(tempfile.mkdtemp(prefix=f"bench-service-{backend}-"))
    try:
        settings = load_settings(env={}, data_dir=work / "data", database_url=database_url)
        engine = make_engine(settings)
        tokens = [add_learner(engine, f"bench-{n:04d}") for n in range(LEARNERS)]
        engine.dispose()
        env = {"COURSE_RATE_LIMIT_ATTEMPTS": "1000000", "COURSE_GRADING_CONCURRENCY": "4"}
        server = ServerProcess(work / "data", database_url=database_url, env=env).start()
        try:
            plan = scenarios(server.url, tokens)
            load("warm-up", plan["answers-only"], clients, 2.0)
            runs = [load(name, request, clients, duration) for name, request in plan.items()]
        finally:
            server.stop()
        stub = work / "constant-grade"
        stub.mkdir()
        (stub / "sitecustomize.py").write_text(CONSTANT_GRADE)
        env["PYTHONPATH"] = str(stub)
        server = ServerProcess(work / "data", database_url=database_url, env=env).start()
        try:
            plan = scenarios(server.url, tokens)
            runs.append(load("service alone", plan["answers-only"], clients, duration))
        finally:
            server.stop()
        return runs
    finally:
        shutil.rmtree(work, ignore_errors=True)


def grade_alone(clients: int, duration: float) -> Run:
    """``grade()`` without the service: the grading cost every answers-only submission pays."""
    from grader.grading import grade

    counter = itertools.count()
    latencies: list[float] = []
    lock = threading.Lock()
    grade({"learner": "bench", "lesson": 8, "answers": {NUMERIC: "112 GB"}})  # start the grader
    stop = time.monotonic() + duration

    def worker() -> None:
        while time.monotonic() < stop:
            n = next(counter)
            started = time.perf_counter()
            grade({"learner": "bench", "lesson": 8, "answers": {NUMERIC: f"{100 + n % 20} GB"}})
            with lock:
                latencies.append(time.perf_counter() - started)

    return Run("grade() alone", latencies, 0, in_threads(worker, clients))


def report(backend: str, runs: list[Run]) -> None:
    base = runs[0]
    print(f"\n{backend}")
    print(f"  {'scenario':<13} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}"
          f" {'rate vs baseline':>17} {'p50 vs baseline':>16}")  # fmt: skip
    for run in runs:
        print(
            f"  {run.name:<13} {run.rate:8.1f} {run.percentile(0.5):8.1f} "
            f"{run.percentile(0.99):8.1f} {run.errors:7d} {run.rate / base.rate:16.3f}x "
            f"{run.percentile(0.5) / base.percentile(0.5):15.1f}x"
        )
    answers = next(r for r in runs if r.name == "answers-only")
    met = answers.rate >= 50 and answers.percentile(0.99) < 250
    print(
        f"  target answers-only >= 50/s with p99 < 250 ms: {'met' if met else 'NOT met'} "
        f"({answers.rate:.1f}/s, p99 {answers.percentile(0.99):.0f} ms)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=8.0, help="seconds per scenario")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients")
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    print(f"grader service on 127.0.0.1: {args.clients} clients, {args.duration:g} s per scenario")
    alone = grade_alone(args.clients, args.duration)
    print(
        f"\nreference: grader.grading.grade() in-process, {args.clients} threads, no HTTP/database:"
        f" {alone.rate:.1f}/s, p50 {alone.percentile(0.5):.0f} ms,"
        f" p99 {alone.percentile(0.99):.0f} ms"
    )
    pg: PostgresServer | None = None
    try:
        for backend in backends:
            url = ""
            if backend == "postgresql":
                bin_dir = find_bin_dir()
                if bin_dir is None:
                    print("\npostgresql: skipped (no server binaries; `make setup` installs them)")
                    continue
                pg = PostgresServer(bin_dir)
                url = fresh_postgres_database(pg.start())
            runs = bench_backend(backend, url, args.clients, args.duration)
            report(backend, runs)
    finally:
        if pg is not None:
            pg.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark the Python cells in headless Chromium on localhost (never a timed test).

    python bench/bench_cells.py [--site DIR] [--repeat 3] [--reruns 20]

Measures, on Lesson 8 (the breakdown cell `l08-gpt2-breakdown`):

- bytes the page transfers before the first Run, and how many of them are Pyodide's (target 0);
- time from the first Run click to the first output, cold: empty browser cache (target < 3 s);
- a re-run once Python is up (target < 50 ms);
- first output on a second visit to the page, with the browser's cache warm (target < 1.5 s): the
  worker restores the memory snapshot of Python the first visit stored in Cache Storage;
- first output on the next lesson reached by Material's instant navigation (Python stays up).

The baseline, measured in the same run against the same server and the same vendored Pyodide, is
the smallest page that can do this job: one button that starts Pyodide in a module worker and runs
`print(1)`. The ratios say what the course's cells (the editor, the grader wheel, importing
grader.memory, the cell runtime) cost on top of Pyodide itself.

Numbers are medians of --repeat fresh browser contexts (cold, second visit) and of --reruns re-runs.
Each page is left to settle (0.5 s and an idle callback) before the timed click.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [  # as in tests/conftest.py: no request may leave the host
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
]
LESSON = "/stage-4/lesson-08/"
CELL = "l08-gpt2-breakdown"
NEXT_LESSON = "/stage-5/lesson-11/"
NEXT_CELL = "l11-activations-60gb"
PYODIDE_PARTS = ("/vendor/pyodide/", "/vendor/wheels/")
CELLS_PARTS = ("/assets/javascripts/cells/", "/assets/stylesheets/cells.css")
SETTLE_MS = 500
REVISIT_PAUSE_S = 3.0
TARGETS = {"cold": 3.0, "warm": 0.050, "revisit": 1.5}

BASELINE_DIR = "__bench_baseline"
BASELINE_HTML = """<!doctype html><meta charset="utf-8"><title>baseline</title>
<button id="run">Run</button><pre id="out"></pre>
<script type="module">
let worker = null;
const out = document.getElementById("out");
document.getElementById("run").addEventListener("click", () => {
  out.textContent = "";
  if (!worker) {
    worker = new Worker("worker.js", { type: "module" });
    worker.onmessage = (e) => { out.textContent += e.data; };
  }
  worker.postMessage("print(1)");
});
</script>
"""
BASELINE_WORKER = """const ready = import("../vendor/pyodide/pyodide.mjs").then(({ loadPyodide }) =>
  loadPyodide({ indexURL: new URL("../vendor/pyodide/", self.location).href }));
self.onmessage = async (e) => {
  const py = await ready;
  py.setStdout({ batched: (s) => self.postMessage(s + "\\n") });
  py.runPython(e.data);
};
"""

# Resolves with the ms from the Run click to the first output of the cell (or of the baseline).
FIRST_OUTPUT_JS = """([runSelector, outSelector]) => new Promise((resolve) => {
  const out = document.querySelector(outSelector);
  const seen = () => out.textContent.trim().length > 0 || out.querySelector("img");
  const t0 = performance.now();
  new MutationObserver((_, observer) => {
    if (seen()) { observer.disconnect(); resolve(performance.now() - t0); }
  }).observe(out, { childList: true, subtree: true, characterData: true });
  document.querySelector(runSelector).click();
})"""


@dataclass
class Subject:
    """What is measured: the course's lesson cell, or the baseline page."""

    name: str
    path: str
    run: str
    out: str
    ready: Callable[[object], None]
    next_lesson: bool = False
    numbers: dict[str, list[float]] = field(default_factory=dict)

    def add(self, key: str, value: float) -> None:
        self.numbers.setdefault(key, []).append(value)

    def median(self, key: str) -> float:
        return statistics.median(self.numbers[key])


def build_site(dest: Path) -> None:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"mkdocs build failed:\n{proc.stdout}\n{proc.stderr}")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@contextmanager
def serve(directory: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def fmt_bytes(n: float) -> str:
    for unit, size in (("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n:.0f} B"


def fmt_seconds(s: float) -> str:
    return f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"


def measure(browser, url: str, subject: Subject, reruns: int) -> None:
    """One fresh context: bytes before Run, cold first output, re-runs, then a second visit."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    transferred = {"all": 0, "pyodide": 0, "cells": 0}
    foreign: list[str] = []

    def finished(request) -> None:  # counts what arrives before the first Run
        sizes = request.sizes()
        size = sizes["responseBodySize"] + sizes["responseHeadersSize"]
        transferred["all"] += size
        if any(part in request.url for part in PYODIDE_PARTS):
            transferred["pyodide"] += size
        if any(part in request.url for part in CELLS_PARTS):
            transferred["cells"] += size

    def sent(request) -> None:
        if not request.url.startswith(url):
            foreign.append(request.url)

    context.on("request", sent)
    context.on("requestfinished", finished)
    # Material navigates instantly only to pages its sitemap lists under this origin; the built
    # sitemap names site_url's, so serve it rewritten to this server's.
    context.route("**/sitemap.xml", lambda route: local_sitemap(route, url))
    try:
        page = context.new_page()
        page.goto(url + subject.path, wait_until="networkidle")
        subject.ready(page)
        settle(page)
        context.remove_listener("requestfinished", finished)
        subject.add("bytes", transferred["all"])
        subject.add("pyodide_bytes", transferred["pyodide"])
        subject.add("cells_bytes", transferred["cells"])

        page.evaluate("window.__marks = null")
        page.evaluate(
            "document.addEventListener('course:python-ready', e => window.__marks = e.detail)"
        )
        subject.add("cold", page.evaluate(FIRST_OUTPUT_JS, [subject.run, subject.out]) / 1000)
        marks = page.evaluate("window.__marks")
        if marks:
            for key, ms in marks["marks"].items():
                subject.add(f"mark:{key}", ms / 1000)
        wait_idle(page, subject)
        for _ in range(reruns):
            subject.add("warm", page.evaluate(FIRST_OUTPUT_JS, [subject.run, subject.out]) / 1000)
            wait_idle(page, subject)
        if subject.next_lesson:
            # Instant navigation to another lesson keeps the worker: its cells start warm.
            page.locator(f'nav a[href$="{NEXT_LESSON.strip("/")}/"]').first.click()
            page.wait_for_selector(f"#cell-{NEXT_CELL}[data-cell-ready]")
            settle(page)
            run, out = f"#cell-{NEXT_CELL} .pycell-run", f"#cell-{NEXT_CELL} .pycell-output"
            subject.add("next", page.evaluate(FIRST_OUTPUT_JS, [run, out]) / 1000)
        page.close()

        time.sleep(REVISIT_PAUSE_S)  # the learner comes back later; the first page is gone
        second = context.new_page()  # same context: the browser cache is warm
        second.goto(url + subject.path, wait_until="networkidle")
        subject.ready(second)
        settle(second)
        second.evaluate(
            "document.addEventListener('course:python-ready', e => window.__marks = e.detail)"
        )
        subject.add("revisit", second.evaluate(FIRST_OUTPUT_JS, [subject.run, subject.out]) / 1000)
        marks = second.evaluate("window.__marks || null")
        if marks:
            for key, ms in marks["marks"].items():
                subject.add(f"revisit-mark:{key}", ms / 1000)
            subject.add("revisit_snapshot", 1.0 if marks.get("how") == "snapshot" else 0.0)
        second.close()
    finally:
        context.close()
    if foreign:
        sys.exit(f"non-local requests: {foreign}")


def local_sitemap(route, url: str) -> None:
    body = re.sub(r"<loc>https?://[^/<]+/", f"<loc>{url}/", route.fetch().text())
    route.fulfill(body=body, content_type="application/xml")


def settle(page) -> None:
    """Let the page finish its own start-up work (search index, maths) before the click, as a
    reader would: the click is timed, the page's loading is not."""
    page.wait_for_timeout(SETTLE_MS)
    page.evaluate("() => new Promise(r => requestIdleCallback(r, { timeout: 2000 }))")


def wait_idle(page, subject: Subject) -> None:
    page.wait_for_function(
        "sel => !document.querySelector(sel).disabled", arg=subject.run, timeout=60_000
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one now)")
    parser.add_argument("--repeat", type=int, default=3, help="fresh contexts per subject")
    parser.add_argument("--reruns", type=int, default=20, help="warm re-runs per context")
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or Path(tmp) / "site"
        if args.site is None:
            build_site(site)
        manifest = json.loads((site / "vendor" / "manifest.json").read_text())
        # The baseline page goes into the site for the run: same origin, same vendored Pyodide.
        extra = site / BASELINE_DIR
        extra.mkdir(exist_ok=True)
        (extra / "index.html").write_text(BASELINE_HTML)
        (extra / "worker.js").write_text(BASELINE_WORKER)
        try:
            course = Subject(
                "course cell",
                LESSON,
                f"#cell-{CELL} .pycell-run",
                f"#cell-{CELL} .pycell-output",
                lambda page: page.wait_for_selector(f"#cell-{CELL}[data-cell-ready]"),
                next_lesson=True,
            )
            baseline = Subject(
                "baseline",
                f"/{BASELINE_DIR}/",
                "#run",
                "#out",
                lambda page: None,
            )
            with serve(site) as url, sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
                )
                version = browser.version
                for _ in range(args.repeat):  # interleaved, so load on the machine hits both
                    measure(browser, url, baseline, args.reruns)
                    measure(browser, url, course, args.reruns)
                browser.close()
        finally:
            for name in ("index.html", "worker.js"):
                (extra / name).unlink(missing_ok=True)
            extra.rmdir()
    report(course, baseline, version, manifest, args)
    return 0


def report(course: Subject, baseline: Subject, version: str, manifest: dict, args) -> None:
    print(
        f"bench_cells: headless Chromium {version} on localhost, Pyodide "
        f"{manifest['pyodide_version']}, medians of {args.repeat} fresh contexts "
        f"({args.reruns} re-runs each); baseline = bare Pyodide page, same run"
    )
    header = f"{'':34}{'course':>10}{'baseline':>10}{'ratio':>10}   target"
    print(header)
    print("-" * len(header))

    def row(label: str, key: str, show: Callable[[float], str], target: str, ok: bool | None):
        c = course.median(key)
        b = baseline.median(key) if key in baseline.numbers else None
        ratio = f"{c / b:.2f}x" if b and not key.endswith("bytes") else "-"
        verdict = "" if ok is None else ("  ok" if ok else "  MISSED")
        shown_b = show(b) if b is not None else "-"
        print(f"{label:34}{show(c):>10}{shown_b:>10}{ratio:>10}   {target}{verdict}")

    row("bytes before the first Run", "bytes", fmt_bytes, "-", None)
    row("  of which the cells' JS and CSS", "cells_bytes", fmt_bytes, "-", None)
    row(
        "  of which Pyodide and the wheel",
        "pyodide_bytes",
        fmt_bytes,
        "0 B",
        course.median("pyodide_bytes") == 0,
    )
    for key, label, target in [
        ("cold", "first output, cold", "< 3 s"),
        ("warm", "re-run, warm", "< 50 ms"),
        ("revisit", "first output, second visit", "< 1.5 s"),
    ]:
        row(label, key, fmt_seconds, target, course.median(key) < TARGETS[key])
    row("next lesson, instant navigation", "next", fmt_seconds, "-", None)
    for prefix, visit in (("mark:", "cold"), ("revisit-mark:", "second visit")):
        marks = {k[len(prefix) :]: course.median(k) for k in course.numbers if k.startswith(prefix)}
        if marks:
            steps = ", ".join(f"{name} {fmt_seconds(s)}" for name, s in marks.items())
            print(f"course worker, {visit} (from worker start): {steps}")
    restored = course.numbers.get("revisit_snapshot", [])
    if restored:
        print(
            f"second visits that restored the stored Python snapshot: "
            f"{int(sum(restored))}/{len(restored)} (the baseline has none)"
        )
    print(f"Pyodide download on the first Run: {fmt_bytes(manifest['cells_download_bytes'])}")


if __name__ == "__main__":
    sys.exit(main())

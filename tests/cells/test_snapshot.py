"""The stored Python snapshot (worker.js): a second start restores it, and a bad one falls back.

A fresh browser context per test (tests/conftest.py: empty cache and storage, no request may leave
the host). The first start is fresh and stores a snapshot in Cache Storage; a later page's start
restores it and must give the same results: output, tracebacks with the learner's lines, the
memory model, Stop. A corrupt snapshot must never cost the learner more than a normal start.
"""

from __future__ import annotations

import pytest

from tests.cells.test_cells_browser import LESSON_8, cell, run_cell, wait_ready

pytestmark = pytest.mark.browser

CELL = "l08-gpt2-breakdown"
SNAPSHOT_CACHE = "course-python-snapshot"


def start_python(page, url: str) -> dict:
    """Open Lesson 8, run its breakdown cell; return the `course:python-ready` detail."""
    page.goto(url)
    wait_ready(page, 3)
    page.evaluate(
        "document.addEventListener('course:python-ready', e => window.__ready = e.detail)"
    )
    output = run_cell(page, CELL)
    assert "24" in output and "GB" in output, output
    return page.evaluate("window.__ready")


def stored_snapshots(page) -> list[str]:
    return page.evaluate(
        """async name => {
             if (!(await caches.has(name))) return [];
             const keys = await (await caches.open(name)).keys();
             return keys.map(r => r.url);
           }""",
        SNAPSHOT_CACHE,
    )


def wait_for_snapshot(page) -> list[str]:
    """The worker stores the snapshot in the background, after the first output."""
    for _ in range(100):
        keys = stored_snapshots(page)
        if keys:
            return keys
        page.wait_for_timeout(100)
    raise AssertionError("no Python snapshot stored within 10 s")


def test_a_second_start_restores_the_snapshot_and_behaves_the_same(context, site_url) -> None:
    first = context.new_page()
    first.set_default_timeout(30_000)
    assert stored_snapshots_before_run(first, site_url) == []
    assert start_python(first, site_url + LESSON_8)["how"] == "fresh"
    keys = wait_for_snapshot(first)
    assert len(keys) == 1 and "/__python-snapshot/314.0.7/" in keys[0], keys
    first.close()

    second = context.new_page()
    second.set_default_timeout(30_000)
    assert start_python(second, site_url + LESSON_8)["how"] == "snapshot"
    editor = cell(second, CELL).locator("textarea")
    editor.fill(
        "from grader.memory import model_states\n\nstates = model_states(1.5e9)\nprint(states.totl)"
    )
    run_cell(second, CELL)
    error = cell(second, CELL).locator(".pycell-error").inner_text()
    assert f'File "<cell {CELL}>", line 4, in <module>' in error
    assert "    print(states.totl)" in error and "Did you mean: 'total'?" in error
    assert "pyodide" not in error.lower()
    editor.fill("import sys\nprint(sorted(m for m in sys.modules if m.startswith('grader.'))[:1])")
    assert "grader." in run_cell(second, CELL)
    assert stored_snapshots(second) == keys  # restoring does not store another one


def stored_snapshots_before_run(page, url: str) -> list[str]:
    page.goto(url + LESSON_8)
    wait_ready(page, 3)
    return stored_snapshots(page)


def test_a_corrupt_snapshot_falls_back_to_a_fresh_start(context, site_url) -> None:
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(site_url + LESSON_8)
    wait_ready(page, 3)
    assert start_python(page, site_url + LESSON_8)["how"] == "fresh"
    [key] = wait_for_snapshot(page)
    page.evaluate(
        """async ([name, key]) => {
             const cache = await caches.open(name);
             await cache.put(key, new Response(new Uint8Array(4096).fill(7)));
           }""",
        [SNAPSHOT_CACHE, key],
    )
    page.close()

    again = context.new_page()
    again.set_default_timeout(30_000)
    ready = start_python(again, site_url + LESSON_8)
    assert ready["how"] == "fresh" and "snapshot-read" in ready["marks"], ready
    assert wait_for_snapshot(again) == [key]  # replaced by a good one
    again.close()

    third = context.new_page()
    third.set_default_timeout(30_000)
    assert start_python(third, site_url + LESSON_8)["how"] == "snapshot"

"""The cells in headless Chromium: lazy loading, running, editing, errors, Stop, navigation.

The first two tests get a fresh browser context (empty cache and storage: a cold start) from
tests/conftest.py; the others share one context (warm_page, tests/cells/conftest.py) so that
only one Python start is cold. Both fail a test on any request that leaves the host.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

LESSON_8 = "/stage-4/lesson-08/"
LESSON_11 = "/stage-5/lesson-11/"
FEATURE = "/features/cells/"
PYTHON_FILES = ("/vendor/pyodide/", "/vendor/wheels/", "/vendor/manifest.json", "cells/worker.js")
COLD_START_MS = 30_000  # generous: a cold Pyodide start takes ~2-3 s here


def cell(page, cell_id: str):
    return page.locator(f"#cell-{cell_id}")


def wait_ready(page, count: int) -> None:
    page.wait_for_function(
        "n => document.querySelectorAll('.pycell[data-cell-ready]').length === n", arg=count
    )


def wait_idle(page, cell_id: str, timeout: int = COLD_START_MS) -> None:
    page.wait_for_function(
        """id => {
             const el = document.getElementById('cell-' + id);
             return el && !el.classList.contains('pycell--busy')
                    && !el.querySelector('.pycell-run').disabled;
           }""",
        arg=cell_id,
        timeout=timeout,
    )


def run_cell(page, cell_id: str, timeout: int = COLD_START_MS) -> str:
    cell(page, cell_id).locator(".pycell-run").click()
    wait_idle(page, cell_id, timeout)
    return cell(page, cell_id).locator(".pycell-output").inner_text()


def status(page, cell_id: str) -> str:
    return cell(page, cell_id).locator(".pycell-status").inner_text()


def python_requests(urls: list[str]) -> list[str]:
    return [u for u in urls if any(part in u for part in PYTHON_FILES)]


def test_reading_a_lesson_downloads_no_python(page, site_url, request_log) -> None:
    page.goto(site_url + LESSON_8)
    wait_ready(page, 3)
    assert page.locator(".pycell-note").count() == 1
    assert "share one namespace" in page.locator(".pycell-note").inner_text()
    assert page.locator(".pycell textarea").count() == 3
    page.wait_for_timeout(500)
    assert python_requests(request_log.urls) == []


def test_breakdown_cell_loads_python_with_progress_and_shows_24_gb(
    page, site_url, request_log, screenshot_dir: Path
) -> None:
    page.goto(site_url + LESSON_8)
    wait_ready(page, 3)
    page.evaluate(
        """() => {
             window.__statuses = [];
             const s = document.querySelector('#cell-l08-gpt2-breakdown .pycell-status');
             new MutationObserver(() => window.__statuses.push(s.textContent))
               .observe(s, {childList: true, characterData: true, subtree: true});
           }"""
    )
    output = run_cell(page, "l08-gpt2-breakdown")
    assert re.search(r"^total\s+24 GB$", output, re.M), output
    assert "fp16 parameters alone: 3 GB" in output
    statuses = page.evaluate("window.__statuses")
    assert any(re.fullmatch(r"Loading Python… \d{1,3}%", s) for s in statuses), statuses
    assert status(page, "l08-gpt2-breakdown").startswith("Ran in")
    fetched = python_requests(request_log.urls)
    assert any(u.endswith("/vendor/pyodide/pyodide.asm.wasm") for u in fetched)
    assert any(re.search(r"/vendor/wheels/grader-.*\.whl$", u) for u in fetched)
    cell(page, "l08-gpt2-breakdown").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "cells-lesson-08-light.png"))
    page.locator('label[title="Switch to dark mode"]').first.click()
    page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
    page.screenshot(path=str(screenshot_dir / "cells-lesson-08-dark.png"))


def test_edit_rerun_with_shift_enter_keep_the_edit_and_reset(warm_page, site_url) -> None:
    page = warm_page
    page.goto(site_url + LESSON_8)
    wait_ready(page, 3)
    editor = cell(page, "l08-gpt2-breakdown").locator("textarea")
    original = editor.input_value()
    assert "params = 1.5e9" in original
    assert "24 GB" in run_cell(page, "l08-gpt2-breakdown")

    editor.fill(original.replace("params = 1.5e9", "params = 3e9"))
    editor.press("Shift+Enter")
    page.wait_for_function(
        "() => document.querySelector('#cell-l08-gpt2-breakdown .pycell-output')"
        ".innerText.includes('48 GB')"
    )
    wait_idle(page, "l08-gpt2-breakdown")
    output = cell(page, "l08-gpt2-breakdown").locator(".pycell-output").inner_text()
    assert re.search(r"^total\s+48 GB$", output, re.M) and "alone: 6 GB" in output
    assert "run 2 in this page's namespace" in status(page, "l08-gpt2-breakdown")

    key = "course:cell:stage-4/lesson-08/:l08-gpt2-breakdown"
    saved = page.evaluate("k => localStorage.getItem(k)", key)
    assert saved is not None and "params = 3e9" in saved

    page.reload()
    wait_ready(page, 3)
    editor = cell(page, "l08-gpt2-breakdown").locator("textarea")
    assert "params = 3e9" in editor.input_value(), "the edit survives a reload"
    assert "pycell--edited" in (cell(page, "l08-gpt2-breakdown").get_attribute("class") or "")

    cell(page, "l08-gpt2-breakdown").locator(".pycell-reset").click()
    assert editor.input_value() == original
    assert page.evaluate("k => localStorage.getItem(k)", key) is None
    editor.press("Control+z")
    assert "params = 3e9" in editor.input_value(), "Ctrl+Z undoes Reset"


def test_errors_are_readable_and_use_the_learners_line_numbers(warm_page, site_url) -> None:
    page = warm_page
    page.goto(site_url + LESSON_8)
    wait_ready(page, 3)
    editor = cell(page, "l08-gpt2-breakdown").locator("textarea")

    editor.fill("x = 1\ny = (x +\nprint(y)")
    run_cell(page, "l08-gpt2-breakdown")
    error = cell(page, "l08-gpt2-breakdown").locator(".pycell-error").inner_text()
    assert 'File "<cell l08-gpt2-breakdown>", line 2' in error
    assert "SyntaxError: '(' was never closed" in error
    assert "Traceback" not in error and "pyodide" not in error.lower()
    assert status(page, "l08-gpt2-breakdown").startswith("Error in")

    editor.fill(
        "from grader.memory import model_states\n\nstates = model_states(1.5e9)\nprint(states.totl)"
    )
    run_cell(page, "l08-gpt2-breakdown")
    error = cell(page, "l08-gpt2-breakdown").locator(".pycell-error").inner_text()
    assert 'File "<cell l08-gpt2-breakdown>", line 4, in <module>' in error
    assert "    print(states.totl)" in error
    assert "AttributeError" in error and "Did you mean: 'total'?" in error
    frames = re.findall(r'^\s*File "([^"]+)"', error, re.M)
    assert frames == ["<cell l08-gpt2-breakdown>"], error


def test_stop_ends_an_endless_loop_and_the_next_run_works(warm_page, site_url) -> None:
    page = warm_page
    page.goto(site_url + FEATURE)
    wait_ready(page, 5)
    assert "24 GB" in run_cell(page, "demo-model-states")
    loop = cell(page, "demo-loop")
    loop.locator(".pycell-run").click()
    page.wait_for_function(
        "() => document.querySelector('#cell-demo-loop .pycell-status').textContent === 'Running…'"
    )
    page.wait_for_timeout(300)
    # The page answers while Python spins in the worker.
    started = time.perf_counter()
    assert page.evaluate("1 + 1") == 2
    assert time.perf_counter() - started < 0.5
    loop.locator(".pycell-stop").click()
    wait_idle(page, "demo-loop", timeout=1000)  # Stop ends it within a second
    assert "Python was restarted" in loop.locator(".pycell-output").inner_text()
    assert status(page, "demo-loop") == "Stopped · Python restarted"
    # A fresh Python: the namespace is empty, and the next Run works.
    run_cell(page, "demo-share")
    assert "NameError: name 'states' is not defined" in cell(page, "demo-share").inner_text()
    assert "24 GB" in run_cell(page, "demo-model-states")
    assert "fp16 weights are 12% of the model states" in run_cell(page, "demo-share")


def test_stop_interrupts_and_keeps_the_namespace_when_cross_origin_isolated(
    warm_page, isolated_site_url
) -> None:
    page = warm_page
    page.goto(isolated_site_url + FEATURE)
    wait_ready(page, 5)
    assert page.evaluate("crossOriginIsolated") is True
    assert "keeps the namespace" in page.locator(".pycell-note").inner_text()
    assert "24 GB" in run_cell(page, "demo-model-states")
    loop = cell(page, "demo-loop")
    loop.locator(".pycell-run").click()
    page.wait_for_function(
        "() => document.querySelector('#cell-demo-loop .pycell-status').textContent === 'Running…'"
    )
    loop.locator(".pycell-stop").click()
    wait_idle(page, "demo-loop", timeout=1000)
    assert "KeyboardInterrupt" in loop.locator(".pycell-output").inner_text()
    assert status(page, "demo-loop") == "Stopped · the namespace is kept"
    assert "fp16 weights are 12%" in run_cell(page, "demo-share", timeout=5000)


def test_an_svg_value_is_shown_as_a_picture(warm_page, site_url, screenshot_dir: Path) -> None:
    page = warm_page
    page.goto(site_url + FEATURE)
    wait_ready(page, 5)
    run_cell(page, "demo-picture")
    img = cell(page, "demo-picture").locator(".pycell-figure img")
    assert img.count() == 1
    assert (img.get_attribute("src") or "").startswith("data:image/svg+xml")
    assert (img.get_attribute("alt") or "").startswith("Model states per GPU")
    width = page.evaluate(
        "() => document.querySelector('#cell-demo-picture .pycell-figure img').naturalWidth"
    )
    assert width == 720, "the picture decoded"
    cell(page, "demo-picture").screenshot(path=str(screenshot_dir / "cells-svg-light.png"))


def test_lesson_11_cells_queue_and_run_in_order(warm_page, site_url, screenshot_dir: Path) -> None:
    page = warm_page
    page.emulate_media(color_scheme="dark")
    page.goto(site_url + LESSON_11)
    wait_ready(page, 3)
    ids = ["l11-activations-60gb", "l11-checkpointing", "l11-double-seq"]
    for cell_id in ids:  # three clicks at once: the runs queue behind the loading Python
        cell(page, cell_id).locator(".pycell-run").click()
    for cell_id in ids:
        wait_idle(page, cell_id)
    runs = [re.search(r"run (\d+) in", status(page, i)) for i in ids]
    assert [int(m.group(1)) for m in runs if m] == [1, 2, 3]
    text = {i: cell(page, i).locator(".pycell-output").inner_text() for i in ids}
    assert "60.4 GB" in text["l11-activations-60gb"]
    assert "5.03 GB" in text["l11-checkpointing"]
    assert "x2.00" in text["l11-double-seq"] and "x3.40" in text["l11-double-seq"]
    cell(page, "l11-checkpointing").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "cells-lesson-11-dark.png"))


def test_cells_survive_instant_navigation(warm_page, site_url) -> None:
    page = warm_page

    # Material follows a link instantly only if the sitemap lists it under the page's own origin;
    # the built sitemap names site_url's origin, so point it at this test server.
    def local_sitemap(route) -> None:
        body = route.fetch().text()
        body = re.sub(r"<loc>https?://[^/<]+/", f"<loc>{site_url}/", body)
        route.fulfill(body=body, content_type="application/xml")

    page.route("**/sitemap.xml", local_sitemap)
    page.goto(site_url + LESSON_8)
    wait_ready(page, 3)
    page.wait_for_load_state("networkidle")  # Material has read the sitemap it navigates by
    page.evaluate("window.__samePage = true")
    editor = cell(page, "l08-states-calculator").locator("textarea")
    edited = editor.input_value().replace("params = 1.5e9", "params = 2e9")
    editor.fill(edited)  # and leave at once: the edit must not be lost
    page.locator(f'nav a[href$="{FEATURE.strip("/")}/"]').first.click()
    page.wait_for_url(f"**{FEATURE}")
    wait_ready(page, 5)
    assert page.evaluate("window.__samePage") is True, "instant navigation, no full reload"
    assert "24 GB" in run_cell(page, "demo-model-states")
    page.go_back()
    page.wait_for_url(f"**{LESSON_8}")
    wait_ready(page, 3)
    assert page.locator(".pycell-toolbar").count() == 3, "each cell enhanced exactly once"
    assert page.locator(".pycell-note").count() == 1
    assert cell(page, "l08-states-calculator").locator("textarea").input_value() == edited
    # Python is already loaded: this page's run is warm and has its own namespace.
    output = run_cell(page, "l08-gpt2-breakdown", timeout=5000)
    assert "24 GB" in output
    assert "run 1 in this page's namespace" in status(page, "l08-gpt2-breakdown")


def test_a_failed_load_says_what_is_wrong_and_the_next_run_retries(warm_page, site_url) -> None:
    page = warm_page
    page.route("**/vendor/manifest.json", lambda route: route.fulfill(status=404, body="gone"))
    page.goto(site_url + LESSON_8)
    wait_ready(page, 3)
    output = run_cell(page, "l08-gpt2-breakdown")
    assert "Could not load Python: vendor/manifest.json: HTTP 404 (run `make vendor`)" in output
    assert status(page, "l08-gpt2-breakdown") == "Python is not running"
    page.unroute("**/vendor/manifest.json")
    assert "24 GB" in run_cell(page, "l08-gpt2-breakdown")


def test_editor_keys_indent_and_let_focus_leave(page, site_url, request_log) -> None:
    page.goto(site_url + FEATURE)
    wait_ready(page, 5)
    editor = cell(page, "demo-loop").locator("textarea")
    editor.fill("")
    editor.focus()
    editor.press("Tab")
    editor.type("x = 1")
    assert editor.input_value() == "    x = 1"
    editor.fill("")
    editor.type("for i in range(3):")
    editor.press("Enter")
    editor.type("pass")
    assert editor.input_value() == "for i in range(3):\n    pass"
    gutter = cell(page, "demo-loop").locator(".pycell-gutter").inner_text()
    assert gutter.split() == ["1", "2"]
    # The coloured copy behind the (transparent) textarea holds exactly the same text.
    editor.type("\ns = 'a < b'  # <not> a tag")
    colours = cell(page, "demo-loop").locator(".pycell-colours")
    assert colours.text_content() == editor.input_value() + " "
    assert colours.locator(".k").all_text_contents()[:2] == ["for", "in"]
    assert colours.locator(".s").all_text_contents() == ["'a < b'"]
    assert colours.locator(".c").all_text_contents() == ["# <not> a tag"]
    editor.press("Escape")
    editor.press("Tab")  # after Escape, Tab leaves the editor
    assert page.evaluate("document.activeElement.classList.contains('pycell-run')")
    assert python_requests(request_log.urls) == [], "typing loads no Python"

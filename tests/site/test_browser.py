"""The built site in headless Chromium: offline, remembered checkboxes, instant navigation,
progress export/import, keyboard use, and screenshots of each lesson for a person to look at.

Every page is opened through the shared `context` fixture, which fails the test on any request
to a host other than the local one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

LESSON_8 = "stage-4/lesson-08/"
LESSON_11 = "stage-5/lesson-11/"
PROGRESS = "progress/"
BOX_8 = "#done-l08-warmup-allreduce"
REP_8 = "#done-l08-rep-open-model"
REP_11 = "#done-l11-rep-double-seq"


def header_progress(page: Page):
    return page.locator(".course-lesson-head .course-progress")


def row_progress(page: Page, lesson: int):
    return page.locator(f'.course-progress-table .course-progress[data-lesson="{lesson}"]')


def built_pages(built_site: Path) -> list[str]:
    return sorted(
        p.relative_to(built_site).as_posix().removesuffix("index.html")
        for p in built_site.rglob("*.html")
        if "vendor" not in p.relative_to(built_site).parts
    )


def test_every_page_loads_offline(
    built_site: Path, instant_site_url: str, page: Page, request_log
) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
    page.on(
        "response",
        lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None,
    )
    paths = built_pages(built_site)
    assert {"", LESSON_8, LESSON_11, PROGRESS, "stage-4/", "stage-5/"} <= set(paths)
    for path in paths:
        page.goto(f"{instant_site_url}/{path}", wait_until="networkidle")
    assert request_log.urls and not request_log.non_local
    # The grader service (/api/...) is not running behind this static server; 404.html is a page.
    broken = [e for e in errors if "/api/" not in e and not e.endswith("/404.html")]
    assert broken == []


def test_tick_survives_reload_and_instant_navigation(instant_site_url: str, page: Page) -> None:
    page.goto(f"{instant_site_url}/{LESSON_8}")
    expect(header_progress(page)).to_have_text("Progress: 0 of 9 done")
    page.locator(BOX_8).check()
    expect(header_progress(page)).to_have_text("Progress: 1 of 9 done")

    page.reload()
    expect(page.locator(BOX_8)).to_be_checked()
    expect(header_progress(page)).to_have_text("Progress: 1 of 9 done")
    stored = page.evaluate("localStorage.getItem('course:progress:l08-warmup-allreduce')")
    assert stored == "1"

    # Instant navigation: the document is not reloaded, so a marker on window survives.
    page.evaluate("window.__noReload = true")
    page.locator(f'nav.md-nav--primary a[href$="{LESSON_11}"]').first.click()
    page.wait_for_url(f"**/{LESSON_11}")
    expect(header_progress(page)).to_have_text("Progress: 0 of 9 done")
    expect(page.locator(".arithmatex .katex").first).to_be_visible()  # math after navigation
    page.locator(REP_11).check()
    expect(header_progress(page)).to_have_text("Progress: 1 of 9 done")

    page.locator(f'nav.md-nav--primary a[href$="{LESSON_8}"]').first.click()
    page.wait_for_url(f"**/{LESSON_8}")
    expect(page.locator(BOX_8)).to_be_checked()
    expect(page.locator(REP_8)).not_to_be_checked()
    page.locator(REP_8).check()
    expect(header_progress(page)).to_have_text("Progress: 2 of 9 done")

    page.locator('nav.md-nav--primary a[href$="progress/"]').first.click()
    page.wait_for_url(f"**/{PROGRESS}")
    expect(row_progress(page, 8)).to_have_text("2 of 9 done")
    expect(row_progress(page, 11)).to_have_text("1 of 9 done")
    assert page.evaluate("window.__noReload") is True

    # Unticking is remembered too.
    page.go_back()
    page.wait_for_url(f"**/{LESSON_8}")
    page.locator(BOX_8).uncheck()
    expect(header_progress(page)).to_have_text("Progress: 1 of 9 done")
    page.reload()
    expect(page.locator(BOX_8)).not_to_be_checked()


def test_export_then_import_in_a_fresh_browser(
    browser, instant_site_url: str, page: Page, request_log, tmp_path: Path
) -> None:
    page.goto(f"{instant_site_url}/{LESSON_8}")
    page.locator(BOX_8).check()
    page.locator(REP_8).check()
    page.goto(f"{instant_site_url}/{LESSON_11}")
    page.locator(REP_11).check()
    page.goto(f"{instant_site_url}/{PROGRESS}")
    expect(row_progress(page, 8)).to_have_text("2 of 9 done")
    with page.expect_download() as download_info:
        page.get_by_role("button", name="Export progress to a file").click()
    exported = tmp_path / "progress.json"
    download_info.value.save_as(exported)
    data = json.loads(exported.read_text())
    assert data["format"] == "course-progress" and data["version"] == 1
    assert data["items"]["l08-warmup-allreduce"] is True
    assert data["items"]["l11-rep-double-seq"] is True
    assert data["items"]["l11-warmup-fsdp-stage"] is False

    fresh = browser.new_context(viewport={"width": 1280, "height": 900})
    fresh.on("request", request_log.record)
    try:
        other = fresh.new_page()
        other.goto(f"{instant_site_url}/{PROGRESS}")
        expect(row_progress(other, 8)).to_have_text("0 of 9 done")

        # A bad file is refused with a clear message and changes nothing.
        bad = tmp_path / "bad.json"
        bad.write_text('{"format": "course-progress", "version": 1, "items": {"x": "yes"}}')
        other.locator("input.course-import").set_input_files(bad)
        expect(other.locator(".course-import-status")).to_contain_text("Could not import bad.json")
        expect(row_progress(other, 8)).to_have_text("0 of 9 done")

        other.locator("input.course-import").set_input_files(exported)
        expect(other.locator(".course-import-status")).to_contain_text("Imported progress.json")
        expect(row_progress(other, 8)).to_have_text("2 of 9 done")
        expect(row_progress(other, 11)).to_have_text("1 of 9 done")
        other.goto(f"{instant_site_url}/{LESSON_8}")
        expect(other.locator(BOX_8)).to_be_checked()
        expect(other.locator(REP_8)).to_be_checked()
        expect(header_progress(other)).to_have_text("Progress: 2 of 9 done")
    finally:
        fresh.close()


def test_checkboxes_work_by_keyboard_and_have_names(instant_site_url: str, page: Page) -> None:
    page.goto(f"{instant_site_url}/{LESSON_8}")
    box = page.get_by_role("checkbox", name="Done: The operation that keeps replicas identical")
    expect(box).to_have_count(1)
    reps = page.get_by_role("checkbox", name="Done: Pick an open model")
    expect(reps).to_have_count(1)
    for _ in range(300):  # reach the first checkbox with Tab alone
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement && document.activeElement.id") == BOX_8[1:]:
            break
    else:
        pytest.fail("the first checkbox cannot be reached with Tab")
    page.keyboard.press("Space")
    expect(box).to_be_checked()
    expect(header_progress(page)).to_have_text("Progress: 1 of 9 done")
    page.keyboard.press("Space")
    expect(box).not_to_be_checked()
    assert page.evaluate("localStorage.getItem('course:progress:l08-warmup-allreduce')") is None


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_of_each_lesson(
    instant_site_url: str, page: Page, screenshot_dir: Path, scheme: str
) -> None:
    page.emulate_media(color_scheme=scheme)
    for name, path in (("lesson-08", LESSON_8), ("lesson-11", LESSON_11), ("progress", PROGRESS)):
        page.goto(f"{instant_site_url}/{path}", wait_until="networkidle")
        palette = page.evaluate("document.body.getAttribute('data-md-color-scheme')")
        assert palette == ("slate" if scheme == "dark" else "default")
        if path != PROGRESS:  # every formula rendered by KaTeX
            expect(page.locator(".arithmatex .katex").first).to_be_visible()
            raw = page.evaluate(
                "[...document.querySelectorAll('.arithmatex')]"
                ".filter(e => !e.querySelector('.katex')).length"
            )
            assert raw == 0
        shot = screenshot_dir / f"site-{name}-{scheme}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000


def test_search_works_offline(instant_site_url: str, page: Page) -> None:
    page.goto(f"{instant_site_url}/")
    search = page.locator("input.md-search__input")
    search.click()
    page.keyboard.type("activation", delay=20)
    results = page.locator(".md-search-result__item")
    expect(results.first).to_be_visible(timeout=15_000)
    expect(page.locator(".md-search-result")).to_contain_text("Activation Memory and ZeRO-R")

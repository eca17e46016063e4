"""Practice answers survive Material's instant navigation: moving from Lesson 8 to Lesson 11
without a page load builds Lesson 11's fields once, keeps the token, and checks answers.

Material intercepts only links under `site_url`, so this builds the site once more with
`site_url` set to the test server's address (a config that INHERITs mkdocs.yml).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.service.roster import add_learner
from grader.service.settings import load_settings
from grader.service.storage import make_engine
from tests.service.postgres_server import free_port
from tests.service.server_process import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
MATCH = "#l11-practice-zero-r-match"


@pytest.fixture(scope="module")
def instant_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    work = tmp_path_factory.mktemp("instant")
    port = free_port()
    config = work / "mkdocs.yml"
    config.write_text(
        f"INHERIT: {ROOT / 'mkdocs.yml'}\n"
        f"site_url: http://127.0.0.1:{port}/\n"
        f"docs_dir: {ROOT / 'lessons'}\n"
        f"theme:\n  custom_dir: {ROOT / 'site_overrides'}\n"
    )
    site = work / "site"
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=ROOT,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    engine = make_engine(load_settings(env={}, data_dir=work / "data"))
    token = add_learner(engine, "Ada")
    engine.dispose()
    server = ServerProcess(work / "data", site_dir=site, port=port).start()
    try:
        yield server.url, token
    finally:
        server.stop()


@pytest.mark.browser
def test_fields_survive_instant_navigation(page, instant_server: tuple[str, str]) -> None:
    url, token = instant_server
    page.set_default_timeout(60_000)
    page.goto(url + "/stage-4/lesson-08/")
    page.fill("#practice-token", token)
    page.click(".practice-token-form button[type=submit]")
    page.wait_for_selector(".practice-status:has-text('Signed in as Ada')")
    page.evaluate("window.__sameDocument = true")

    page.click("a[href$='stage-5/lesson-11/']")
    page.wait_for_selector(f"{MATCH} .practice-matching")
    assert page.evaluate("window.__sameDocument === true"), "that was a full page load"
    page.wait_for_selector(".practice-status:has-text('Signed in as Ada')")
    assert page.locator(".practice-panel").count() == 1
    answers = page.locator(".exercise-answer").count()
    assert answers > 0 and page.locator(".practice-form").count() == answers

    for left, right in (("partition", "replicated"), ("buffers", "buffers-grow")):
        page.select_option(f"{MATCH}-match-{left}", right)
    page.select_option(f"{MATCH}-match-defrag", "replicated")  # one pair wrong
    page.click(f"{MATCH} .practice-check")
    feedback = page.locator(f"{MATCH}-feedback")
    feedback.locator(".practice-verdict").wait_for()
    assert "2 / 3 points" in feedback.inner_text()

    page.go_back()
    page.wait_for_selector("#l08-practice-7b-states .practice-form")
    assert page.locator(".practice-panel").count() == 1
    assert page.locator("#l08-practice-7b-states .practice-form").count() == 1

"""The practice answers in a real browser (headless Chromium, local requests only).

With the grader: enter a token, answer Lesson 8's practice questions (one right, one wrong), see
both feedbacks, reload, see the past results. Without it (the static site): the page says so and
the answers download as a submission file that `python -m grader grade` accepts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.service.roster import add_learner
from grader.service.settings import load_settings
from grader.service.storage import make_engine
from tests.service.server_process import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
STATES = "#l08-practice-7b-states"
WHY = "#l08-practice-why-dp-fails"


@pytest.fixture()
def served(tmp_path: Path, built_site: Path) -> Iterator[tuple[ServerProcess, str]]:
    data = tmp_path / "data"
    engine = make_engine(load_settings(env={}, data_dir=data))
    token = add_learner(engine, "Ada")
    engine.dispose()
    server = ServerProcess(data, site_dir=built_site).start()
    try:
        yield server, token
    finally:
        server.stop()


@pytest.mark.browser
def test_check_answers_then_see_them_after_a_reload(
    page, served: tuple[ServerProcess, str], screenshot_dir: Path
) -> None:
    server, token = served
    page.set_default_timeout(60_000)  # grading on a loaded 2-core machine
    page.goto(server.url + "/stage-4/lesson-08/")
    page.fill("#practice-token", token)
    page.click(".practice-token-form button[type=submit]")
    page.wait_for_selector(".practice-status:has-text('Signed in as Ada')")

    page.fill(f"{STATES}-value", "112")  # the unit menu says GB
    assert page.input_value(f"{STATES}-unit") == "GB"
    page.click(f"{STATES} .practice-check")
    page.check(f"{WHY}-choice-a")
    page.click(f"{WHY} .practice-check")
    right = page.locator(f"{STATES}-feedback")
    wrong = page.locator(f"{WHY}-feedback")
    right.locator(".practice-verdict").wait_for()
    wrong.locator(".practice-verdict").wait_for()
    assert right.get_attribute("aria-live") == "polite"
    assert "Correct" in right.inner_text() and "2 / 2 points" in right.inner_text()
    assert "Not yet" in wrong.inner_text() and "0 / 1 point" in wrong.inner_text()
    assert "(a)" in wrong.inner_text()  # the feedback written for option a
    page.locator(STATES).scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "practice-checked.png"))

    page.reload()
    page.wait_for_selector(".practice-status:has-text('Signed in as Ada')")  # token remembered
    assert page.locator(".practice-token-form").is_hidden()
    right.locator(".practice-verdict").wait_for()
    wrong.locator(".practice-verdict").wait_for()
    assert "last checked" in right.inner_text() and "1 attempt" in right.inner_text()
    assert "Correct" in right.inner_text() and "Not yet" in wrong.inner_text()
    assert page.input_value(f"{STATES}-value") == "112"
    assert page.is_checked(f"{WHY}-choice-a")
    page.locator(WHY).scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "practice-after-reload.png"))

    # Instant navigation emits document$ again for the same page: nothing is built twice.
    page.evaluate("window.document$.next(document)")
    page.wait_for_timeout(300)
    assert page.locator(".practice-panel").count() == 1
    assert page.locator(f"{STATES} .practice-form").count() == 1
    assert page.locator(".exercise-answer:not([data-practice-ready])").count() == 0


@pytest.mark.browser
def test_static_site_offers_a_submission_file(
    page, site_url: str, tmp_path: Path, screenshot_dir: Path
) -> None:
    page.goto(site_url + "/stage-4/lesson-08/")
    status = page.locator(".practice-status")
    status.filter(has_text="No grader is reachable").wait_for()
    page.fill("#practice-name", "Ada")
    page.fill(f"{STATES}-value", "112")
    page.check(f"{WHY}-choice-b")
    page.click(f"{WHY} .practice-check")
    assert "cannot be checked here" in page.inner_text(f"{WHY}-feedback")
    page.locator(".practice-panel").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "practice-offline.png"))
    with page.expect_download() as download:
        page.click(".practice-download")
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    assert path.name == "lesson-08-answers.json"
    submission = json.loads(path.read_text())
    assert submission["learner"] == "Ada" and submission["lesson"] == 8
    assert submission["answers"][WHY[1:]] == "b"
    assert submission["answers"][STATES[1:]] == "112 GB"
    graded = subprocess.run(
        [sys.executable, "-m", "grader", "grade", "--json", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert graded.returncode == 0, graded.stderr
    results = json.loads(graded.stdout)
    assert {t["name"]: t["status"] for t in results["tests"]} == {
        "l08-practice-7b-states": "passed",
        "l08-practice-why-dp-fails": "passed",
    }


@pytest.mark.browser
def test_check_after_a_network_error_reuses_its_key(
    page, served: tuple[ServerProcess, str]
) -> None:
    server, token = served
    page.set_default_timeout(60_000)
    keys: list[str] = []

    def flaky(route) -> None:
        keys.append(route.request.headers["idempotency-key"])
        if len(keys) <= 3:  # the first Check and its two automatic retries are lost
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route("**/api/lessons/8/submissions", flaky)
    page.goto(server.url + "/stage-4/lesson-08/")
    page.fill("#practice-token", token)
    page.click(".practice-token-form button[type=submit]")
    page.wait_for_selector(".practice-status:has-text('Signed in as Ada')")
    page.check(f"{WHY}-choice-b")
    page.click(f"{WHY} .practice-check")
    page.locator(f"{WHY}-feedback").filter(has_text="network error").wait_for()
    page.click(f"{WHY} .practice-check")
    page.locator(f"{WHY}-feedback .practice-verdict").wait_for()
    assert len(keys) == 4 and len(set(keys)) == 1
    page.reload()
    page.locator(f"{WHY}-feedback").filter(has_text="1 attempt,").wait_for()

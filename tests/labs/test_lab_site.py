"""The lab boxes in the built site: on the lesson pages, downloadable from the site itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

LAB_PAGES = {
    "stage-4/lesson-08/": ["l08-model-states"],
    "stage-5/lesson-11/": ["l11-activations", "zero-fsdp"],
    "features/labs/": ["l08-model-states", "l11-activations", "zero-fsdp"],
}


def test_site_serves_the_notebooks_and_shows_the_boxes(built_site: Path) -> None:
    for lab in LAB_PAGES["features/labs/"]:
        served = built_site / "vendor" / "labs" / f"{lab}.ipynb"
        assert served.is_file(), f"{served} missing: run `make vendor` (copies labs/*.ipynb)"
        assert json.loads(served.read_text())["metadata"]["course_lab"]["id"] == lab
    for page, labs in LAB_PAGES.items():
        html = (built_site / page / "index.html").read_text()
        for lab in labs:
            assert f'id="lab-{lab}"' in html, f"{page} lacks the box of {lab}"
        assert "course-error" not in html
    assert "labs.js" in (built_site / "features" / "labs" / "index.html").read_text()


@pytest.mark.browser
def test_download_links_point_at_this_site(page, site_url: str, screenshot_dir: Path) -> None:
    for path, labs in LAB_PAGES.items():
        page.goto(f"{site_url}/{path}")
        page.wait_for_selector(".course-lab")
        links = page.locator("a.course-lab-download")
        assert links.count() == len(labs)
        for i, lab in enumerate(labs):
            href = links.nth(i).get_attribute("href")
            # labs.js resolves the site's copy from the site root, whatever the page depth.
            resolved = page.evaluate("(a) => a.href", links.nth(i).element_handle())
            assert resolved == f"{site_url}/vendor/labs/{lab}.ipynb", (path, href, resolved)
            got = page.evaluate(
                "async (u) => { const r = await fetch(u); return [r.status, await r.text()]; }",
                resolved,
            )
            assert got[0] == 200 and json.loads(got[1])["metadata"]["course_lab"]["id"] == lab
        colab = page.locator("a.course-lab-colab").first.get_attribute("href")
        assert colab.startswith("https://colab.research.google.com/github/")
        if path == "stage-4/lesson-08/":
            page.locator("#lab-l08-model-states").scroll_into_view_if_needed()
            page.locator("#lab-l08-model-states").screenshot(
                path=str(screenshot_dir / "labs-lesson-08-box.png"))
    page.goto(f"{site_url}/features/labs/")
    page.screenshot(path=str(screenshot_dir / "labs-feature-page.png"), full_page=True)

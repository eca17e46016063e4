"""Glossary tooltips in headless Chromium: hover, keyboard focus, Escape, instant navigation.

Screenshots (test-artifacts/screenshots/): a lesson with a tooltip open, and the glossary page.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from grader.glossary.terms import load_glossary

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = load_glossary(ROOT / "glossary")
LESSON_8 = "stage-4/lesson-08/"
LESSON_11 = "stage-5/lesson-11/"


def tooltip_of(page: Page, link: Locator) -> Locator:
    tip_id = link.get_attribute("aria-describedby")
    assert tip_id, "the linked term has no aria-describedby"
    tip = page.locator(f"#{tip_id}")
    expect(tip).to_have_attribute("role", "tooltip")
    return tip


def term_link(page: Page, term_id: str) -> Locator:
    link = page.locator(f'article a.glossary-term[data-glossary-term="{term_id}"]')
    expect(link).to_have_count(1)
    return link


def test_hover_shows_the_definition(site_url: str, page: Page, screenshot_dir: Path) -> None:
    page.goto(f"{site_url}/{LESSON_8}")
    link = term_link(page, "mixed-precision-training")
    tip = tooltip_of(page, link)
    expect(tip).to_be_hidden()

    link.hover()
    expect(tip).to_be_visible()
    expect(tip).to_have_text(GLOSSARY["mixed-precision-training"].short)
    box, anchor = tip.bounding_box(), link.bounding_box()
    assert box and anchor and box["y"] >= anchor["y"] + anchor["height"] - 1  # below the term
    page.screenshot(path=str(screenshot_dir / "glossary-lesson-08-tooltip.png"))

    # The pointer can move onto the tooltip without losing it; leaving both hides it.
    tip.hover()
    expect(tip).to_be_visible()
    page.mouse.move(5, 890)
    expect(tip).to_be_hidden()


def test_keyboard_focus_shows_the_definition(site_url: str, page: Page) -> None:
    page.goto(f"{site_url}/{LESSON_8}")
    first = page.locator("article a.glossary-term").first
    term_id = first.get_attribute("data-glossary-term")
    assert term_id
    # Reach the first linked term with the Tab key, as a keyboard user does.
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('glossary-term')"):
            break
    else:
        pytest.fail("Tab never reached a linked glossary term")
    assert page.evaluate("document.activeElement.dataset.glossaryTerm") == term_id
    tip = tooltip_of(page, first)
    expect(tip).to_be_visible()
    expect(tip).to_have_text(GLOSSARY[term_id].short)
    # The accessible description of the focused link is the definition.
    description = page.evaluate(
        "document.getElementById(document.activeElement.getAttribute('aria-describedby'))"
        ".textContent"
    )
    assert description == GLOSSARY[term_id].short

    page.keyboard.press("Escape")
    expect(tip).to_be_hidden()
    page.keyboard.press("Tab")  # focus moves on: the next term's tooltip, never two at once
    expect(page.locator(".glossary-tooltip:visible")).to_have_count(
        1 if page.evaluate("document.activeElement.classList.contains('glossary-term')") else 0
    )


def test_tooltips_survive_navigation_and_repeated_page_events(site_url: str, page: Page) -> None:
    # Served on a port other than site_url's, Material loads the next page in full (instant
    # navigation only intercepts sitemap addresses); the document$ events below stand in for it.
    page.goto(f"{site_url}/{LESSON_8}")
    page.locator(f'nav.md-nav--primary a[href$="{LESSON_11}"]').first.click()
    page.wait_for_url(f"**/{LESSON_11}")
    link = term_link(page, "zero-r")
    tip = tooltip_of(page, link)
    link.hover()
    expect(tip).to_be_visible()
    expect(tip).to_have_text(GLOSSARY["zero-r"].short)

    # Material's instant navigation emits on document$ for every page it swaps in; the script
    # must be idempotent and drop the tooltips of links that are gone.
    links = page.locator('a[aria-describedby^="glossary-tip-"]').count()
    assert links >= 15
    page.evaluate("document$.next(document)")
    page.evaluate("document$.next(document)")
    assert page.locator("body > .glossary-tooltip").count() == links
    page.evaluate("document.querySelector('article a.glossary-term').remove()")
    page.evaluate("document$.next(document)")
    assert page.locator("body > .glossary-tooltip").count() == links - 1
    page.mouse.move(5, 890)
    link.hover()
    expect(tip).to_be_visible()


def test_glossary_page(site_url: str, page: Page, screenshot_dir: Path) -> None:
    page.goto(f"{site_url}/glossary/")
    expect(page.locator("h3#activation-checkpointing")).to_contain_text(
        "Activation checkpointing"
    )
    page.screenshot(path=str(screenshot_dir / "glossary-page-top.png"))
    page.goto(f"{site_url}/glossary/#symbol-k")
    expect(page.locator("h3#symbol-k")).to_be_in_viewport()
    page.screenshot(path=str(screenshot_dir / "glossary-page-symbols.png"))
    # The lesson links of an entry lead to the lesson.
    page.locator("#activation-checkpointing ~ p.glossary-used-in a").first.click()
    page.wait_for_url(f"**/{LESSON_11}")


def test_site_search_finds_an_entry_by_alias(site_url: str, page: Page) -> None:
    page.goto(f"{site_url}/{LESSON_8}")
    page.locator("input.md-search__input").click()
    page.keyboard.type("gradient checkpointing")
    # Material's offline search (lunr in a worker); results link to "glossary/?h=...#id".
    result = page.locator(
        '.md-search-result a[href*="/glossary/"][href$="#activation-checkpointing"]'
    )
    expect(result.first).to_be_visible(timeout=15_000)
    expect(result.first).to_contain_text("Also called: gradient checkpointing")
    result.first.click()
    page.wait_for_url(re.compile(r"/glossary/.*#activation-checkpointing$"))
    expect(page.locator("h3#activation-checkpointing")).to_be_in_viewport()


def test_prerequisite_term_in_the_lesson_head_has_the_tooltip(site_url: str, page: Page) -> None:
    page.goto(f"{site_url}/{LESSON_11}")
    link = page.locator('a.course-prereq--term[href$="#activation-checkpointing"]')
    expect(link).to_have_count(1)
    tip = tooltip_of(page, link)
    # The definition is read from the glossary page, once, before the link is used.
    expect(tip).to_have_text(GLOSSARY["activation-checkpointing"].short)
    link.focus()
    expect(tip).to_be_visible()
    page.keyboard.press("Escape")
    expect(tip).to_be_hidden()
    link.hover()
    expect(tip).to_be_visible()

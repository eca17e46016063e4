"""``::: course-progress``: every lesson's progress, with export and import of the learner's ticks.

The list of lessons and their item ids is read from the lesson sources at build time (the same
parser the course checker uses), emitted as JSON for ``progress.js``; nothing is typed by hand.
Lesson links are written as Markdown-relative ``.md`` paths from the docs root, so the page that
holds the directive must sit at the docs root (``lessons/progress.md``); a broken link fails the
strict build.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from pathlib import Path
from typing import Any

from markdown.blockparser import BlockParser
from markdown.util import AtomicString

from grader.course.exercise_directive import public_json
from grader.course.lesson_source import lessons
from grader.course.line_directive import LineDirectiveProcessor

PROGRESS_RE = re.compile(r"^:::[ \t]+course-progress[ \t]*$")


def lesson_index(docs_dir: Path) -> list[dict[str, Any]]:
    """Each lesson's number, title, stage, source path (relative to docs) and item ids."""
    index = []
    for lesson in lessons(docs_dir):
        front = lesson.front_matter
        index.append(
            {
                "lesson": lesson.number,
                "title": str(front.get("title", "")),
                "stage": front.get("stage"),
                "src": lesson.path.relative_to(docs_dir).as_posix(),
                "items": [item.id for item in lesson.items],
            }
        )
    return index


class ProgressProcessor(LineDirectiveProcessor):
    def __init__(self, parser: BlockParser, docs_dir: Path) -> None:
        super().__init__(parser)
        self.docs_dir = docs_dir

    pattern = PROGRESS_RE

    def render(self, parent: etree.Element, match: re.Match[str]) -> None:
        index = lesson_index(self.docs_dir)
        root = etree.SubElement(parent, "div")
        root.set("class", "course-progress-page")

        table = etree.SubElement(root, "table")
        table.set("class", "course-progress-table")
        head = etree.SubElement(etree.SubElement(table, "thead"), "tr")
        for text in ("Lesson", "Stage", "Done"):
            th = etree.SubElement(head, "th")
            th.set("scope", "col")
            th.text = text
        body = etree.SubElement(table, "tbody")
        for lesson in index:
            row = etree.SubElement(body, "tr")
            row.set("data-lesson", str(lesson["lesson"]))
            link = etree.SubElement(etree.SubElement(row, "td"), "a")
            link.set("href", lesson["src"])
            link.text = AtomicString(f"Lesson {lesson['lesson']}: {lesson['title']}")
            etree.SubElement(row, "td").text = AtomicString(str(lesson["stage"]))
            done = etree.SubElement(row, "td")
            done.set("class", "course-progress")
            done.set("data-lesson", str(lesson["lesson"]))
            done.text = AtomicString(f"0 of {len(lesson['items'])} done")

        actions = etree.SubElement(root, "div")
        actions.set("class", "course-progress-actions")
        export = etree.SubElement(actions, "button")
        export.set("type", "button")
        export.set("class", "md-button course-export")
        export.text = "Export progress to a file"
        label = etree.SubElement(actions, "label")
        label.set("class", "md-button course-import-label")
        label.text = "Import progress from a file"
        chooser = etree.SubElement(label, "input")
        chooser.set("type", "file")
        chooser.set("accept", ".json,application/json")
        chooser.set("class", "course-import")
        status = etree.SubElement(root, "p")
        status.set("class", "course-import-status")
        status.set("role", "status")
        status.set("aria-live", "polite")

        # In an attribute, not a JSON <script>: instant navigation re-runs inline scripts as JS.
        root.set("data-lessons", public_json({"lessons": index}))

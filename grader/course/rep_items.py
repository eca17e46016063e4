"""Real-world reps with stable ids: ``- [ ] {#l08-rep-open-model} Text of the rep``.

The id is written in the Markdown, so inserting a rep above another never changes its id (and
never loses a learner's tick). Continuation lines of an item are indented. Consecutive rep blocks
form one list::

    <ul class="course-reps">
      <li class="course-item rep" id=ID data-item-id=ID data-kind="rep" data-section="reps">
        <input type="checkbox" class="course-check" ...>
        <div class="rep-text"> the text, rendered </div>
      </li>
    </ul>
"""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as etree

from markdown.blockprocessors import BlockProcessor

from grader.course.lesson_source import REP_RE
from grader.course.progress_items import checkbox, short_label


def split_items(block: str) -> list[tuple[str, str]]:
    """Split a block of rep lines into (id, Markdown text) pairs."""
    items: list[tuple[str, list[str]]] = []
    for line in block.split("\n"):
        if m := REP_RE.match(line):
            items.append((m["id"], [m["text"]]))
        elif items:
            items[-1][1].append(line)
    return [(item_id, textwrap.dedent("\n".join(lines)).strip()) for item_id, lines in items]


class RepProcessor(BlockProcessor):
    """Turn ``- [ ] {#id} text`` items into remembered checklist items."""

    def test(self, parent: etree.Element, block: str) -> bool:
        return bool(REP_RE.match(block.split("\n", 1)[0]))

    def run(self, parent: etree.Element, blocks: list[str]) -> None:
        block = blocks.pop(0)
        last = parent[-1] if len(parent) else None
        if last is not None and last.tag == "ul" and last.get("class") == "course-reps":
            lst = last
        else:
            lst = etree.SubElement(parent, "ul")
            lst.set("class", "course-reps")
        for item_id, text in split_items(block):
            li = etree.SubElement(lst, "li")
            li.set("class", "course-item rep")
            li.set("id", item_id)
            li.set("data-item-id", item_id)
            li.set("data-kind", "rep")
            li.set("data-section", "reps")
            checkbox(li, item_id, short_label(text))
            body = etree.SubElement(li, "div")
            body.set("class", "rep-text")
            self.parser.parseChunk(body, text)

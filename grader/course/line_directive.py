"""The shared shape of the course's one-line directives (``::: exercise <id>``, ``::: lab <id>``,
``::: course-progress``).

A directive is a line of its own matching a pattern; the processor takes that line out of its
block, leaves any following lines for the parser, and hands the match to ``render``. Plain
Python-Markdown, so it runs under any host that loads Markdown extensions (MkDocs, Zensical).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

from markdown.blockprocessors import BlockProcessor


class LineDirectiveProcessor(BlockProcessor):
    """Base class: subclasses set ``pattern`` and implement ``render``."""

    pattern: re.Pattern[str]

    def test(self, parent: etree.Element, block: str) -> bool:
        return bool(self.pattern.match(block.split("\n", 1)[0]))

    def run(self, parent: etree.Element, blocks: list[str]) -> None:
        first, _, rest = blocks.pop(0).partition("\n")
        if rest.strip():
            blocks.insert(0, rest)
        match = self.pattern.match(first)
        assert match is not None  # test() matched this line
        self.render(parent, match)

    def render(self, parent: etree.Element, match: re.Match[str]) -> None:
        raise NotImplementedError

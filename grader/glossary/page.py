"""The glossary page: ``::: glossary`` on a line of its own expands to every entry.

The entries are generated as Markdown before the page is parsed, so every entry is a real
heading (``### Term { #id }``: in the table of contents, with a permalink, and a section of its
own in the site search) and every lesson link is an ordinary ``.md`` link that MkDocs checks.
Terms come alphabetically under letter headings; formula symbols follow under "Symbols".
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from markdown import Markdown
from markdown.preprocessors import Preprocessor

from grader.glossary.linking import LinkingState
from grader.glossary.terms import Glossary, Source, Term
from grader.glossary.usage import LessonRef

DIRECTIVE_RE = re.compile(r"^:::[ \t]+glossary[ \t]*$")
_MD_LINK_TEXT = str.maketrans({"[": r"\[", "]": r"\]"})


def link_text(text: str) -> str:
    return text.translate(_MD_LINK_TEXT)


def source_markdown(source: Source) -> str:
    cite = link_text(source.cite)
    text = f"[{cite}]({source.url})" if source.url else cite
    return f"{text}, {source.where}" if source.where else text


def letter_of(term: Term) -> str:
    first = term.sort_key[:1].upper()
    return first if first.isalpha() else "#"


def entry_markdown(
    term: Term, glossary: Glossary, lessons: list[LessonRef], page_dir: str
) -> list[str]:
    """The Markdown lines of one entry."""
    lines = [f"### {term.heading} {{ #{term.id} .glossary-entry }}", ""]
    lines += [term.short, "{: .glossary-short }", ""]
    if term.long:
        lines += [term.long, ""]
    if term.aliases:
        lines += ["**Also called:** " + ", ".join(term.aliases), "{: .glossary-meta }", ""]
    for meaning in term.other_meanings:
        lines += [f"**Careful:** {meaning}", "{: .glossary-meta .glossary-careful }", ""]
    if term.sources:
        label = "Source" if len(term.sources) == 1 else "Sources"
        cites = "; ".join(source_markdown(s) for s in term.sources)
        lines += [f"**{label}:** {cites}", "{: .glossary-meta }", ""]
    related = [glossary[r] for r in term.related if r in glossary]
    if related:
        links = ", ".join(f"[{link_text(r.term)}](#{r.id})" for r in related)
        lines += [f"**Related:** {links}", "{: .glossary-meta }", ""]
    if lessons:
        links = ", ".join(
            f"[{link_text(ref.label)}]({posixpath.relpath(ref.src, page_dir)})" for ref in lessons
        )
        lines += [f"**Used in:** {links}", "{: .glossary-meta .glossary-used-in }", ""]
    else:
        lines += ["**Used in:** no lesson yet", "{: .glossary-meta .glossary-used-in }", ""]
    return lines


def glossary_markdown(
    glossary: Glossary, usage: dict[str, list[LessonRef]], page: str = "glossary.md"
) -> list[str]:
    """Every entry, alphabetically under letter headings, then the symbols."""
    page_dir = posixpath.dirname(page) or "."
    words = [t for t in glossary.sorted_terms() if not t.symbol]
    symbols = [t for t in glossary.sorted_terms() if t.symbol]
    lines: list[str] = []
    letter = None
    for term in words:
        if letter_of(term) != letter:
            letter = letter_of(term)
            slug = "other" if letter == "#" else letter.lower()
            lines += [f"## {letter} {{ #letter-{slug} .glossary-letter }}", ""]
        lines += entry_markdown(term, glossary, usage.get(term.id, []), page_dir)
    if symbols:
        lines += ["## Symbols { #symbols .glossary-letter }", ""]
        lines += [
            "The letters of the course's formulas, each with the meaning it has in every formula "
            "of the course and the source that fixes it.",
            "",
        ]
        for term in symbols:
            lines += entry_markdown(term, glossary, usage.get(term.id, []), page_dir)
    return lines


class GlossaryPagePreprocessor(Preprocessor):
    """Replaces the ``::: glossary`` line with the generated entries."""

    def __init__(
        self,
        md: Markdown,
        state: LinkingState,
        usage: Callable[[], dict[str, list[LessonRef]]],
    ) -> None:
        super().__init__(md)
        self.state = state
        self.usage = usage

    def run(self, lines: list[str]) -> list[str]:
        self.state.on_glossary_page = False
        out: list[str] = []
        for line in lines:
            if DIRECTIVE_RE.match(line):
                self.state.on_glossary_page = True
                out += glossary_markdown(self.state.glossary(), self.usage(), self.state.page)
            else:
                out.append(line)
        return out

"""The treeprocessor that links the first use of each glossary term on a page.

It runs after Python-Markdown's inline processing, so it sees the final element tree, and before
MkDocs' own link rewriting (priority 0), so the ``glossary.md#id`` links it writes are checked and
turned into page URLs like any link an author types. Each link carries the short definition in
``data-glossary-def``; ``glossary.js`` turns that into a tooltip shown on hover and on keyboard
focus (``role="tooltip"``, ``aria-describedby``).

Never linked: text inside code, preformatted blocks, math (arithmatex spans), headings, existing
links, abbreviations, scripts, and any element marked ``data-glossary="off"`` or with the class
``glossary-skip``. A link an author wrote to a glossary entry counts as that term's first use and
gets the same tooltip.
"""

from __future__ import annotations

import posixpath
import xml.etree.ElementTree as etree
from collections.abc import Callable
from urllib.parse import urlsplit

from markdown import Markdown
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString

from grader.glossary.forms import TermMatcher
from grader.glossary.terms import Glossary

SKIP_TAGS = frozenset(
    {"a", "code", "pre", "kbd", "samp", "var", "abbr", "script", "style", "textarea", "button",
     "svg", "math", "h1", "h2", "h3", "h4", "h5", "h6", "dfn"}
)
# Exercises are skipped whole: a tooltip inside a question could give its answer away (the FSDP
# tooltip says "inspired by ZeRO stage 3", which is the answer to Lesson 11's first warm-up).
SKIP_CLASSES = frozenset(
    {"arithmatex", "katex", "glossary-skip", "highlight", "headerlink", "exercise"}
)
LINK_CLASS = "glossary-term"


def is_skipped(element: etree.Element) -> bool:
    """True for an element whose text must never be linked."""
    if not isinstance(element.tag, str) or element.tag in SKIP_TAGS:
        return True
    if element.get("data-glossary") == "off":
        return True
    return bool(SKIP_CLASSES.intersection((element.get("class") or "").split()))


class TermLinker:
    """Links terms in one element tree; ``href_for(term_id)`` gives the link target."""

    def __init__(
        self, glossary: Glossary, matcher: TermMatcher, href_for: Callable[[str], str]
    ) -> None:
        self.glossary = glossary
        self.matcher = matcher
        self.href_for = href_for
        self.linked: set[str] = set()
        self.page_basename = "glossary.md"
        self._created: set[int] = set()

    def _decorate(self, anchor: etree.Element, term_id: str) -> None:
        term = self.glossary[term_id]
        classes = (anchor.get("class") or "").split()
        if LINK_CLASS not in classes:
            anchor.set("class", " ".join([*classes, LINK_CLASS]))
        anchor.set("data-glossary-term", term_id)
        anchor.set("data-glossary-def", term.short)

    def _explicit_term(self, anchor: etree.Element) -> str | None:
        """The term id of an author's link to a glossary entry (``../glossary.md#zero``)."""
        parts = urlsplit(anchor.get("href") or "")
        if parts.scheme or parts.netloc or not parts.fragment:
            return None
        name = posixpath.basename(parts.path.rstrip("/"))
        if name not in {self.page_basename, posixpath.splitext(self.page_basename)[0]}:
            return None
        return parts.fragment if parts.fragment in self.glossary else None

    def _link_text(self, text: str) -> tuple[str, list[etree.Element]]:
        """Split ``text`` at first uses: (text before the first link, new anchors with tails)."""
        anchors: list[etree.Element] = []
        head: str | None = None
        cursor = 0
        for match in self.matcher.finditer(text):
            if match.term_id in self.linked:
                continue
            self.linked.add(match.term_id)
            anchor = etree.Element("a", {"href": self.href_for(match.term_id)})
            self._created.add(id(anchor))
            anchor.text = AtomicString(match.text)
            self._decorate(anchor, match.term_id)
            before = text[cursor : match.start]
            if anchors:
                anchors[-1].tail = before
            else:
                head = before
            anchors.append(anchor)
            cursor = match.end
        if not anchors:
            return text, []
        anchors[-1].tail = text[cursor:]
        return head or "", anchors

    def _text_linkable(self, text: str | None) -> bool:
        return bool(text) and not isinstance(text, AtomicString)

    def walk(self, element: etree.Element) -> None:
        """Link in ``element``'s own text and, recursively, in its children and their tails."""
        if element.tag == "a":
            term_id = self._explicit_term(element)
            if term_id is not None:
                self.linked.add(term_id)
                self._decorate(element, term_id)
        if is_skipped(element):
            return
        if self._text_linkable(element.text):
            head, anchors = self._link_text(element.text or "")
            element.text = head
            for i, anchor in enumerate(anchors):
                element.insert(i, anchor)
        index = 0
        while index < len(element):
            child = element[index]
            if id(child) in self._created:  # a link made here: its tail was already scanned
                index += 1
                continue
            self.walk(child)
            index += 1
            if self._text_linkable(child.tail):
                tail, anchors = self._link_text(child.tail or "")
                child.tail = tail
                for offset, anchor in enumerate(anchors):
                    element.insert(index + offset, anchor)
                index += len(anchors)


class GlossaryTreeprocessor(Treeprocessor):
    """Python-Markdown's hook: builds a :class:`TermLinker` for each page and runs it."""

    def __init__(self, md: Markdown, state: LinkingState) -> None:
        super().__init__(md)
        self.state = state

    def run(self, root: etree.Element) -> None:
        if self.state.on_glossary_page or not self.state.enabled:
            return
        base = self.state.glossary_href(self.md)
        linker = TermLinker(self.state.glossary(), self.state.matcher(), lambda i: f"{base}#{i}")
        linker.page_basename = posixpath.basename(self.state.page)
        linker.walk(root)


class LinkingState:
    """What the preprocessor, the treeprocessor and the extension share for one Markdown object."""

    def __init__(
        self,
        glossary: Callable[[], Glossary],
        matcher: Callable[[], TermMatcher],
        page: str,
        fallback_url: str,
        enabled: bool = True,
    ) -> None:
        self.glossary = glossary
        self.matcher = matcher
        self.page = page  # the glossary page, relative to the docs folder ("glossary.md")
        self.fallback_url = fallback_url
        self.enabled = enabled
        self.on_glossary_page = False

    def glossary_href(self, md: Markdown) -> str:
        """The glossary page as a link from the page being converted.

        Under MkDocs, its link rewriter (the ``relpath`` treeprocessor) knows the current page;
        a link relative to it is then checked and rewritten like any link in the Markdown. Where
        no such rewriter exists (plain Python-Markdown, another site generator) the configured
        ``fallback_url`` is used as is.
        """
        rewriter = md.treeprocessors["relpath"] if "relpath" in md.treeprocessors else None
        src_uri = getattr(getattr(rewriter, "file", None), "src_uri", None)
        if isinstance(src_uri, str):
            start = posixpath.dirname(src_uri) or "."
            return posixpath.relpath(self.page, start)
        return self.fallback_url

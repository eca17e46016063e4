"""The Python-Markdown extension: ``grader.glossary.extension`` in ``mkdocs.yml``.

    markdown_extensions:
      - grader.glossary.extension:
          glossary_dir: glossary   # term files (relative to where the build runs)
          docs_dir: lessons        # scanned for "Used in" lists
          page: glossary.md        # the glossary page, relative to docs_dir

A plain Python-Markdown extension (a preprocessor and a treeprocessor), no MkDocs plugin, so
another generator that reads ``mkdocs.yml`` and runs Python-Markdown (Zensical) keeps it.
MkDocs builds a fresh Markdown object per page, so the term files and the lesson scan are
cached here, keyed by the files' sizes and modification times: a build reads them once and
``mkdocs serve`` sees edits.
"""

from __future__ import annotations

import logging
from pathlib import Path

from markdown import Extension, Markdown

from grader.glossary.forms import TermMatcher
from grader.glossary.linking import GlossaryTreeprocessor, LinkingState
from grader.glossary.page import GlossaryPagePreprocessor
from grader.glossary.terms import Glossary, load_glossary
from grader.glossary.usage import LessonRef, lesson_usage

# Under the "mkdocs" logger, so that `mkdocs build --strict` fails on a broken glossary.
log = logging.getLogger("mkdocs.grader.glossary")

_Key = tuple[str, tuple[tuple[str, int, int], ...]]
_GLOSSARIES: dict[_Key, tuple[Glossary, TermMatcher]] = {}
_USAGE: dict[tuple[_Key, _Key], dict[str, list[LessonRef]]] = {}


def _folder_key(folder: Path, pattern: str) -> _Key:
    entries = []
    if folder.is_dir():
        for path in sorted(folder.rglob(pattern)):
            stat = path.stat()
            entries.append((path.as_posix(), stat.st_mtime_ns, stat.st_size))
    return folder.resolve().as_posix(), tuple(entries)


def cached_glossary(folder: Path) -> tuple[Glossary, TermMatcher]:
    """The glossary in ``folder`` and its matcher, read again only when a file changed."""
    key = _folder_key(folder, "*.y*ml")
    if key not in _GLOSSARIES:
        glossary = load_glossary(folder)
        for problem in glossary.problems:
            log.warning("glossary: %s:%d: %s", problem.path, problem.line, problem.message)
        _GLOSSARIES.clear()
        _GLOSSARIES[key] = (glossary, TermMatcher(glossary))
    return _GLOSSARIES[key]


def cached_usage(folder: Path, docs_dir: Path) -> dict[str, list[LessonRef]]:
    """Which lessons in ``docs_dir`` use which terms, scanned again only when a file changed."""
    key = (_folder_key(folder, "*.y*ml"), _folder_key(docs_dir, "*.md"))
    if key not in _USAGE:
        glossary, matcher = cached_glossary(folder)
        _USAGE.clear()
        _USAGE[key] = lesson_usage(docs_dir, glossary, matcher)
    return _USAGE[key]


class GlossaryExtension(Extension):
    def __init__(self, **kwargs: object) -> None:
        self.config = {
            "glossary_dir": ["glossary", "folder of term files (one YAML file a term)"],
            "docs_dir": ["lessons", "folder of the lesson pages, scanned for 'Used in'"],
            "page": ["glossary.md", "the glossary page, relative to docs_dir"],
            "fallback_url": [
                "/glossary/",
                "the glossary page's URL where the generator does not rewrite .md links",
            ],
            "link_terms": [True, "link the first use of each term on a page"],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Python-Markdown's name)
        folder = Path(str(self.getConfig("glossary_dir")))
        docs_dir = Path(str(self.getConfig("docs_dir")))
        state = LinkingState(
            glossary=lambda: cached_glossary(folder)[0],
            matcher=lambda: cached_glossary(folder)[1],
            page=str(self.getConfig("page")),
            fallback_url=str(self.getConfig("fallback_url")),
            enabled=bool(self.getConfig("link_terms")),
        )
        md.registerExtension(self)
        # Before md_in_html (20) and the other block preprocessors see the page.
        md.preprocessors.register(
            GlossaryPagePreprocessor(md, state, lambda: cached_usage(folder, docs_dir)),
            "glossary_page",
            25,
        )
        # After inline processing (20), attr_list (8) and abbr (7); before toc (5) and
        # MkDocs' link rewriting (0).
        md.treeprocessors.register(GlossaryTreeprocessor(md, state), "glossary_links", 6)


def makeExtension(**kwargs: object) -> GlossaryExtension:  # noqa: N802 (Python-Markdown's name)
    return GlossaryExtension(**kwargs)

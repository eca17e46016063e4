"""Which lessons use which glossary terms, computed by scanning the lesson sources.

A lesson uses a term when its front matter names it (``terms:`` or ``prerequisites:``), when its
prose uses one of the term's forms (the same rules as the linking, see
:mod:`grader.glossary.forms`), or, for a symbol, when one of its ``math`` spellings appears
inside a formula. Code, link addresses, HTML comments and directive lines are not prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.course.lesson_source import split_front_matter
from grader.glossary.forms import TermMatcher
from grader.glossary.terms import Glossary

FENCE_RE = re.compile(r"^[ \t]*(```+|~~~+).*?^[ \t]*\1[ \t]*$", re.S | re.M)
INLINE_CODE_RE = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
DIRECTIVE_RE = re.compile(r"^[ \t]*:::.*$", re.M)
LINK_TARGET_RE = re.compile(r"\]\([^)]*\)|\]\[[^\]]*\]|<https?://[^>]*>|https?://\S+")
ATTR_LIST_RE = re.compile(r"\{[:#.][^}\n]*\}")
MATH_RE = re.compile(
    r"\$\$.+?\$\$|\\\[.+?\\\]|\\\(.+?\\\)|(?<![\\$])\$(?=\S)[^$\n]+?(?<=\S)\$(?!\$)", re.S
)
LESSON_REF_RE = re.compile(r"^\s*lesson[\s-]*\d+\s*$", re.I)


@dataclass(frozen=True)
class LessonRef:
    """A lesson page, as the glossary page lists it."""

    src: str  # path relative to the docs folder, with '/' ("stage-4/lesson-08.md")
    number: int | None
    title: str

    @property
    def label(self) -> str:
        return f"Lesson {self.number}: {self.title}" if self.number is not None else self.title


def split_prose(body: str) -> tuple[str, str]:
    """(prose with code, math, comments, directives and link targets removed, the math text)."""
    text = FENCE_RE.sub("\n", body)
    text = COMMENT_RE.sub(" ", text)
    text = INLINE_CODE_RE.sub(" ", text)
    math = " ".join(m.group(0) for m in MATH_RE.finditer(text))
    text = MATH_RE.sub(" ", text)
    text = DIRECTIVE_RE.sub("", text)
    text = LINK_TARGET_RE.sub("] ", text)
    text = ATTR_LIST_RE.sub(" ", text)
    return text, math


def prerequisite_term(item: Any) -> str | None:
    """The term id a prerequisite names, or None for a lesson reference.

    ``{term: activation-checkpointing}`` and a bare id (``activation-checkpointing``) name terms;
    ``10``, ``"Lesson 10"`` and ``{lesson: 10}`` name lessons.
    """
    if isinstance(item, dict):
        value = item.get("term")
        return value if isinstance(value, str) else None
    if isinstance(item, str) and not LESSON_REF_RE.match(item):
        return item.strip()
    return None


def named_terms(front_matter: dict[str, Any]) -> list[str]:
    """The term ids a page's front matter names (``terms`` then ``prerequisites``), in order."""
    names: list[str] = []
    terms = front_matter.get("terms") or []
    for item in terms if isinstance(terms, list) else [terms]:
        if isinstance(item, str):
            names.append(item.strip())
    prerequisites = front_matter.get("prerequisites") or []
    for item in prerequisites if isinstance(prerequisites, list) else [prerequisites]:
        term = prerequisite_term(item)
        if term is not None:
            names.append(term)
    return names


def math_pattern(spelling: str) -> re.Pattern[str]:
    """A symbol's spelling inside a formula, not part of a longer name (``\\Psi`` ≠ ``\\Psix``)."""
    return re.compile(rf"(?<![A-Za-z\\]){re.escape(spelling)}(?![A-Za-z])")


def terms_in_page(text: str, glossary: Glossary, matcher: TermMatcher) -> tuple[set[str], dict]:
    """The term ids a page uses and its front matter."""
    front, _error, _start, body_lines = split_front_matter(text)
    prose, math = split_prose("\n".join(body_lines))
    used = {t for t in named_terms(front) if t in glossary}
    used |= matcher.term_ids(prose)
    for term in glossary.terms.values():
        if term.math and any(math_pattern(s).search(math) for s in term.math):
            used.add(term.id)
    return used, front


def is_lesson(front_matter: dict[str, Any]) -> bool:
    return "lesson" in front_matter or front_matter.get("template") == "lesson.html"


def lesson_usage(
    docs_dir: Path, glossary: Glossary, matcher: TermMatcher
) -> dict[str, list[LessonRef]]:
    """For every term id, the lessons that use it, in lesson order."""
    usage: dict[str, list[LessonRef]] = {term_id: [] for term_id in glossary.terms}
    lessons: list[tuple[LessonRef, set[str]]] = []
    for path in sorted(docs_dir.rglob("*.md")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        used, front = terms_in_page(text, glossary, matcher)
        if not is_lesson(front):
            continue
        number = front.get("lesson")
        number = number if isinstance(number, int) and not isinstance(number, bool) else None
        title = str(front.get("title") or path.stem)
        ref = LessonRef(path.relative_to(docs_dir).as_posix(), number, title)
        lessons.append((ref, used))
    lessons.sort(key=lambda item: (item[0].number is None, item[0].number or 0, item[0].src))
    for ref, used in lessons:
        for term_id in sorted(used):
            usage[term_id].append(ref)
    return usage

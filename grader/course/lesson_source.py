"""Reading lesson Markdown sources: front matter, sections, exercise directives and rep items.

The course checker and the progress page both read lessons through this module, so the list of
lessons and their item ids has one definition. Line numbers are 1-based and count the front matter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

# The sections of a lesson, as level-2 headings, in this order.
SECTIONS: tuple[str, ...] = ("Warm-up", "Know this", "Practice", "Real-world reps", "Going further")
# The value of data-section for items in each section.
SECTION_KEYS: dict[str, str] = {
    "Warm-up": "warmup",
    "Know this": "know",
    "Practice": "practice",
    "Real-world reps": "reps",
    "Going further": "further",
}
REQUIRED_FRONT_MATTER: tuple[str, ...] = (
    "template",
    "lesson",
    "title",
    "stage",
    "mission_link",
    "primary_source",
    "prerequisites",
)

ITEM_ID = r"[a-z0-9][a-z0-9-]*"
# `::: exercise l08-practice-7b-states` on a line of its own.
EXERCISE_RE = re.compile(r"^:::[ \t]+exercise[ \t]+(?P<id>\S+)[ \t]*$")
# `- [ ] {#l08-rep-open-model} Text of the rep` (continuation lines are indented).
REP_RE = re.compile(rf"^- \[ \] \{{#(?P<id>{ITEM_ID})\}}[ \t]+(?P<text>.*)$")
H2_RE = re.compile(r"^##[ \t]+(?P<title>[^#].*?)[ \t]*#*[ \t]*$")
FENCE_RE = re.compile(r"^[ \t]*(```|~~~)")


@dataclass(frozen=True)
class Item:
    """A progress item of a lesson: an exercise directive or a rep."""

    id: str
    kind: str  # "exercise" or "rep"
    section: str  # one of SECTIONS, or "" before the first section
    line: int


@dataclass
class LessonSource:
    """One Markdown page of the course, parsed just enough for checks and progress."""

    path: Path
    front_matter: dict[str, Any]
    front_matter_error: str | None
    body_start: int  # line number of the first body line
    lines: list[str]  # the body lines
    headings: list[tuple[str, int]] = field(default_factory=list)  # (h2 title, line)
    items: list[Item] = field(default_factory=list)

    @property
    def is_lesson(self) -> bool:
        return self.front_matter.get("template") == "lesson.html" or "lesson" in self.front_matter

    @property
    def number(self) -> int | None:
        value = self.front_matter.get("lesson")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def line_of(self, index: int) -> int:
        """The file line number of body line ``index`` (0-based)."""
        return self.body_start + index


def split_front_matter(text: str) -> tuple[dict[str, Any], str | None, int, list[str]]:
    """Return (front matter, error or None, first body line number, body lines)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, None, 1, lines
    for end in range(1, len(lines)):
        if lines[end].strip() in {"---", "..."}:
            try:
                data = yaml.safe_load("\n".join(lines[1:end])) or {}
            except yaml.YAMLError as exc:
                return {}, f"front matter is not valid YAML: {exc}", end + 2, lines[end + 1 :]
            if not isinstance(data, dict):
                return {}, "front matter must be a mapping", end + 2, lines[end + 1 :]
            return data, None, end + 2, lines[end + 1 :]
    return {}, "front matter has no closing '---'", 1, lines


def parse(path: Path, text: str | None = None) -> LessonSource:
    """Parse one Markdown page."""
    if text is None:
        text = path.read_text(encoding="utf-8")
    front, error, start, body = split_front_matter(text)
    source = LessonSource(path, front, error, start, body)
    section = ""
    in_fence = False
    for i, line in enumerate(body):
        if FENCE_RE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if m := H2_RE.match(line):
            section = m["title"].strip()
            source.headings.append((section, source.line_of(i)))
        elif m := EXERCISE_RE.match(line):
            source.items.append(Item(m["id"], "exercise", section, source.line_of(i)))
        elif m := REP_RE.match(line):
            source.items.append(Item(m["id"], "rep", section, source.line_of(i)))
    return source


def pages(docs_dir: Path) -> list[LessonSource]:
    """Every Markdown page under ``docs_dir``, sorted by path."""
    return [parse(p) for p in sorted(docs_dir.rglob("*.md"))]


def lessons(docs_dir: Path) -> list[LessonSource]:
    """The lesson pages under ``docs_dir``, sorted by lesson number (then path)."""
    found = [p for p in pages(docs_dir) if p.is_lesson]
    return sorted(found, key=lambda p: (p.number if p.number is not None else 10**6, p.path))


def exercise_path(exercises_dir: Path, exercise_id: str) -> Path | None:
    """The YAML file of ``exercise_id`` (``exercises/lesson-NN/<id>.yaml``), or None."""
    if not re.fullmatch(ITEM_ID, exercise_id):
        return None
    matches = sorted(exercises_dir.glob(f"lesson-*/{exercise_id}.yaml"))
    return matches[0] if matches else None

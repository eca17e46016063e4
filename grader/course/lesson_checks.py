"""The lesson-format checks of the course checker (see ``grader.course.check``).

Each function takes the course root (the folder of ``mkdocs.yml``) and returns the faults found:
sections missing or out of order, front matter incomplete, prerequisites or links that name
nothing, duplicate item ids, exercise directives naming no exercise, asset URLs outside the site,
lessons missing from their stage page.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import yaml

from grader.course.lesson_source import (
    ITEM_ID,
    REQUIRED_FRONT_MATTER,
    SECTIONS,
    LessonSource,
    exercise_path,
    lessons,
    pages,
)
from grader.course.problem import Check, Problem

# Where an exercise of each `section` value belongs in a lesson.
EXERCISE_SECTIONS = {"warmup": "Warm-up", "practice": "Practice", "code": "Practice"}

MD_LINK_RE = re.compile(
    r"(?P<bang>!?)\[(?:[^\]\\]|\\.)*\]\(\s*<?(?P<url>[^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)"
)
HTML_ATTR_RE = re.compile(
    r"<(?P<tag>a|img|script|link|iframe|source|video|audio|embed|object)\b[^>]*?"
    r"\b(?P<attr>href|src|data|poster)\s*=\s*[\"'](?P<url>[^\"']+)[\"']",
    re.IGNORECASE,
)
ASSET_TAGS = {"img", "script", "link", "iframe", "source", "video", "audio", "embed", "object"}


class _Loader(yaml.SafeLoader):
    """A YAML loader that reads mkdocs.yml's `!!python/...` and `!ENV` tags as plain values."""


def _any_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)  # type: ignore[arg-type]


_Loader.add_multi_constructor("", _any_tag)


def mkdocs_config(root: Path) -> dict[str, Any]:
    path = root / "mkdocs.yml"
    if not path.is_file():
        return {}
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506 (safe loader)
    return data if isinstance(data, dict) else {}


def docs_dir(root: Path) -> Path:
    return root / str(mkdocs_config(root).get("docs_dir", "docs"))


def exercises_dir(root: Path) -> Path:
    return root / "exercises"


def _is_remote(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme and parts.scheme not in {"data", "blob"}) or url.startswith("//")


def _line_of(text_lines: list[str], start: int, needle: str) -> int:
    for i, line in enumerate(text_lines):
        if needle in line:
            return start + i
    return start


def front_line(page: LessonSource, key: str) -> int:
    """The line of ``key:`` in the page's front matter (1 if absent)."""
    lines = page.path.read_text(encoding="utf-8").splitlines()[: max(page.body_start - 1, 1)]
    for i, line in enumerate(lines, 1):
        if line.startswith(f"{key}:"):
            return i
    return 1


# --- front matter --------------------------------------------------------------------------------


def check_front_matter(root: Path) -> list[Problem]:
    problems = []
    for page in pages(docs_dir(root)):
        if page.front_matter_error:
            problems.append(Problem(page.path, 1, page.front_matter_error))
            continue
        if not page.is_lesson:
            continue
        front = page.front_matter
        for key in REQUIRED_FRONT_MATTER:
            if key not in front:
                problems.append(Problem(page.path, 1, f"front matter has no '{key}'"))
        if "lesson" in front and page.number is None:
            problems.append(Problem(page.path, 1, "front matter 'lesson' must be a number"))
        if front.get("template", "lesson.html") != "lesson.html":
            problems.append(Problem(page.path, 1, "a lesson's template must be lesson.html"))
        mission = front.get("mission_link")
        if mission is not None and not (
            isinstance(mission, dict)
            and isinstance(mission.get("goal"), int)
            and mission.get("quote")
        ):
            problems.append(
                Problem(
                    page.path,
                    front_line(page, "mission_link"),
                    "mission_link needs 'goal' (a number) and 'quote'",
                )
            )
        source = front.get("primary_source")
        if source is not None:
            missing = [
                k
                for k in ("title", "authors", "year", "url")
                if not (isinstance(source, dict) and source.get(k))
            ]
            if missing:
                problems.append(
                    Problem(page.path, 1, f"primary_source has no {', '.join(missing)}")
                )
    return problems


# --- sections ------------------------------------------------------------------------------------


def check_sections(root: Path) -> list[Problem]:
    problems = []
    for lesson in lessons(docs_dir(root)):
        seen: dict[str, int] = {}
        last_index = -1
        for title, line in lesson.headings:
            if title not in SECTIONS:
                problems.append(
                    Problem(
                        lesson.path,
                        line,
                        f"'## {title}' is not a lesson section "
                        f"(sections: {', '.join(SECTIONS)}; use ### inside one)",
                    )
                )
                continue
            if title in seen:
                problems.append(
                    Problem(
                        lesson.path,
                        line,
                        f"section '## {title}' appears twice (first on line {seen[title]})",
                    )
                )
                continue
            seen[title] = line
            index = SECTIONS.index(title)
            if index < last_index:
                problems.append(
                    Problem(
                        lesson.path,
                        line,
                        f"section '## {title}' is out of order (order: {', '.join(SECTIONS)})",
                    )
                )
            last_index = max(last_index, index)
        end = lesson.line_of(len(lesson.lines))
        for i, title in enumerate(SECTIONS):
            if title not in seen:
                # report where the section should start: at the next section that is present
                later = [seen[t] for t in SECTIONS[i + 1 :] if t in seen]
                where = min(later) if later else end
                problems.append(Problem(lesson.path, where, f"missing section '## {title}'"))
    return problems


# --- prerequisites -------------------------------------------------------------------------------


def check_prerequisites(root: Path) -> list[Problem]:
    problems = []
    glossary = root / "glossary"
    for lesson in lessons(docs_dir(root)):
        prereqs = lesson.front_matter.get("prerequisites")
        if prereqs is None:
            continue
        if not isinstance(prereqs, list):
            problems.append(Problem(lesson.path, 1, "prerequisites must be a list"))
            continue
        line = front_line(lesson, "prerequisites")
        for pre in prereqs:
            if isinstance(pre, dict) and "lesson" in pre:
                n = pre["lesson"]
                own = lesson.number
                if not isinstance(n, int) or n < 1 or (own is not None and n >= own):
                    problems.append(
                        Problem(
                            lesson.path,
                            line,
                            f"prerequisite lesson {n!r} names no earlier lesson of the course",
                        )
                    )
            elif isinstance(pre, dict) and "term" in pre:
                term = pre["term"]
                if not isinstance(term, str) or not (glossary / f"{term}.yaml").is_file():
                    problems.append(
                        Problem(
                            lesson.path,
                            line,
                            f"prerequisite term {term!r} names no "
                            f"glossary term (no glossary/{term}.yaml)",
                        )
                    )
            else:
                problems.append(
                    Problem(
                        lesson.path,
                        line,
                        f"prerequisite {pre!r} is neither {{lesson: N}} nor {{term: id}}",
                    )
                )
    return problems


# --- links ---------------------------------------------------------------------------------------


def _links(page: LessonSource) -> list[tuple[int, str, str]]:
    """(line, kind, url) for each Markdown or HTML link/asset in the page body."""
    found = []
    in_fence = False
    for i, line in enumerate(page.lines):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        stripped = re.sub(r"`[^`]*`", "", line)
        for m in MD_LINK_RE.finditer(stripped):
            found.append((page.line_of(i), "img" if m["bang"] else "a", m["url"]))
        for m in HTML_ATTR_RE.finditer(stripped):
            found.append((page.line_of(i), m["tag"].lower(), m["url"]))
    return found


def _joined_links(page: LessonSource) -> list[tuple[int, str, str]]:
    """Links as `_links` finds them, plus Markdown links whose text wraps across two lines."""
    found = _links(page)
    seen = {(line, url) for line, _, url in found}
    for i in range(len(page.lines) - 1):
        pair = page.lines[i] + " " + page.lines[i + 1].lstrip()
        for m in MD_LINK_RE.finditer(pair):
            key = (page.line_of(i), m["url"])
            key2 = (page.line_of(i + 1), m["url"])
            if key not in seen and key2 not in seen:
                found.append((page.line_of(i), "img" if m["bang"] else "a", m["url"]))
                seen.add(key)
    return found


def check_links(root: Path) -> list[Problem]:
    """A relative link or image must name a file of the site."""
    problems = []
    docs = docs_dir(root)
    for page in pages(docs):
        for line, _kind, url in _joined_links(page):
            parts = urlsplit(url)
            if parts.scheme or url.startswith(("//", "#", "mailto:")):
                continue
            target_path = unquote(parts.path)
            if not target_path:
                continue
            target = (page.path.parent / target_path).resolve()
            if target_path.startswith("/"):
                target = (docs / target_path.lstrip("/")).resolve()
            ok = target.exists() or (target.is_dir() and (target / "index.md").exists())
            if target.is_dir():
                ok = (target / "index.md").exists() or (target / "index.html").exists()
            if not ok:
                problems.append(
                    Problem(
                        page.path,
                        line,
                        f"link '{url}' names nothing (no {target_path} next to this page)",
                    )
                )
    return problems


# --- item ids ------------------------------------------------------------------------------------


def check_item_ids(root: Path) -> list[Problem]:
    """Every progress item id is well formed and used once in the whole course."""
    problems = []
    first: dict[str, tuple[Path, int]] = {}
    for page in pages(docs_dir(root)):
        for item in page.items:
            if not re.fullmatch(ITEM_ID, item.id):
                problems.append(
                    Problem(
                        page.path,
                        item.line,
                        f"item id '{item.id}' must be lowercase letters, digits and hyphens",
                    )
                )
            if item.id in first:
                path, line = first[item.id]
                problems.append(
                    Problem(
                        page.path,
                        item.line,
                        f"duplicate item id '{item.id}' (also at {path.name}:{line})",
                    )
                )
            else:
                first[item.id] = (page.path, item.line)
        if page.is_lesson:
            for i, line in enumerate(page.lines):
                if line.startswith("- [ ]") and not line.startswith("- [ ] {#"):
                    problems.append(
                        Problem(
                            page.path,
                            page.line_of(i),
                            "a rep needs an explicit id: '- [ ] {#lNN-rep-name} text'",
                        )
                    )
    return problems


# --- exercise directives -------------------------------------------------------------------------


def check_exercise_directives(root: Path) -> list[Problem]:
    problems = []
    exercises = exercises_dir(root)
    for page in pages(docs_dir(root)):
        for item in page.items:
            if item.kind != "exercise":
                continue
            path = exercise_path(exercises, item.id)
            if path is None:
                problems.append(
                    Problem(
                        page.path,
                        item.line,
                        f"exercise '{item.id}' does not "
                        f"exist (no exercises/lesson-NN/{item.id}.yaml)",
                    )
                )
                continue
            if page.number is not None and path.parent.name != f"lesson-{page.number:02d}":
                problems.append(
                    Problem(
                        page.path,
                        item.line,
                        f"exercise '{item.id}' is in "
                        f"{path.parent.name}, not lesson-{page.number:02d}",
                    )
                )
            try:
                data = yaml.safe_load(path.read_text(encoding="utf-8"))
            except yaml.YAMLError:
                continue  # the exercise checks report bad YAML with its line
            section = data.get("section") if isinstance(data, dict) else None
            wanted = EXERCISE_SECTIONS.get(str(section))
            if page.is_lesson and wanted and item.section != wanted:
                problems.append(
                    Problem(
                        page.path,
                        item.line,
                        f"exercise '{item.id}' is a "
                        f"{section} exercise but sits in '{item.section or 'no'}' "
                        f"section (expected '## {wanted}')",
                    )
                )
    return problems


# --- asset URLs ----------------------------------------------------------------------------------


def check_asset_urls(root: Path) -> list[Problem]:
    """Images, scripts, styles and frames must come from the site itself."""
    problems = []
    for page in pages(docs_dir(root)):
        for line, kind, url in _links(page):
            if kind != "a" and _is_remote(url):
                problems.append(
                    Problem(
                        page.path,
                        line,
                        f"non-local asset URL '{url}' "
                        f"(<{kind}>): the site must load nothing from outside",
                    )
                )
    overrides = root / "site_overrides"
    if overrides.is_dir():
        for template in sorted(overrides.rglob("*.html")):
            if "vendor" in template.relative_to(overrides).parts:
                continue
            for i, line in enumerate(template.read_text(encoding="utf-8").splitlines(), 1):
                for m in HTML_ATTR_RE.finditer(line):
                    if m["tag"].lower() in ASSET_TAGS and _is_remote(m["url"]):
                        problems.append(Problem(template, i, f"non-local asset URL '{m['url']}'"))
    config_path = root / "mkdocs.yml"
    config = mkdocs_config(root)
    lines = config_path.read_text(encoding="utf-8").splitlines() if config_path.is_file() else []
    for key in ("extra_css", "extra_javascript"):
        for entry in config.get(key) or []:
            url = entry.get("path", "") if isinstance(entry, dict) else str(entry)
            if _is_remote(url):
                problems.append(
                    Problem(
                        config_path,
                        _line_of(lines, 1, url),
                        f"non-local asset URL '{url}' in {key}",
                    )
                )
    return problems


# --- stage pages ---------------------------------------------------------------------------------


def check_stage_pages(root: Path) -> list[Problem]:
    """Each lesson is listed (linked) on its stage page ``stage-N/index.md``."""
    problems = []
    docs = docs_dir(root)
    for lesson in lessons(docs):
        stage = lesson.front_matter.get("stage")
        if stage is None:
            continue
        stage_page = docs / f"stage-{stage}" / "index.md"
        if not stage_page.is_file():
            problems.append(
                Problem(lesson.path, 1, f"stage {stage} has no page (stage-{stage}/index.md)")
            )
            continue
        text = stage_page.read_text(encoding="utf-8")
        rel = (
            lesson.path.relative_to(stage_page.parent)
            if lesson.path.is_relative_to(stage_page.parent)
            else None
        )
        if rel is None or f"({rel.as_posix()})" not in text:
            problems.append(
                Problem(
                    stage_page,
                    1,
                    f"stage page does not link lesson {lesson.number} ({lesson.path.name})",
                )
            )
    return problems


# The lesson-format checks, in the order `python -m grader check` runs them.
LESSON_CHECKS: list[Check] = [
    check_front_matter,
    check_sections,
    check_prerequisites,
    check_links,
    check_item_ids,
    check_exercise_directives,
    check_asset_urls,
    check_stage_pages,
]

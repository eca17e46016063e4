"""The course's Python-Markdown extension: exercise directives, reps, the progress table, figures.

Registered in ``mkdocs.yml`` under ``markdown_extensions`` as ``grader.course.extension``; it
uses only Python-Markdown's API (no MkDocs plugin internals), so another Markdown host can load
it the same way. Paths are relative to the working directory (the course root).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from markdown import Markdown
from markdown.extensions import Extension

from grader.course.exercise_directive import ExerciseProcessor
from grader.course.memory_figures import FIGURE_RE, FigureProcessor
from grader.course.progress_directive import ProgressProcessor
from grader.course.rep_items import RepProcessor

# Above the list processors (ulist 30, olist 40) so that `- [ ] {#id}` is not taken as a list.
PRIORITY = 45
# Below inline code (190), so that a figure written inside backticks stays literal; above
# emphasis, so that `*` in a figure's expression is not read as Markdown.
FIGURE_PRIORITY = 185


class CourseExtension(Extension):
    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "exercises_dir": ["exercises", "folder of exercises/lesson-NN/<id>.yaml"],
            "docs_dir": ["lessons", "folder of the lesson pages (for the progress page)"],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Python-Markdown's name)
        exercises = Path(self.getConfig("exercises_dir"))
        docs = Path(self.getConfig("docs_dir"))
        parser = md.parser
        parser.blockprocessors.register(ExerciseProcessor(parser, exercises), "course-exercise",
                                        PRIORITY)
        parser.blockprocessors.register(ProgressProcessor(parser, docs), "course-progress",
                                        PRIORITY)
        parser.blockprocessors.register(RepProcessor(parser), "course-rep", PRIORITY)
        md.inlinePatterns.register(FigureProcessor(FIGURE_RE, md), "course-figure", FIGURE_PRIORITY)


def makeExtension(**kwargs: Any) -> CourseExtension:  # noqa: N802 (Python-Markdown's name)
    return CourseExtension(**kwargs)

"""The glossary's entry in the course checker (``python -m grader check``)."""

from __future__ import annotations

from pathlib import Path

from grader.course.problem import Problem
from grader.glossary.validation import glossary_problems

GLOSSARY_DIR = "glossary"
DOCS_DIR = "lessons"


def check_glossary(root: Path) -> list[Problem]:
    """Problems in ``root/glossary`` term files and in the lessons' ``terms:`` lists."""
    return [
        Problem(p.path, p.line, p.message)
        for p in glossary_problems(root / GLOSSARY_DIR, root / DOCS_DIR)
    ]

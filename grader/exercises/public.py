"""The public view of an exercise: what a lesson page may show.

Answer keys, per-option correctness and feedback, accepted answers, explanations and hidden tests
stay on the server. Everything not named in ``PUBLIC_FIELDS`` is dropped, so a new secret field is
private by default; the items of ``choices``, ``left`` and ``right`` keep only ``id`` and
``text``. The view is built from the raw file, without the grader's validation, so a page build
never needs the memory model or jsonschema; ``python -m grader check`` validates the files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

PUBLIC_FIELDS = (
    "id",
    "lesson",
    "section",
    "kind",
    "title",
    "prompt",
    "points",
    "unit",
    "display_unit",
    "placeholder",
    "function",
    "starter",
    "max_attempts",
)
PUBLIC_ITEM_FIELDS = ("id", "text")  # for choices, left and right (matching)
ITEM_LISTS = ("choices", "left", "right")


def public_view(exercise: dict[str, Any]) -> dict[str, Any]:
    """Return only the fields of ``exercise`` that a browser may see."""
    view: dict[str, Any] = {k: exercise[k] for k in PUBLIC_FIELDS if k in exercise}
    for name in ITEM_LISTS:
        items = exercise.get(name)
        if isinstance(items, list):
            view[name] = [
                {k: item[k] for k in PUBLIC_ITEM_FIELDS if k in item}
                for item in items
                if isinstance(item, dict)
            ]
    return view


def load_public(path: Path) -> dict[str, Any]:
    """Load one exercise file and return its public view.

    Raises ``ValueError`` naming ``path:line`` for malformed YAML or a file that is not a mapping.
    """
    path = Path(path)
    try:
        with path.open(encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or "malformed YAML"
        raise ValueError(f"{path}:{line}: malformed YAML: {problem}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}:1: an exercise file must hold a mapping")
    return public_view(data)


def load_public_lesson(root: Path, lesson: int) -> list[dict[str, Any]]:
    """The public views of every exercise of ``lesson`` under the exercises folder ``root``."""
    folder = Path(root) / f"lesson-{lesson:02d}"
    return [load_public(path) for path in sorted(folder.glob("*.yaml"))]

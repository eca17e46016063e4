"""The public view of an exercise: what a lesson page may show.

Answer keys, per-option correctness and feedback, accepted answers, explanations and hidden tests
stay on the server. Everything not named in ``PUBLIC_FIELDS`` is dropped, so a new secret field is
private by default.
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
        if name in exercise:
            view[name] = [
                {k: item[k] for k in PUBLIC_ITEM_FIELDS if k in item} for item in exercise[name]
            ]
    return view


def load_public(path: Path) -> dict[str, Any]:
    """Load one exercise file and return its public view."""
    with path.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: an exercise file must hold a mapping")
    return public_view(data)

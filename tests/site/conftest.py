"""Fixtures of the site tests: a throw-away copy of the course to break."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def course_copy(tmp_path: Path) -> Path:
    """A copy of the course's lessons, exercises, glossary and mkdocs.yml in a temp dir."""
    for name in ("lessons", "exercises", "glossary"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    glossary = tmp_path / "glossary"
    glossary.mkdir(exist_ok=True)
    term = glossary / "activation-checkpointing.yaml"
    if not term.exists():  # the glossary lands separately; the prerequisite must name a term
        term.write_text("term: Activation checkpointing\nshort: Recompute instead of store.\n")
    return tmp_path

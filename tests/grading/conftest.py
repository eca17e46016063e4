"""Fixtures for the grader's tests: the course's exercises and a scratch exercises folder."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.exercises.loader import Exercise, default_exercises_dir, load_exercises

COURSE_EXERCISES = default_exercises_dir()


@pytest.fixture(scope="session")
def exercises() -> dict[str, Exercise]:
    return load_exercises(COURSE_EXERCISES)


def write_exercise(root: Path, lesson: int, ident: str, text: str) -> Path:
    folder = root / f"lesson-{lesson:02d}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{ident}.yaml"
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


@pytest.fixture
def scratch(tmp_path: Path) -> Callable[..., Path]:
    """``scratch(lesson, id, yaml_text)`` writes an exercise into a folder with the real schema."""
    root = tmp_path / "exercises"
    root.mkdir()
    shutil.copy(COURSE_EXERCISES / "schema.json", root / "schema.json")

    def add(lesson: int, ident: str, text: str) -> Path:
        return write_exercise(root, lesson, ident, text)

    add.root = root  # type: ignore[attr-defined]
    return add


ZERO_EXERCISE = """
    id: l09-practice-zero2
    lesson: 9
    section: practice
    kind: numeric
    title: ZeRO stage 2 per device
    prompt: Model states per device for 7.5B parameters on 64 GPUs with ZeRO stage 2?
    unit: bytes
    display_unit: GB
    points: 2
    key: model_states(7.5e9, dp=64, zero=2).total
    tolerance: {relative: 0.03}
    mistakes:
      - name: wrong-zero-part
        value: model_states(7.5e9, dp=64, zero=3).total
      - name: wrong-zero-part
        value: model_states(7.5e9, dp=64, zero=1).total
      - name: off-by-dp
        value: model_states(7.5e9, dp=64, zero=2).total * 64
      - name: optimizer-forgotten
        value: model_states(7.5e9, dp=64, zero=2).total * 4 / 16
    explanation: 2Ψ + 14Ψ/N_d = **16.6 GB**.
"""


@pytest.fixture(scope="session")
def zero_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small exercises folder with a ZeRO numeric exercise and a count / factor exercise."""
    root = tmp_path_factory.mktemp("zero") / "exercises"
    root.mkdir()
    shutil.copy(COURSE_EXERCISES / "schema.json", root / "schema.json")
    write_exercise(root, 9, "l09-practice-zero2", ZERO_EXERCISE)
    write_exercise(
        root,
        9,
        "l09-practice-params-fit",
        """
        id: l09-practice-params-fit
        lesson: 9
        section: practice
        kind: numeric
        title: Largest model on 64 × 32 GB with ZeRO-3
        prompt: About how many parameters fit (model states only)?
        unit: count
        display_unit: B
        points: 1
        key: 64 * 32 * GB / 16
        tolerance: {factor: 1.5}
        explanation: About 128 billion.
        """,
    )
    write_exercise(
        root,
        9,
        "l09-practice-margin",
        """
        id: l09-practice-margin
        lesson: 9
        section: practice
        kind: numeric
        title: Absolute tolerance
        prompt: fp16 bytes of 1,000 parameters?
        unit: bytes
        display_unit: B
        points: 1
        key: model_states(1000).parts["fp16 parameters"]
        tolerance: {absolute: 100}
        common_mistakes: []
        explanation: 2,000 bytes.
        """,
    )
    return root

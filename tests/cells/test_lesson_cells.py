"""The cells of the lesson pages, run in CPython from the very fences the pages render.

The fence body in the lesson Markdown is the only copy of a cell's source: these tests extract
it (grader.course.cells.extract_cells) and run each page's cells in page order through the same
runtime the browser uses (grader.cell_runtime), then check what a learner would read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.cell_runtime import CellRuntime
from grader.course.cells import CellSource, extract_cells
from grader.memory import GB, format_bytes, model_states

ROOT = Path(__file__).resolve().parents[2]
LESSON_8 = ROOT / "lessons/stage-4/lesson-08.md"
LESSON_11 = ROOT / "lessons/stage-5/lesson-11.md"
FEATURE = ROOT / "lessons/features/cells.md"
# Cells that are meant to fail or never end (they demonstrate errors and Stop).
DEMONSTRATIONS = {"demo-error": "error", "demo-loop": "skip"}


def run_page(path: Path) -> dict[str, tuple[CellSource, bool, dict[str, str]]]:
    """Run every cell of a page, in page order, in one namespace: id -> (cell, ok, output)."""
    runtime = CellRuntime()
    results: dict[str, tuple[CellSource, bool, dict[str, str]]] = {}
    for cell in extract_cells(path):
        if DEMONSTRATIONS.get(cell.id) == "skip":
            continue
        output: dict[str, str] = {}

        def emit(kind: str, text: str, output: dict[str, str] = output) -> None:
            output[kind] = output.get(kind, "") + text

        summary = runtime.run(str(path), cell.id, cell.source, emit)
        results[cell.id] = (cell, summary["ok"], output)
    return results


@pytest.mark.parametrize("page", [LESSON_8, LESSON_11, FEATURE], ids=lambda p: p.stem)
def test_every_cell_runs_without_error(page: Path) -> None:
    results = run_page(page)
    assert results, f"{page} has no pycell"
    for cell_id, (cell, ok, output) in results.items():
        expected_ok = DEMONSTRATIONS.get(cell_id) != "error"
        assert ok is expected_ok, f"{page.name}:{cell.line} cell {cell_id}: {output}"


def test_lesson_8_cells_are_in_the_right_sections() -> None:
    sections = {c.id: c.section for c in extract_cells(LESSON_8)}
    assert sections == {
        "l08-gpt2-breakdown": "Know this",
        "l08-states-calculator": "Practice",
        "l08-32gb-budget": "Practice",
    }


def test_lesson_11_cells_are_in_the_right_sections() -> None:
    sections = {c.id: c.section for c in extract_cells(LESSON_11)}
    assert sections == {
        "l11-activations-60gb": "Know this",
        "l11-checkpointing": "Know this",
        "l11-double-seq": "Real-world reps",
    }


def test_lesson_8_breakdown_shows_24_gb_and_3_gb_of_fp16_weights() -> None:
    # ZeRO paper, Section 3.1: GPT-2 1.5B needs 24 GB of model states, 3 GB of fp16 weights.
    _, _, out = run_page(LESSON_8)["l08-gpt2-breakdown"]
    assert "total                   24 GB" in out["stdout"]
    assert "fp16 parameters alone: 3 GB" in out["stdout"]


def test_lesson_8_32gb_cell_compares_with_and_without_activations() -> None:
    _, _, out = run_page(LESSON_8)["l08-32gb-budget"]
    lines = out["stdout"].splitlines()
    assert lines[0].startswith("model states ") and lines[0].endswith("of 32 GB: fits")
    # 24 GB of states + the ZeRO paper's ~60 GB of activations (Section 3.2) = 84.4 GB.
    assert "84.4 GB" in lines[1] and lines[1].endswith("does not fit")


def test_practice_cells_leave_the_graded_step_to_the_learner() -> None:
    """The practice cells hold the tool; the graded numbers are not in their output or code."""
    results = run_page(LESSON_8)
    answers = {
        "l08-states-calculator": model_states(7e9).total,  # l08-practice-7b-states
        "l08-32gb-budget": model_states(1.4e9).total,  # l08-practice-1p4b-vs-32gb
    }
    for cell_id, answer in answers.items():
        cell, _, out = results[cell_id]
        shown = format_bytes(answer)
        assert shown not in out.get("stdout", ""), f"{cell_id} prints the answer {shown}"
        assert str(answer / GB) not in cell.source
    assert "7e9" not in results["l08-states-calculator"][0].source
    assert "1.4e9" not in results["l08-32gb-budget"][0].source


def test_lesson_11_activation_cells() -> None:
    results = run_page(LESSON_11)
    # ZeRO paper, Section 3.2: about 60 GB of activations for GPT-2 1.5B, seq 1,024, batch 32.
    assert "ZeRO paper's estimate: 60.4 GB" in results["l11-activations-60gb"][2]["stdout"]
    # Korthikanti et al. 2022, Eq. 2 and Section 5: none sbhL(34+5as/h), selective 34sbhL,
    # full 2sbhL, here for s=1024, b=32, h=1600, a=25, L=48.
    checkpointing = results["l11-checkpointing"][2]["stdout"]
    for mode, size in [("none", "287 GB"), ("selective", "85.6 GB"), ("full", "5.03 GB")]:
        assert any(
            f"'{mode}'" in line and line.endswith(size) for line in checkpointing.splitlines()
        ), (mode, checkpointing)
    # Doubling s: 12·h·b·s·L doubles; sbh(34 + 5as/h) grows by 2·(34 + 160)/(34 + 80) = 3.40.
    doubling = results["l11-double-seq"][2]["stdout"].splitlines()
    assert doubling[0].startswith("zero-paper") and doubling[0].endswith("x2.00")
    assert doubling[1].startswith("korthikanti") and doubling[1].endswith("x3.40")


@pytest.mark.parametrize("page", [LESSON_8, LESSON_11, FEATURE], ids=lambda p: p.stem)
def test_cell_lines_fit_the_editor(page: Path) -> None:
    """The editor does not wrap: longer lines hide behind a horizontal scrollbar (README)."""
    for cell in extract_cells(page):
        for n, line in enumerate(cell.source.splitlines(), start=1):
            assert len(line) <= 78, f"{page.name}: cell {cell.id} line {n} is {len(line)} long"

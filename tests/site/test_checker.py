"""The course checker (`python -m grader check`) on the real course and on broken copies."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from grader.course import check, lesson_checks
from grader.course.problem import Problem

ROOT = Path(__file__).resolve().parents[2]
LESSON_8 = Path("lessons/stage-4/lesson-08.md")
LESSON_11 = Path("lessons/stage-5/lesson-11.md")
SITE_CHECKS = lesson_checks.LESSON_CHECKS


def edit(path: Path, old: str, new: str) -> None:
    """Replace ``old`` (which must occur) by ``new`` in ``path``."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def lines(root: Path) -> list[str]:
    return [p.render(root) for p in check.run(root, SITE_CHECKS)]


def line_of(path: Path, needle: str) -> int:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in {path}")


def test_site_checks_are_registered() -> None:
    for fn in SITE_CHECKS:
        assert fn in check.CHECKS


def test_the_course_passes_the_lesson_checks(course_copy: Path) -> None:
    assert lines(course_copy) == []


def test_missing_section(course_copy: Path) -> None:
    path = course_copy / LESSON_8
    edit(path, "## Real-world reps\n", "")
    reps_line = line_of(path, "## Going further")
    assert f"{LESSON_8}:{reps_line}: missing section '## Real-world reps'" in lines(course_copy)


def test_section_out_of_order(course_copy: Path) -> None:
    path = course_copy / LESSON_11
    text = path.read_text(encoding="utf-8")
    warm = text[text.index("## Warm-up") : text.index("## Know this")]
    text = text.replace(warm, "").replace("## Practice", warm + "## Practice")
    path.write_text(text, encoding="utf-8")
    found = lines(course_copy)
    know = line_of(path, "## Know this")
    assert any(
        f.startswith(f"{LESSON_11}:") and "'## Warm-up' is out of order" in f for f in found
    ), found
    assert not any(f"{LESSON_11}:{know}:" in f for f in found)


def test_unknown_heading_and_duplicate_section(course_copy: Path) -> None:
    path = course_copy / LESSON_8
    edit(path, "## Going further", "## Practice\n\n## Summary\n\n## Going further")
    found = "\n".join(lines(course_copy))
    assert "section '## Practice' appears twice" in found
    assert "'## Summary' is not a lesson section" in found


def test_prerequisite_that_names_nothing(course_copy: Path) -> None:
    path = course_copy / LESSON_8
    edit(path, "  - lesson: 7", "  - lesson: 80")
    edit(course_copy / LESSON_11, "term: activation-checkpointing", "term: activation-chekpointing")
    found = lines(course_copy)
    assert (
        f"{LESSON_8}:{line_of(path, 'prerequisites:')}: prerequisite lesson 80 names no "
        "earlier lesson of the course" in found
    )
    assert any(
        "prerequisite term 'activation-chekpointing' names no glossary term" in f for f in found
    )


def test_link_that_names_nothing(course_copy: Path) -> None:
    path = course_copy / LESSON_8
    edit(path, "## Going further\n", "## Going further\n\nSee [Lesson 9](lesson-09.md).\n")
    line = line_of(path, "lesson-09.md")
    assert (
        f"{LESSON_8}:{line}: link 'lesson-09.md' names nothing (no lesson-09.md next to "
        "this page)" in lines(course_copy)
    )


def test_duplicate_item_id(course_copy: Path) -> None:
    path = course_copy / LESSON_11
    edit(path, "- [ ] {#l11-rep-double-seq}", "- [ ] {#l11-rep-find-checkpointing}")
    line = line_of(path, "Take Lesson 8's GPT-2")
    first = line_of(path, "Find where activation checkpointing")
    assert (
        f"{LESSON_11}:{line}: duplicate item id 'l11-rep-find-checkpointing' (also at "
        f"lesson-11.md:{first})" in lines(course_copy)
    )


def test_rep_without_id(course_copy: Path) -> None:
    path = course_copy / LESSON_8
    edit(path, "- [ ] {#l08-rep-residual-memory} In", "- [ ] In")
    line = line_of(path, "- [ ] In the ZeRO paper")
    assert any(
        f.startswith(f"{LESSON_8}:{line}: a rep needs an explicit id") for f in lines(course_copy)
    )


@pytest.mark.parametrize(
    "snippet, url",
    [
        ("![chart](https://cdn.example.com/chart.png)", "https://cdn.example.com/chart.png"),
        ('<script src="//cdn.example.com/x.js"></script>', "//cdn.example.com/x.js"),
        (
            '<link rel="stylesheet" href="http://fonts.example.com/a.css">',
            "http://fonts.example.com/a.css",
        ),
        ('<img alt="" src="https://example.com/a.svg">', "https://example.com/a.svg"),
    ],
)
def test_non_local_asset_url(course_copy: Path, snippet: str, url: str) -> None:
    path = course_copy / LESSON_8
    edit(path, "## Going further\n", f"## Going further\n\n{snippet}\n")
    line = line_of(path, snippet)
    found = lines(course_copy)
    assert any(f.startswith(f"{LESSON_8}:{line}: non-local asset URL '{url}'") for f in found), (
        found
    )


def test_plain_external_link_is_not_an_asset(course_copy: Path) -> None:
    assert not any("non-local" in f for f in lines(course_copy))  # the arXiv links are fine


def test_non_local_script_in_mkdocs_yml(course_copy: Path) -> None:
    edit(
        course_copy / "mkdocs.yml",
        "extra_javascript:\n",
        "extra_javascript:\n  - https://cdn.example.com/lib.js\n",
    )
    assert any(
        "mkdocs.yml:" in f and "non-local asset URL 'https://cdn.example.com/lib.js'" in f
        for f in lines(course_copy)
    )


def test_directive_naming_no_exercise(course_copy: Path) -> None:
    path = course_copy / LESSON_8
    edit(path, "::: exercise l08-warmup-allreduce", "::: exercise l08-warmup-allreduse")
    line = line_of(path, "l08-warmup-allreduse")
    assert (
        f"{LESSON_8}:{line}: exercise 'l08-warmup-allreduse' does not exist (no "
        "exercises/lesson-NN/l08-warmup-allreduse.yaml)" in lines(course_copy)
    )


def test_exercise_in_the_wrong_section_or_lesson(course_copy: Path) -> None:
    path = course_copy / LESSON_8
    edit(path, "::: exercise l08-practice-7b-states\n", "")
    edit(
        path,
        "::: exercise l08-warmup-more-devices\n",
        "::: exercise l08-warmup-more-devices\n\n::: exercise l08-practice-7b-states\n\n"
        "::: exercise l11-warmup-fsdp-stage\n",
    )
    found = "\n".join(lines(course_copy))
    assert "'l08-practice-7b-states' is a practice exercise but sits in 'Warm-up'" in found
    assert "'l11-warmup-fsdp-stage' is in lesson-11, not lesson-08" in found


def test_front_matter_missing_fields(course_copy: Path) -> None:
    path = course_copy / LESSON_11
    edit(path, "primary_source:\n  kind: Paper\n", "source:\n  kind: Paper\n")
    assert f"{LESSON_11}:1: front matter has no 'primary_source'" in lines(course_copy)


def test_lesson_missing_from_its_stage_page(course_copy: Path) -> None:
    edit(course_copy / "lessons/stage-4/index.md", "(lesson-08.md)", "(../index.md)")
    assert "lessons/stage-4/index.md:1: stage page does not link lesson 8 (lesson-08.md)" in lines(
        course_copy
    )


def test_problem_format() -> None:
    assert str(Problem(Path("lessons/a.md"), 3, "broken")) == "lessons/a.md:3: broken"


def test_crashing_check_is_a_fault(tmp_path: Path) -> None:
    (tmp_path / "mkdocs.yml").write_text("docs_dir: lessons\n")

    def broken(root: Path) -> list[Problem]:
        raise RuntimeError("boom")

    [problem] = check.run(tmp_path, [broken])
    assert "check broken crashed" in problem.message


def test_command_line_prints_faults_and_exits_non_zero(course_copy: Path) -> None:
    path = course_copy / LESSON_8
    edit(path, "## Warm-up\n", "")
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "check", "--root", str(course_copy)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 1
    assert (
        f"{LESSON_8}:{line_of(path, '## Know this')}: missing section '## Warm-up'"
        in proc.stdout.splitlines()
    )


def test_command_line_without_a_course(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "check", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 2 and "mkdocs.yml" in proc.stderr

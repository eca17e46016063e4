"""The course's exercise files: the contract's ids, valid files, keys from the memory model,
and nothing secret in the public view."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from grader.exercises.check import check_exercises, stated_sizes
from grader.exercises.keys import evaluate
from grader.exercises.loader import Exercise, check_exercises_dir, default_exercises_dir
from grader.exercises.public import load_public, load_public_lesson
from grader.memory import model_states

COURSE_EXERCISES = default_exercises_dir()

CONTRACT_IDS = {
    8: [
        "l08-warmup-allreduce",
        "l08-warmup-more-devices",
        "l08-practice-7b-states",
        "l08-practice-why-dp-fails",
        "l08-practice-1p4b-vs-32gb",
        "l08-code-model-state-bytes",
    ],
    11: [
        "l11-warmup-fsdp-stage",
        "l11-warmup-stage3-comm",
        "l11-practice-oom-long-seq",
        "l11-practice-checkpointing-insufficient",
        "l11-practice-zero-r-match",
        "l11-code-activation-bytes",
    ],
}
SECRET_FIELDS = {
    "key",
    "accepted",
    "explanation",
    "tests",
    "solution",
    "mistakes",
    "tolerance",
    "near_misses",
    "feedback",
    "correct",
    "partial_credit",
    "min_words",
    "limits",
}


def test_every_contract_id_has_its_file():
    for lesson, ids in CONTRACT_IDS.items():
        for ident in ids:
            assert (COURSE_EXERCISES / f"lesson-{lesson:02d}" / f"{ident}.yaml").is_file(), ident


def test_the_course_exercises_have_no_problems():
    exercises, problems = check_exercises_dir(COURSE_EXERCISES)
    assert [str(p) for p in problems] == []
    assert sorted(exercises) == sorted(i for ids in CONTRACT_IDS.values() for i in ids)
    assert check_exercises(COURSE_EXERCISES.parent) == []


def test_each_lesson_has_a_code_exercise_and_the_drafts_kinds(exercises: dict[str, Exercise]):
    kinds = {ident: ex.kind for ident, ex in exercises.items()}
    assert kinds["l08-practice-why-dp-fails"] == "single_choice"
    assert kinds["l11-practice-checkpointing-insufficient"] == "single_choice"
    assert kinds["l11-practice-zero-r-match"] == "matching"
    assert kinds["l08-warmup-allreduce"] == "short_answer"
    assert kinds["l08-code-model-state-bytes"] == kinds["l11-code-activation-bytes"] == "code"
    # the drafts' four options a-d, in order
    for ident in ("l08-practice-why-dp-fails", "l11-practice-checkpointing-insufficient"):
        choices = exercises[ident].data["choices"]
        assert [c["id"] for c in choices] == ["a", "b", "c", "d"]
        assert all(c["feedback"] for c in choices)


def test_every_numeric_key_and_mistake_evaluates(exercises: dict[str, Exercise]):
    numeric = [ex for ex in exercises.values() if ex.kind == "numeric"]
    assert numeric
    for ex in numeric:
        value = evaluate(ex.data["key"])
        assert math.isfinite(value) and value > 0, ex.id
        for mistake in ex.data.get("mistakes", []):
            assert math.isfinite(evaluate(mistake["value"])), (ex.id, mistake["name"])


def test_keys_agree_with_the_paper_figures(exercises: dict[str, Exercise]):
    """ZeRO (arXiv:1910.02054) Section 3.1: 16 bytes per parameter under mixed-precision Adam."""
    assert evaluate(exercises["l08-practice-7b-states"].data["key"]) == 112e9
    assert evaluate(exercises["l08-practice-1p4b-vs-32gb"].data["key"]) == pytest.approx(22.4e9)
    assert model_states(7e9).total == 16 * 7e9


def test_numbers_stated_for_a_question_agree_with_its_key(exercises: dict[str, Exercise]):
    """Every bold size in a numeric explanation (what the learner is told) matches the key."""
    for ident in ("l08-practice-7b-states", "l08-practice-1p4b-vs-32gb"):
        stated = stated_sizes(exercises[ident])
        assert stated, ident
        key = evaluate(exercises[ident].data["key"])
        for text, value in stated:
            assert value == pytest.approx(key, rel=0.01), (ident, text)


def test_every_exercise_is_on_its_lesson_page_once():
    """Each exercise file appears exactly once on its lesson's page, in the matching section;
    page figures themselves come from the memory model ({{ memory: ... }}), as the keys do."""
    pages = {8: "stage-4/lesson-08.md", 11: "stage-5/lesson-11.md"}
    lessons = COURSE_EXERCISES.parent / "lessons"
    for lesson, page in pages.items():
        path = lessons / page
        if not path.is_file():
            pytest.skip(f"{page} not written yet")
        text = path.read_text(encoding="utf-8")
        placed = re.findall(r"^::: exercise (\S+)\s*$", text, flags=re.MULTILINE)
        for ident in CONTRACT_IDS[lesson]:
            assert placed.count(ident) == 1, (page, ident)
        sections = re.split(r"^## ", text, flags=re.MULTILINE)
        for ident in CONTRACT_IDS[lesson]:
            section = next(s for s in sections if f"::: exercise {ident}" in s)
            heading = section.splitlines()[0].strip().lower()
            expected = "warm-up" if "-warmup-" in ident else "practice"
            assert heading.startswith(expected), (ident, heading)


@pytest.mark.parametrize(
    "path", sorted(COURSE_EXERCISES.glob("lesson-*/*.yaml")), ids=lambda p: p.stem
)
def test_the_public_view_carries_no_secret(path: Path):
    view = load_public(path)
    assert not SECRET_FIELDS & set(view), path
    for name in ("choices", "left", "right"):
        for item in view.get(name, []):
            assert set(item) == {"id", "text"}
    text = repr(view)
    assert "solution" not in text and "def test_" not in text


def test_every_file_names_the_schema_for_editors():
    for path in COURSE_EXERCISES.glob("lesson-*/*.yaml"):
        assert path.read_text().startswith("# yaml-language-server: $schema=../schema.json"), path


def test_the_public_view_of_a_malformed_file_names_its_line(tmp_path: Path):
    bad = tmp_path / "l08-practice-x.yaml"
    bad.write_text("id: l08-practice-x\nprompt: [unclosed\n")
    with pytest.raises(ValueError, match=r"l08-practice-x.yaml:3: malformed YAML"):
        load_public(bad)
    listed = tmp_path / "list.yaml"
    listed.write_text("- 1\n")
    with pytest.raises(ValueError, match="must hold a mapping"):
        load_public(listed)


def test_public_views_of_a_lesson():
    views = load_public_lesson(COURSE_EXERCISES, 11)
    assert {v["id"] for v in views} == set(CONTRACT_IDS[11])
    matching = next(v for v in views if v["kind"] == "matching")
    assert len(matching["left"]) == len(matching["right"]) == 3 and "key" not in matching

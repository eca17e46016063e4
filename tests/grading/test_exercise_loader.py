"""Exercise files with problems: each reported as ``file:line: message`` at the right line."""

from __future__ import annotations

from pathlib import Path

from grader.exercises.check import check_exercises
from grader.exercises.loader import check_exercises_dir, read_exercise

GOOD = """\
# yaml-language-server: $schema=../schema.json
id: l09-practice-x
lesson: 9
section: practice
kind: numeric
title: T
prompt: P
unit: bytes
key: model_states(7e9).total
tolerance: {relative: 0.05}
explanation: E
"""


def problems(path: Path) -> list[str]:
    _, found = read_exercise(path)
    return [f"{p.path.name}:{p.line}: {p.message}" for p in found]


def test_a_good_file_has_no_problem(scratch):
    path = scratch(9, "l09-practice-x", GOOD)
    exercise, found = read_exercise(path)
    assert found == [] and exercise is not None and exercise.line_of("key") == 9


def test_malformed_yaml_names_its_line(scratch):
    path = scratch(9, "l09-practice-x", GOOD.replace("title: T", "title: [T"))
    (message,) = problems(path)
    assert message.startswith("l09-practice-x.yaml:") and "malformed YAML" in message
    assert int(message.split(":")[1]) in (7, 8)


def test_unknown_kind(scratch):
    path = scratch(9, "l09-practice-x", GOOD.replace("kind: numeric", "kind: essay"))
    assert any(m.startswith("l09-practice-x.yaml:5: unknown kind 'essay'") for m in problems(path))


def test_missing_field_for_the_kind(scratch):
    path = scratch(9, "l09-practice-x", GOOD.replace("key: model_states(7e9).total\n", ""))
    assert "l09-practice-x.yaml:2: missing field 'key' (needed by kind 'numeric')" in problems(path)


def test_unknown_field(scratch):
    path = scratch(9, "l09-practice-x", GOOD + "answer: 112 GB\n")
    assert "l09-practice-x.yaml:2: unknown field(s) 'answer'" in problems(path)


def test_a_key_that_does_not_evaluate(scratch):
    path = scratch(9, "l09-practice-x", GOOD.replace("model_states(7e9)", "model_states(-1)"))
    (message,) = problems(path)
    assert message.startswith(
        "l09-practice-x.yaml:9: key 'model_states(-1).total' does not evaluate"
    )


def test_a_key_without_total_is_not_a_number(scratch):
    path = scratch(9, "l09-practice-x", GOOD.replace(".total", ""))
    (message,) = problems(path)
    assert "not a number (did you forget .total?)" in message


def test_a_key_cannot_run_code(scratch):
    for bad in ("__import__('os').system('true')", "model_states.__globals__", "[x for x in ()]"):
        path = scratch(9, "l09-practice-x", GOOD.replace("model_states(7e9).total", f'"{bad}"'))
        (message,) = problems(path)
        assert "l09-practice-x.yaml:9:" in message and (
            "not allowed" in message or "unknown name" in message
        )


def test_a_mistake_inside_the_tolerance_is_refused(scratch):
    text = (
        GOOD
        + "mistakes:\n  - name: optimizer-forgotten\n    value: model_states(7e9).total * 1.01\n"
    )
    path = scratch(9, "l09-practice-x", text)
    (message,) = problems(path)
    assert message.startswith("l09-practice-x.yaml:14: mistake 'optimizer-forgotten'")


def test_an_unknown_mistake_needs_feedback(scratch):
    text = GOOD + "mistakes:\n  - name: mystery\n    value: model_states(7e9).total * 3\n"
    (message,) = problems(scratch(9, "l09-practice-x", text))
    assert "l09-practice-x.yaml:13: mistake 'mystery' is not a known one" in message


def test_duplicate_keys_and_id_mismatch(scratch):
    text = GOOD.replace("title: T", "title: T\ntitle: U").replace(
        "id: l09-practice-x", "id: l09-practice-y"
    )
    found = problems(scratch(9, "l09-practice-x", text))
    assert "l09-practice-x.yaml:7: duplicate key 'title' (the last one wins)" in found
    assert any("id 'l09-practice-y' does not match the file name" in m for m in found)


def test_single_choice_needs_one_correct_option(scratch):
    text = """\
id: l09-practice-c
lesson: 9
section: practice
kind: single_choice
title: T
prompt: P
choices:
  - {id: a, text: A, feedback: F, correct: true}
  - {id: b, text: B, feedback: F, correct: true}
explanation: E
"""
    assert problems(scratch(9, "l09-practice-c", text)) == [
        "l09-practice-c.yaml:7: a single choice needs exactly one option with 'correct: true' "
        "(found 2)"
    ]


def test_matching_key_must_pair_real_items(scratch):
    text = """\
id: l09-practice-m
lesson: 9
section: practice
kind: matching
title: T
prompt: P
left: [{id: x, text: X}, {id: y, text: Y}]
right: [{id: p, text: P}, {id: q, text: Q}]
key:
  x: p
  y: r
explanation: E
"""
    assert problems(scratch(9, "l09-practice-m", text)) == [
        "l09-practice-m.yaml:11: key pairs 'y' with unknown 'r'"
    ]


def test_code_exercise_needs_its_hidden_tests_and_function(scratch):
    text = """\
id: l09-code-f
lesson: 9
section: code
kind: code
title: T
prompt: P
function: f
starter: "def g(): ..."
tests: hidden/test_f.py
solution: "def f(): return 1"
explanation: E
"""
    found = problems(scratch(9, "l09-code-f", text))
    assert "l09-code-f.yaml:9: hidden test module 'hidden/test_f.py' not found" in found
    assert "l09-code-f.yaml:8: starter does not define function 'f' (or does not parse)" in found


def test_two_files_with_one_id_and_the_course_checker_entry(scratch, tmp_path):
    scratch(9, "l09-practice-x", GOOD)
    scratch(10, "l09-practice-x", GOOD)
    _, found = check_exercises_dir(scratch.root)
    assert any("lesson 9 but the file is in lesson-10/" in p.message for p in found)
    course = check_exercises(scratch.root.parent)
    assert course and all(p.path.suffix == ".yaml" and p.line >= 1 for p in course)


def test_an_explanation_that_contradicts_its_key(scratch):
    scratch(9, "l09-practice-x", GOOD.replace("explanation: E", "explanation: It is **120 GB**."))
    (problem,) = check_exercises(scratch.root.parent)
    assert "states **120 GB** but the key" in problem.message and problem.line == 11

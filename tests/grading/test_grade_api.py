"""grade(): Gradescope results.json from the warm forking grader, each submission isolated."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from grader.grading import SubmissionError, grade, grade_in_this_process
from grader.grading.model_answers import model_submission


def test_results_have_the_gradescope_shape():
    result = grade(
        {
            "learner": "ada",
            "lesson": 8,
            "answers": {"l08-practice-7b-states": "112 GB", "l08-practice-why-dp-fails": "a"},
        }
    )
    assert set(result) >= {"score", "max_score", "execution_time", "output", "tests", "extra_data"}
    assert result["score"] == 2 and result["max_score"] == 3
    first, second = result["tests"]
    assert first["name"] == "l08-practice-7b-states" and first["status"] == "passed"
    assert second["status"] == "failed" and second["visibility"] == "visible"
    assert set(first) >= {"name", "score", "max_score", "status", "output", "visibility"}
    extra = result["extra_data"]
    assert extra["grader_version"] and len(extra["exercises_digest"]) == 16
    # the explanation of an unpassed question is for the service to reveal, not in its output
    assert "**b.**" in extra["explanations"]["l08-practice-why-dp-fails"]
    assert "**b.**" not in second["output"]
    assert "l08-warmup-allreduce" in extra["unanswered"]


@pytest.mark.parametrize("lesson", [8, 11])
def test_model_answers_get_full_marks(exercises, lesson):
    result = grade(model_submission(exercises, lesson))
    failed = [t for t in result["tests"] if t["status"] != "passed"]
    assert failed == [] and result["score"] == result["max_score"] > 0


def test_every_submission_is_graded_in_isolation():
    """The prototype's bug: repeated pytest.main in one process graded 59 of 100 with the first
    submission's answers. Alternate right and wrong submissions and check each on its own."""
    right = {"l08-practice-7b-states": "112 GB", "l08-warmup-allreduce": "all-reduce"}
    wrong = {"l08-practice-7b-states": "28 GB", "l08-warmup-allreduce": "broadcast"}
    for i in range(12):
        answers = right if i % 2 == 0 else wrong
        result = grade({"learner": f"l{i}", "lesson": 8, "answers": answers})
        assert result["score"] == (3 if i % 2 == 0 else 0), i
        assert result["extra_data"]["learner"] == f"l{i}"


def test_concurrent_callers_get_their_own_results(exercises):
    code = exercises["l08-code-model-state-bytes"].data["solution"]

    def one(i: int) -> tuple[int, float]:
        answers = {"l08-practice-7b-states": f"{100 + i} GB"}
        if i % 3 == 0:
            answers["l08-code-model-state-bytes"] = code
        return i, grade({"learner": str(i), "lesson": 8, "answers": answers})["score"]

    with ThreadPoolExecutor(6) as pool:
        for i, score in pool.map(one, range(18)):
            expected = (2 if abs(100 + i - 112) <= 5.6 else 0) + (4 if i % 3 == 0 else 0)
            assert score == expected, i


def test_submission_errors_surface_before_grading():
    with pytest.raises(SubmissionError, match="unknown question id 'nope'"):
        grade({"learner": "a", "lesson": 8, "answers": {"nope": 1}})


def test_grading_in_this_process_gives_the_same_result():
    sub = {
        "learner": "a",
        "lesson": 11,
        "answers": {"l11-warmup-fsdp-stage": "zero-3", "l11-practice-oom-long-seq": ["a"]},
    }
    here, warm = grade_in_this_process(sub), grade(sub)
    for a, b in zip(here["tests"], warm["tests"], strict=True):
        assert (a["name"], a["score"], a["output"]) == (b["name"], b["score"], b["output"])


def test_the_plugin_works_from_the_pytest_command_line(tmp_path, exercises):
    """Instructors (and the benchmark's baseline) can run the grading plugin with plain pytest."""
    submission = tmp_path / "sub.json"
    submission.write_text(
        json.dumps(
            {
                "learner": "a",
                "lesson": 8,
                "answers": {"l08-practice-7b-states": "0.112 TB", "l08-practice-why-dp-fails": "c"},
            }
        )
    )
    out = tmp_path / "results.json"
    root = exercises["l08-practice-7b-states"].path.parent.parent
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "grader.grading.plugin",
            "-p",
            "no:cacheprovider",
            "--submission",
            str(submission),
            "--results",
            str(out),
            "-q",
            str(root / "lesson-08" / "l08-practice-7b-states.yaml"),
            str(root / "lesson-08" / "l08-practice-why-dp-fails.yaml"),
        ],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # one failed question
    assert "1 failed, 1 passed" in proc.stdout
    result = json.loads(out.read_text())
    assert result["score"] == 2 and [t["status"] for t in result["tests"]] == ["passed", "failed"]
    # a whole lesson folder: only answered questions are items, unanswered code is not run
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "grader.grading.plugin",
            "-p",
            "no:cacheprovider",
            "--submission",
            str(submission),
            "--results",
            str(out),
            "-q",
            str(root / "lesson-08"),
        ],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
    )
    assert "1 failed, 1 passed" in proc.stdout, proc.stdout + proc.stderr


def test_the_warm_grader_restarts_after_a_crash_and_after_an_edit(scratch):
    from grader.grading import _graders

    path = scratch(9, "l09-practice-x", ZERO_LIKE)
    root = scratch.root
    sub = {"learner": "a", "lesson": 9, "answers": {"l09-practice-x": "112 GB"}}
    assert grade(sub, exercises_dir=root)["score"] == 1
    warm = _graders[root.resolve()][1]
    warm._proc.kill()  # the warm parent dies: the next call starts a new one
    warm._proc.wait()
    assert grade(sub, exercises_dir=root)["score"] == 1
    # an instructor edits the key: the grader notices and grades against the new file
    path.write_text(path.read_text().replace("model_states(7e9)", "model_states(14e9)"))
    assert grade(sub, exercises_dir=root)["score"] == 0
    sub["answers"]["l09-practice-x"] = "224 GB"
    assert grade(sub, exercises_dir=root)["score"] == 1


ZERO_LIKE = """
    id: l09-practice-x
    lesson: 9
    section: practice
    kind: numeric
    title: T
    prompt: P
    unit: bytes
    key: model_states(7e9).total
    tolerance: {relative: 0.01}
    common_mistakes: []
    explanation: E
"""


def test_start_warms_the_grader_ahead_of_the_first_submission(scratch):
    import time

    from grader.grading import _graders, start

    scratch(9, "l09-practice-x", ZERO_LIKE)
    start(scratch.root)
    assert _graders[scratch.root.resolve()][1].alive
    time.sleep(0.1)
    result = grade(
        {"learner": "a", "lesson": 9, "answers": {"l09-practice-x": "112 GB"}},
        exercises_dir=scratch.root,
    )
    assert result["score"] == 1

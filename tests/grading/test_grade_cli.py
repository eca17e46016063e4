"""``python -m grader grade``: readable report, --json, exit codes 0 / 2, messages naming the
question or the line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.grading.cli import main


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


GOOD_YAML = """\
learner: ada
lesson: 8
answers:
  l08-warmup-allreduce: all-reduce
  l08-practice-7b-states: 104.3 GB
  l08-practice-why-dp-fails: b
"""


def test_report_and_exit_zero(tmp_path, capsys):
    assert main([str(write(tmp_path, "s.yaml", GOOD_YAML))]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Lesson 8, learner ada: 2 of 4 points")
    assert "✓ l08-warmup-allreduce (short answer): 1/1" in out
    assert "✗ l08-practice-7b-states (numeric): 0/2" in out and "GiB" in out
    assert "Not answered: l08-code-model-state-bytes" in out


def test_json_output_is_gradescope(tmp_path, capsys):
    sub = {"learner": "ada", "lesson": 8, "answers": {"l08-practice-7b-states": "112 GB"}}
    assert main(["--json", str(write(tmp_path, "s.json", json.dumps(sub)))]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["score"] == result["max_score"] == 2
    assert result["tests"][0]["name"] == "l08-practice-7b-states"


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("bad.yaml", "learner: a\nlesson: 8\nanswers:\n  x: [1\n", "bad.yaml:5:1: malformed YAML"),
        (
            "bad.json",
            '{"learner": "a",\n "lesson": 8,\n "answers": {"x": }}',
            "bad.json:3:19: malformed JSON",
        ),
        (
            "nan.json",
            '{"learner": "a", "lesson": 8, "answers": {"l08-practice-7b-states": NaN}}',
            "NaN is not a number",
        ),
        (
            "unknown.yaml",
            "learner: a\nlesson: 8\nanswers: {l08-nope: 1}\n",
            "unknown question id 'l08-nope'",
        ),
        (
            "type.yaml",
            "learner: a\nlesson: 8\nanswers: {l08-practice-why-dp-fails: [a, b]}\n",
            "answer to 'l08-practice-why-dp-fails'",
        ),
        ("list.yaml", "- 1\n", "must be a mapping"),
    ],
)
def test_unusable_submissions_exit_two(tmp_path, capsys, name, text, words):
    assert main([str(write(tmp_path, name, text))]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err


def test_a_huge_file_is_refused(tmp_path, capsys):
    path = write(
        tmp_path,
        "big.yaml",
        "learner: a\nlesson: 8\nanswers:\n  l08-warmup-allreduce: " + "x" * 10_000_000 + "\n",
    )
    assert main([str(path)]) == 2
    assert "a submission is at most" in capsys.readouterr().err


def test_missing_file(tmp_path, capsys):
    assert main([str(tmp_path / "none.yaml")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_dispatcher_and_several_files(tmp_path):
    good = write(tmp_path, "a.yaml", GOOD_YAML)
    bad = write(tmp_path, "b.yaml", "learner: a\nlesson: 8\nanswers: {}\n")
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(good), str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2  # one unusable file
    assert f"== {good}" in proc.stdout and "2 of 4 points" in proc.stdout
    assert "'answers' must be a non-empty mapping" in proc.stderr

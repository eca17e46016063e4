"""``python -m grader grade SUBMISSION...``: grade submission files and report per question.

Exit codes: 0 graded (whatever the score), 2 a submission is unusable (the message names the
question), 1 the grader itself failed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from . import GraderUnavailable, SubmissionError, grade, grade_in_this_process
from .report import render_report
from .submission_file import read_submission_file


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m grader grade",
        description="Grade submissions (YAML or JSON: learner, lesson, answers by question id).",
    )
    parser.add_argument("submissions", nargs="+", type=Path, metavar="SUBMISSION")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print Gradescope results.json (one object, or a list for several)",
    )
    parser.add_argument(
        "--exercises",
        type=Path,
        default=None,
        help="the exercises folder (default: the course's exercises/)",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="also print the model answer of every question not passed",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): not an error of grading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    results: list[dict[str, Any]] = []
    unusable = False
    many = len(args.submissions) > 1
    for path in args.submissions:
        try:
            submission = read_submission_file(path)
            if many:
                result = grade(submission, exercises_dir=args.exercises)
            else:  # one submission in a fresh process: no need for the warm parent
                result = grade_in_this_process(submission, exercises_dir=args.exercises)
        except SubmissionError as exc:
            message = str(exc)
            prefix = "" if message.startswith(str(path)) else f"{path}: "
            print(f"error: {prefix}{message}", file=sys.stderr)
            unusable = True
            continue
        except GraderUnavailable as exc:
            print(f"grader error: {exc}", file=sys.stderr)
            return 1
        results.append(result)
        if not args.json:
            if many:
                print(f"== {path}")
            print(render_report(result, explanations=args.explain))
    if args.json and results:
        print(json.dumps(results[0] if not many else results, indent=2, ensure_ascii=False))
    return 2 if unusable else 0


if __name__ == "__main__":
    sys.exit(main())

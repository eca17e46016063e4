"""``python -m grader check``: check the whole course and print ``path:line: message`` per fault.

Exit status 0 when the course is clean, 1 on any fault, 2 on a usage error. Each check is a
function ``(root: Path) -> list[Problem]`` in ``CHECKS``; a feature adds its own check with a
one-line import and a one-line entry below. Import ``Problem`` from ``grader.course.problem``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grader.course import lesson_checks
from grader.course.cells import check_cells
from grader.course.labs import check_labs
from grader.course.problem import Check, Problem
from grader.exercises.check import check_exercises
from grader.glossary.checks import check_glossary

CHECKS: list[Check] = [
    *lesson_checks.LESSON_CHECKS,
    check_cells,
    check_glossary,
    check_exercises,
    check_labs,
]

__all__ = ["CHECKS", "Problem", "main", "run"]


def run(root: Path, checks: list[Check] | None = None) -> list[Problem]:
    """Run every check on the course at ``root``; a check that crashes is itself a fault."""
    problems: list[Problem] = []
    for check in CHECKS if checks is None else checks:
        try:
            problems.extend(check(root))
        except Exception as exc:  # noqa: BLE001 (a broken check must not hide the others)
            name = getattr(check, "__name__", repr(check))
            problems.append(Problem(root / "mkdocs.yml", 0, f"check {name} crashed: {exc!r}"))
    return sorted(set(problems))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader check",
        description="Check the course: lessons, exercises, glossary, labs. "
        "Prints path:line: problem for each fault; exits 1 if there is any.",
    )
    parser.add_argument("--root", type=Path, default=Path("."), help="course root (mkdocs.yml)")
    args = parser.parse_args(argv)
    root: Path = args.root
    if not (root / "mkdocs.yml").is_file():
        print(f"grader check: {root / 'mkdocs.yml'} not found (use --root)", file=sys.stderr)
        return 2
    problems = run(root)
    for problem in problems:
        print(problem.render(root))
    if problems:
        print(f"course check: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print("course check: no problems", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

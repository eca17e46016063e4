"""Grading: ``grade(submission) -> Gradescope results.json``, with pytest underneath.

- :func:`grade` checks the submission's shape in the calling process (raising
  :class:`SubmissionError` for an unusable one), then hands it to a warm parent process that runs
  inside one configured ``pytest.main`` and forks a fresh child per submission; the child
  collects and runs that submission's items with :mod:`grader.grading.plugin`.
- Code is run only in :mod:`grader.grading.sandbox` processes started by that child.
- :func:`grade_in_this_process` does the same in the current process, for one-shot commands.
"""

from __future__ import annotations

import atexit
import threading
from pathlib import Path
from typing import Any

from grader.exercises.loader import (
    Exercise,
    ExerciseFileError,
    default_exercises_dir,
    load_exercises,
)

from .errors import SubmissionError
from .warm import GraderUnavailable, WarmGrader

__all__ = [
    "GraderUnavailable",
    "SubmissionError",
    "catalogue",
    "grade",
    "grade_in_this_process",
    "start",
]

_lock = threading.Lock()
_catalogues: dict[Path, tuple[tuple, dict[str, Exercise], str]] = {}
_graders: dict[Path, tuple[tuple, WarmGrader]] = {}


def _signature(root: Path) -> tuple:
    files = [root / "schema.json", *root.glob("lesson-*/*.yaml"), *root.glob("lesson-*/**/*.py")]
    stats = []
    for path in sorted(files):
        try:
            st = path.stat()
        except OSError:
            continue
        stats.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(stats)


def catalogue(exercises_dir: Path | None = None) -> tuple[dict[str, Exercise], str]:
    """The exercises under ``exercises_dir`` (reloaded when a file changes) and their digest."""
    from .results import exercises_digest

    root = Path(exercises_dir or default_exercises_dir()).resolve()
    signature = _signature(root)
    with _lock:
        cached = _catalogues.get(root)
        if cached and cached[0] == signature:
            return cached[1], cached[2]
    try:
        exercises = load_exercises(root)
    except ExerciseFileError as exc:
        raise GraderUnavailable(f"the course's exercise files have problems:\n{exc}") from None
    digest = exercises_digest(exercises)
    with _lock:
        _catalogues[root] = (signature, exercises, digest)
    return exercises, digest


def _warm_grader(root: Path) -> WarmGrader:
    signature = _signature(root)
    with _lock:
        entry = _graders.get(root)
        if entry and entry[0] == signature and entry[1].alive:
            return entry[1]
        if entry:
            entry[1].close()
        grader = WarmGrader(root)
        _graders[root] = (signature, grader)
        return grader


def start(exercises_dir: Path | None = None) -> None:
    """Start the warm parent now (it warms up in the background), so the first ``grade`` call
    does not wait for pytest's start-up; a service calls this when it starts."""
    root = Path(exercises_dir or default_exercises_dir()).resolve()
    catalogue(root)
    _warm_grader(root)


def grade(submission: dict[str, Any], *, exercises_dir: Path | None = None) -> dict[str, Any]:
    """Grade ``{"learner", "lesson", "answers": {id: answer}}``; Gradescope results.json.

    Raises :class:`SubmissionError` (message names the question) for an unusable submission and
    :class:`GraderUnavailable` when the grader itself cannot grade.
    """
    from .submission import check_submission

    root = Path(exercises_dir or default_exercises_dir()).resolve()
    exercises, _ = catalogue(root)
    checked = check_submission(submission, exercises)
    return _warm_grader(root).grade(checked)


def grade_in_this_process(
    submission: dict[str, Any], *, exercises_dir: Path | None = None
) -> dict[str, Any]:
    """Grade with one ``pytest.main`` in this process: only for a process that grades once."""
    from .runner import run_pytest
    from .submission import check_submission

    root = Path(exercises_dir or default_exercises_dir()).resolve()
    exercises, digest = catalogue(root)
    return run_pytest(check_submission(submission, exercises), exercises, root, digest=digest)


@atexit.register
def _close_graders() -> None:
    for _, grader in list(_graders.values()):
        grader.close()
    _graders.clear()

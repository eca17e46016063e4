"""Grade one submission with ``pytest.main`` in the current process.

Call it only in a process that grades nothing else afterwards (a forked child of the warm
parent, or a one-shot command line): pytest caches imported modules between ``pytest.main``
calls, and a process that graded two submissions could mix them up.
"""

from __future__ import annotations

import contextlib
import io
import os
import time
from pathlib import Path
from typing import Any

import pytest

from grader.exercises.loader import Exercise

from . import plugin as plugin_module
from .plugin import GradingPlugin
from .results import results_json
from .submission import Submission

#: Built-in plugins grading does not use (unraisableexception alone runs gc.collect() twice).
UNUSED_PLUGINS = (
    "cacheprovider stepwise doctest junitxml pastebin faulthandler unraisableexception "
    "threadexception warnings logging legacypath tmpdir monkeypatch recwarn unittest setuponly "
    "setupplan debugging"
).split()

PYTEST_ARGS = [
    "-q",
    *(arg for name in UNUSED_PLUGINS for arg in ("-p", f"no:{name}")),
    "-o",
    "addopts=",
    "-o",
    "python_files=test_*.py",
    "-o",
    "markers=points(n): weight of a hidden test",
    "--import-mode=prepend",
    "--capture=no",  # children write to /dev/null anyway; saves fd juggling per test
]


def _results(grading: GradingPlugin, started: float, digest: str | None) -> dict[str, Any]:
    return results_json(
        grading.submission,
        grading.results(),
        grading.exercises,
        grading.sandbox_notes,
        execution_time=time.perf_counter() - started,
        digest=digest,
    )


def base_args(exercises_dir: Path) -> list[str]:
    """pytest's arguments without the paths to collect."""
    ini = exercises_dir / "pytest.ini"
    config = ["-c", str(ini)] if ini.is_file() else ["-c", os.devnull]
    return [*PYTEST_ARGS, *config, "--rootdir", str(exercises_dir)]


def pytest_args(exercises_dir: Path, plugin: GradingPlugin) -> list[str]:
    return [*base_args(exercises_dir), *plugin.args()]


def run_pytest(
    submission: Submission,
    exercises: dict[str, Exercise],
    exercises_dir: Path,
    *,
    digest: str | None = None,
) -> dict[str, Any]:
    """One whole ``pytest.main`` on the answered exercises; Gradescope results."""
    started = time.perf_counter()
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # only our plugin: fast and predictable
    plugin = GradingPlugin(submission, exercises)
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        code = pytest.main(pytest_args(exercises_dir, plugin), plugins=[plugin_module, plugin])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        tail = sink.getvalue()[-3000:]
        raise RuntimeError(f"pytest could not grade (exit code {int(code)}):\n{tail}")
    return _results(plugin, started, digest)


def run_in_session(
    session: pytest.Session,
    submission: Submission,
    exercises: dict[str, Exercise],
    *,
    digest: str | None = None,
) -> dict[str, Any]:
    """Grade inside an already configured pytest session: collect the answered exercises, run
    each item's full test protocol (setup, call, teardown), and return Gradescope results.

    The warm parent configures pytest once and calls this in a forked child per submission, so
    the child pays only for collection and the tests, never for start-up; the grading plugin is
    registered for this submission alone and the child exits afterwards.
    """
    started = time.perf_counter()
    grading = GradingPlugin(submission, exercises)
    manager = session.config.pluginmanager
    manager.register(grading, f"course-grading-{id(grading)}")
    try:
        grading.start_sandboxes()
        items = session.perform_collect(grading.args())
        for index, item in enumerate(items):
            following = items[index + 1] if index + 1 < len(items) else None
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=following)
    finally:
        grading.close_sandboxes()
        manager.unregister(grading)
    return _results(grading, started, digest)

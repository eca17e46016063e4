"""The pytest plugin that grades: exercise files are test items, code runs in the sandbox.

Three ways in:

- the warm parent (what :func:`grader.grading.grade` uses): a :class:`GradingPlugin` is
  registered in an already configured session, in a forked child (``runner.run_in_session``);
- one whole ``pytest.main(args, plugins=[this module, GradingPlugin(...)])``
  (``runner.run_pytest``, for the one-shot command line);
- from the command line, for instructors and the benchmark's baseline:
  ``pytest -p grader.grading.plugin --submission sub.json [--results out.json] exercises/``.

``pytest_collect_file`` turns each answered ``exercises/lesson-NN/<id>.yaml`` into one
:class:`ExerciseItem` (pytest's pattern for non-Python tests). A code exercise's hidden test
module is an ordinary pytest module; its tests get the learner's function through the
``submitted`` fixture, which calls it in the sandbox.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from grader.exercises.loader import Exercise, default_exercises_dir, load_exercises

from .choices import grade_matching, grade_multiple_select, grade_single_choice
from .numeric import grade_numeric
from .outcome import Outcome
from .sandbox import Limits, Sandbox, SandboxError, plain_number
from .submission import Submission, check_submission
from .text_answers import grade_reflection, grade_short_answer

CHECKERS: dict[str, Callable[[Exercise, Any], Outcome]] = {
    "numeric": grade_numeric,
    "single_choice": grade_single_choice,
    "multiple_select": grade_multiple_select,
    "matching": grade_matching,
    "short_answer": grade_short_answer,
    "reflection": grade_reflection,
}


class AnswerNotRight(Exception):
    """Raised by an exercise item whose answer did not earn full marks."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.text)
        self.outcome = outcome


class SubmissionFailed(AssertionError):
    """The submitted code raised, timed out or returned something unusable."""


class ExerciseFile(pytest.File):
    """An exercise YAML file: one item, the answered exercise."""

    exercise: Exercise
    grading: GradingPlugin

    def collect(self) -> Iterator[pytest.Item]:
        yield ExerciseItem.from_parent(self, name=self.exercise.id)


class ExerciseItem(pytest.Item):
    """Grades one answer with the checker for its kind."""

    def runtest(self) -> None:
        parent: ExerciseFile = self.parent  # type: ignore[assignment]
        exercise, grading = parent.exercise, parent.grading
        outcome = CHECKERS[exercise.kind](exercise, grading.submission.answers[exercise.id])
        grading.outcomes[exercise.id] = outcome
        if not outcome.passed:
            raise AnswerNotRight(outcome)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, AnswerNotRight):
            return excinfo.value.outcome.text
        return super().repr_failure(excinfo)  # type: ignore[return-value]

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"exercise {self.name}"


class SandboxedFunction:
    """The learner's function as the hidden tests see it: calls cross the sandbox boundary."""

    def __init__(self, sandbox: Sandbox | None, error: str | None, function: str) -> None:
        self._sandbox, self._error, self.function = sandbox, error, function

    def raw(self, **kwargs: Any) -> Any:
        """Call and return the plain JSON value (for tests of non-numeric results)."""
        if self._sandbox is None:
            raise SubmissionFailed(self._error or "your code could not be loaded")
        try:
            return self._sandbox.call(**kwargs)
        except SandboxError as exc:
            raise SubmissionFailed(str(exc)) from None

    def __call__(self, **kwargs: Any) -> float:
        try:
            return plain_number(self.raw(**kwargs), f"{self.function}()")
        except SandboxError as exc:
            raise SubmissionFailed(str(exc)) from None

    def many(self, cases: list[dict[str, Any]]) -> list[float]:
        """Call once per case in a single round trip; numbers back, or the first case's error."""
        if self._sandbox is None:
            raise SubmissionFailed(self._error or "your code could not be loaded")
        try:
            replies = self._sandbox.call_many(cases)
            out = []
            for case, (ok, value) in zip(cases, replies, strict=True):
                shown = ", ".join(f"{k}={v!r}" for k, v in case.items())
                if not ok:
                    raise SandboxError(f"for {shown}: {value}")
                out.append(plain_number(value, f"{self.function}({shown})"))
            return out
        except SandboxError as exc:
            raise SubmissionFailed(str(exc)) from None


@dataclass
class CodeTest:
    exercise_id: str
    group: str  # the test function (parametrized cases share its points)
    weight: float
    passed: bool | None = None
    message: str = ""


class GradingPlugin:
    """Holds one submission and collects each exercise's outcome while pytest runs."""

    def __init__(self, submission: Submission, exercises: dict[str, Exercise]) -> None:
        self.submission = submission
        self.exercises = exercises
        answered = [exercises[qid] for qid in submission.answers]
        self.by_path = {ex.path.resolve(): ex for ex in answered if ex.kind != "code"}
        self.code_by_tests = {ex.tests_path(): ex for ex in answered if ex.kind == "code"}
        self.all_hidden_tests = {ex.tests_path() for ex in exercises.values() if ex.kind == "code"}
        self.outcomes: dict[str, Outcome] = {}
        self.code_tests: dict[str, CodeTest] = {}
        self.collect_errors: dict[str, str] = {}
        self.sandbox_notes: dict[str, dict[str, Any]] = {}
        self.sandbox_output: dict[str, str] = {}
        self._started: dict[str, Sandbox] = {}

    def args(self) -> list[str]:
        """The paths pytest is asked to collect."""
        return [str(p) for p in self.by_path] + [str(p) for p in self.code_by_tests]

    # -- collection ----------------------------------------------------------------------------

    @pytest.hookimpl
    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> pytest.File | None:
        exercise = self.by_path.get(file_path.resolve())
        if exercise is None:
            return None
        node = ExerciseFile.from_parent(parent, path=file_path)
        node.exercise, node.grading = exercise, self
        return node

    def _code_exercise(self, path: Path) -> Exercise | None:
        return self.code_by_tests.get(Path(path).resolve())

    @pytest.hookimpl
    def pytest_ignore_collect(self, collection_path: Path) -> bool | None:
        """Skip the hidden tests of code exercises this submission does not answer."""
        path = collection_path.resolve()
        if path in self.all_hidden_tests and path not in self.code_by_tests:
            return True
        return None

    @pytest.hookimpl
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            exercise = self._code_exercise(item.path)
            if exercise is None:
                continue
            marker = item.get_closest_marker("points")
            weight = float(marker.args[0]) if marker and marker.args else 1.0
            group = getattr(item, "originalname", item.name)
            self.code_tests[item.nodeid] = CodeTest(exercise.id, group, weight)

    @pytest.hookimpl
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            exercise = self._code_exercise(Path(report.fspath))
            if exercise is not None:
                self.collect_errors[exercise.id] = str(report.longrepr)[-2000:]

    # -- the learner's function ----------------------------------------------------------------

    @pytest.hookimpl
    def pytest_configure(self, config: pytest.Config) -> None:
        config.stash[GRADING] = self

    @staticmethod
    def _new_sandbox(exercise: Exercise) -> Sandbox:
        limits = Limits(**exercise.data.get("limits", {}))
        hide = [exercise.path.parent.parent, Path(__file__).resolve().parents[2]]
        return Sandbox(limits=limits, hide=hide)

    def start_sandboxes(self) -> None:
        """Start the sandboxes of the answered code exercises now: their interpreters boot on
        the other core while pytest collects, and the ``submitted`` fixture loads the code."""
        for exercise in self.code_by_tests.values():
            if exercise.id not in self._started:
                self._started[exercise.id] = self._new_sandbox(exercise)

    def close_sandboxes(self) -> None:
        """Stop sandboxes started but never used (a hidden module that did not collect)."""
        for sandbox in self._started.values():
            sandbox.close()
        self._started.clear()

    def sandboxed(self, module_file: str) -> Iterator[SandboxedFunction]:
        """The learner's function for the hidden test module ``module_file``, in a sandbox."""
        exercise = self._code_exercise(Path(module_file))
        if exercise is None:
            raise RuntimeError(f"{module_file} is not the hidden test of an answered code exercise")
        source = self.submission.answers[exercise.id]
        function = exercise.data["function"]
        sandbox: Sandbox | None = self._started.pop(exercise.id, None)
        error: str | None = None
        try:
            if sandbox is None:
                sandbox = self._new_sandbox(exercise)
            sandbox.load(source, function)
        except SandboxError as exc:
            error = str(exc)
            self.sandbox_notes[exercise.id] = vars(sandbox.isolation) if sandbox else {}
            sandbox = None
        try:
            yield SandboxedFunction(sandbox, error, function)
        finally:
            if sandbox is not None:
                self.sandbox_notes[exercise.id] = vars(sandbox.isolation)
                self.sandbox_output[exercise.id] = sandbox.stdout
                sandbox.close()

    # -- results -------------------------------------------------------------------------------

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        outcome = yield
        report = outcome.get_result()
        test = self.code_tests.get(item.nodeid)
        if test is None:
            return
        if report.failed:
            test.passed = False
            excinfo = call.excinfo
            if excinfo is not None and isinstance(excinfo.value, AssertionError):
                # the message only: hypothesis's notes repeat the inputs with object reprs
                test.message = str(excinfo.value) or "a hidden check failed"
            elif excinfo is not None:
                test.message = f"the hidden test failed: {excinfo.exconly()[:500]}"
        elif report.when == "call" and test.passed is None:
            test.passed = True

    def results(self) -> dict[str, Outcome]:
        """One outcome per answered exercise, in the order of the answers."""
        code_outcomes = self._code_outcomes()
        out: dict[str, Outcome] = {}
        for qid in self.submission.answers:
            exercise = self.exercises[qid]
            outcome = self.outcomes.get(qid) or code_outcomes.get(qid)
            if outcome is None:
                outcome = Outcome(
                    0,
                    exercise.points,
                    "This answer could not be graded (a problem of the grader, not of your "
                    "answer; please report it).",
                    passed=False,
                )
            out[qid] = outcome
        return out

    def _code_outcomes(self) -> dict[str, Outcome]:
        groups: dict[str, dict[str, list[CodeTest]]] = defaultdict(lambda: defaultdict(list))
        for test in self.code_tests.values():
            groups[test.exercise_id][test.group].append(test)
        out: dict[str, Outcome] = {}
        for exercise in self.code_by_tests.values():
            qid = exercise.id
            if qid in self.collect_errors or not groups.get(qid):
                out[qid] = Outcome(
                    0,
                    exercise.points,
                    "The hidden tests could not run (a course error, not yours).",
                    passed=False,
                )
                continue
            total = earned = 0.0
            lines: list[str] = []
            seen: set[str] = set()
            for name, cases in groups[qid].items():
                weight = cases[0].weight
                passed = sum(1 for c in cases if c.passed)
                total += weight
                earned += weight * passed / len(cases)
                mark = "✓" if passed == len(cases) else "✗"
                count = f" ({passed}/{len(cases)} cases)" if len(cases) > 1 else ""
                lines.append(f"- {mark} {name.removeprefix('test_').replace('_', ' ')}{count}")
                for case in cases:
                    if not case.passed and case.message and case.message not in seen:
                        seen.add(case.message)
                        lines.append("    " + case.message.strip().replace("\n", "\n    ")[:1500])
            score = exercise.points * earned / total if total else 0.0
            tests = [c for c in self.code_tests.values() if c.exercise_id == qid]
            head = f"{sum(1 for c in tests if c.passed)} of {len(tests)} hidden tests passed."
            printed = self.sandbox_output.get(qid, "")
            if printed:
                lines.append("Your code printed:\n" + printed[:1000])
            out[qid] = Outcome(score, exercise.points, head, details=lines)
        return out


GRADING = pytest.StashKey[GradingPlugin]()


@pytest.fixture(scope="module")
def submitted(request: pytest.FixtureRequest) -> Iterator[SandboxedFunction]:
    """The learner's function, called across the sandbox boundary (one sandbox per module)."""
    yield from request.config.stash[GRADING].sandboxed(request.module.__file__)


# -- command-line mode: pytest -p grader.grading.plugin --submission FILE ----------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("course grading")
    group.addoption("--submission", help="grade this submission (JSON or YAML file)")
    group.addoption("--exercises-dir", help="the exercises folder (default: the course's)")
    group.addoption("--results", help="write Gradescope results.json here")


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("--submission", default=None)
    if not path:
        return
    config.addinivalue_line("markers", "points(n): weight of a hidden test")
    root = Path(config.getoption("--exercises-dir") or default_exercises_dir())
    exercises = load_exercises(root)
    from .submission_file import read_submission_file

    submission = check_submission(read_submission_file(Path(path)), exercises)
    config.pluginmanager.register(GradingPlugin(submission, exercises), "course-grading")


def pytest_unconfigure(config: pytest.Config) -> None:
    plugin = config.pluginmanager.get_plugin("course-grading")
    out = config.getoption("--results", default=None)
    if isinstance(plugin, GradingPlugin) and out:
        from .results import results_json

        Path(out).write_text(
            json.dumps(
                results_json(
                    plugin.submission, plugin.results(), plugin.exercises, plugin.sandbox_notes
                )
            )
        )

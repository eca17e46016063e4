"""Read and validate exercise files, reporting every problem as ``file:line: message``.

An exercise file is YAML checked against ``exercises/schema.json`` (JSON Schema, also used by
editors through a ``# yaml-language-server: $schema=../schema.json`` line) and then against the
rules a schema cannot express: the id matches the file name, one correct option for a single
choice, a matching key that pairs every left item with a real right item, key expressions that
evaluate against the memory model, a hidden test module that exists, and so on.
"""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from .keys import KeyExpressionError, evaluate
from .mistakes import NAMED_MISTAKES

SCHEMA_NAME = "schema.json"
KINDS = (
    "numeric",
    "single_choice",
    "multiple_select",
    "matching",
    "short_answer",
    "reflection",
    "code",
)
_LESSON_DIR = re.compile(r"^lesson-(\d+)$")

PathKey = tuple[str | int, ...]


def default_exercises_dir() -> Path:
    """``$COURSE_EXERCISES_DIR``, else the ``exercises/`` folder next to the ``grader`` package."""
    env = os.environ.get("COURSE_EXERCISES_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "exercises"


@dataclass(frozen=True)
class ExerciseProblem:
    """One problem in one file, printed as ``path:line: message``."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class ExerciseFileError(ValueError):
    """An exercise file that cannot be used; ``problems`` lists why."""

    def __init__(self, problems: list[ExerciseProblem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass(frozen=True)
class Exercise:
    """A validated exercise: its file, its data, and the line of every value in the file."""

    path: Path
    data: dict[str, Any]
    lines: dict[PathKey, int] = field(default_factory=dict, repr=False)

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def kind(self) -> str:
        return str(self.data["kind"])

    @property
    def lesson(self) -> int:
        return int(self.data["lesson"])

    @property
    def points(self) -> float:
        default = 0 if self.kind == "reflection" else 1
        return float(self.data.get("points", default))

    def line_of(self, *path: str | int) -> int:
        """Line of the value at ``path`` (or of its nearest parent that has one)."""
        key: PathKey = tuple(path)
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return self.lines.get((), 1)

    def tests_path(self) -> Path | None:
        """The hidden test module of a code exercise."""
        tests = self.data.get("tests")
        return (self.path.parent / tests).resolve() if tests else None


# --- YAML with line numbers ------------------------------------------------------------------


def _node_lines(node: yaml.Node, prefix: PathKey, out: dict[PathKey, int], dups: list) -> None:
    out.setdefault(prefix, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key in seen:
                dups.append((key_node.start_mark.line + 1, key))
            seen.add(key)
            out[(*prefix, key)] = key_node.start_mark.line + 1
            _node_lines(value_node, (*prefix, key), out, dups)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _node_lines(item, (*prefix, index), out, dups)


def _parse(path: Path, text: str) -> tuple[Any, dict[PathKey, int], list[ExerciseProblem]]:
    problems: list[ExerciseProblem] = []
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else 1
        what = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context = getattr(exc, "context", None)
        message = f"malformed YAML: {what}" + (f" ({context})" if context else "")
        return None, {}, [ExerciseProblem(path, line, message)]
    lines: dict[PathKey, int] = {}
    dups: list[tuple[int, str]] = []
    if node is not None:
        _node_lines(node, (), lines, dups)
    for line, key in dups:
        problems.append(ExerciseProblem(path, line, f"duplicate key {key!r} (the last one wins)"))
    return data, lines, problems


# --- schema ----------------------------------------------------------------------------------


@cache
def _validator(schema_path: Path) -> jsonschema.Draft202012Validator:
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def _schema_message(error: jsonschema.ValidationError) -> str:
    where = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "additionalProperties" and not error.absolute_path:
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return f"unknown field(s) {', '.join(map(repr, extra))}"
    if error.validator == "enum" and list(error.absolute_path) == ["kind"]:
        return f"unknown kind {error.instance!r}; use one of {', '.join(KINDS)}"
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        scope = f" in {where}" if where else ""
        kind = error.instance.get("kind") if isinstance(error.instance, dict) else None
        needed = f" (needed by kind {kind!r})" if kind and not where else ""
        return f"missing field {missing!r}{scope}{needed}"
    return f"{where or 'file'}: {error.message}"


def _schema_problems(
    path: Path, data: Any, lines: dict[PathKey, int], schema_path: Path
) -> list[ExerciseProblem]:
    validator = _validator(schema_path)
    problems = []
    for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        if error.validator in {"if", "allOf"}:
            continue
        key: PathKey = tuple(error.absolute_path)
        while key and key not in lines:
            key = key[:-1]
        problems.append(ExerciseProblem(path, lines.get(key, 1), _schema_message(error)))
    return problems


# --- rules beyond the schema -----------------------------------------------------------------


def _defines(source: str, name: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
        for node in tree.body
    )


def _rule_problems(ex: Exercise, *, evaluate_keys: bool) -> Iterator[tuple[int, str]]:
    data, path = ex.data, ex.path
    if path.stem != ex.id:
        yield ex.line_of("id"), f"id {ex.id!r} does not match the file name {path.name!r}"
    folder = _LESSON_DIR.match(path.parent.name)
    if folder and int(folder.group(1)) != ex.lesson:
        yield ex.line_of("lesson"), f"lesson {ex.lesson} but the file is in {path.parent.name}/"
    if not ex.id.startswith(f"l{ex.lesson:02d}-{data['section']}-"):
        yield (
            ex.line_of("id"),
            (
                f"id {ex.id!r} should start with 'l{ex.lesson:02d}-{data['section']}-' "
                "(lesson and section)"
            ),
        )
    if (data["section"] == "code") != (ex.kind == "code"):
        yield ex.line_of("section"), "section 'code' goes with kind 'code' and only with it"
    yield from _kind_rules(ex, evaluate_keys=evaluate_keys)


def _unique_ids(ex: Exercise, field_name: str) -> Iterator[tuple[int, str]]:
    seen: set[str] = set()
    for index, item in enumerate(ex.data.get(field_name, [])):
        if item["id"] in seen:
            yield ex.line_of(field_name, index, "id"), f"duplicate {field_name} id {item['id']!r}"
        seen.add(item["id"])


def _kind_rules(ex: Exercise, *, evaluate_keys: bool) -> Iterator[tuple[int, str]]:
    data, kind = ex.data, ex.kind
    if kind in {"single_choice", "multiple_select"}:
        yield from _unique_ids(ex, "choices")
        correct = [c["id"] for c in data["choices"] if c.get("correct")]
        if kind == "single_choice" and len(correct) != 1:
            yield (
                ex.line_of("choices"),
                (
                    "a single choice needs exactly one option with 'correct: true' "
                    f"(found {len(correct)})"
                ),
            )
        if kind == "multiple_select" and not correct:
            yield ex.line_of("choices"), "a multiple select needs at least one correct option"
    elif kind == "matching":
        yield from _unique_ids(ex, "left")
        yield from _unique_ids(ex, "right")
        left = {item["id"] for item in data["left"]}
        right = {item["id"] for item in data["right"]}
        key = data["key"]
        for missing in sorted(left - set(key)):
            yield ex.line_of("key"), f"key does not pair left item {missing!r}"
        for left_id, right_id in key.items():
            if left_id not in left:
                yield ex.line_of("key", left_id), f"key names unknown left item {left_id!r}"
            if right_id not in right:
                yield ex.line_of("key", left_id), f"key pairs {left_id!r} with unknown {right_id!r}"
        for left_id in data.get("feedback", {}):
            if left_id not in left:
                yield ex.line_of("feedback", left_id), f"feedback for unknown left item {left_id!r}"
    elif kind == "numeric":
        yield from _numeric_rules(ex, evaluate_keys=evaluate_keys)
    elif kind == "code":
        tests = ex.tests_path()
        if tests is not None and not tests.is_file():
            yield ex.line_of("tests"), f"hidden test module {data['tests']!r} not found"
        for name in ("starter", "solution"):
            if name in data and not _defines(data[name], data["function"]):
                yield (
                    ex.line_of(name),
                    (f"{name} does not define function {data['function']!r} (or does not parse)"),
                )


def _numeric_rules(ex: Exercise, *, evaluate_keys: bool) -> Iterator[tuple[int, str]]:
    data = ex.data
    for index, mistake in enumerate(data.get("mistakes", [])):
        if mistake["name"] not in NAMED_MISTAKES and "feedback" not in mistake:
            yield (
                ex.line_of("mistakes", index, "name"),
                (
                    f"mistake {mistake['name']!r} is not a known one "
                    f"({', '.join(sorted(NAMED_MISTAKES))}): give it a feedback"
                ),
            )
    if not evaluate_keys:
        return
    try:
        key = evaluate(data["key"])
    except KeyExpressionError as exc:
        yield ex.line_of("key"), str(exc)
        return
    if key <= 0:
        yield ex.line_of("key"), f"key {data['key']!r} evaluates to {key}, not a positive amount"
    from grader.grading.tolerance import within  # the grader's own rule, so they cannot drift

    for index, mistake in enumerate(data.get("mistakes", [])):
        try:
            wrong = evaluate(mistake["value"])
        except KeyExpressionError as exc:
            yield ex.line_of("mistakes", index, "value"), str(exc)
            continue
        if within(wrong, key, data["tolerance"]):
            yield (
                ex.line_of("mistakes", index, "value"),
                (
                    f"mistake {mistake['name']!r} ({wrong:.4g}) lies within the tolerance of "
                    f"the key ({key:.4g}): a right answer would be called wrong"
                ),
            )


# --- public entry points ---------------------------------------------------------------------


def read_exercise(
    path: Path, *, schema_path: Path | None = None, evaluate_keys: bool = True
) -> tuple[Exercise | None, list[ExerciseProblem]]:
    """Read one file: the exercise (``None`` if unusable) and every problem found."""
    path = Path(path)
    schema_path = schema_path or path.parent.parent / SCHEMA_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [ExerciseProblem(path, 1, f"cannot read: {exc}")]
    data, lines, problems = _parse(path, text)
    if data is None and not problems:
        problems.append(ExerciseProblem(path, 1, "empty file"))
    if problems and data is None:
        return None, problems
    if not isinstance(data, dict):
        return None, [*problems, ExerciseProblem(path, 1, "an exercise file must hold a mapping")]
    if not schema_path.is_file():
        return None, [*problems, ExerciseProblem(path, 1, f"schema {schema_path} not found")]
    schema_problems = _schema_problems(path, data, lines, schema_path)
    if schema_problems:
        return None, problems + schema_problems
    exercise = Exercise(path, data, lines)
    problems += [
        ExerciseProblem(path, line, message)
        for line, message in _rule_problems(exercise, evaluate_keys=evaluate_keys)
    ]
    return (None if problems else exercise), problems


def load_exercise(path: Path, **kwargs: Any) -> Exercise:
    """Read one file or raise :class:`ExerciseFileError` listing its problems."""
    exercise, problems = read_exercise(path, **kwargs)
    if exercise is None or problems:
        raise ExerciseFileError(problems)
    return exercise


def exercise_files(root: Path) -> list[Path]:
    """Every exercise file under ``root`` (``lesson-*/<id>.yaml``), sorted."""
    return sorted(Path(root).glob("lesson-*/*.yaml"))


def check_exercises_dir(root: Path) -> tuple[dict[str, Exercise], list[ExerciseProblem]]:
    """Load every exercise under ``root``; problems include ids used by two files."""
    exercises: dict[str, Exercise] = {}
    problems: list[ExerciseProblem] = []
    for path in exercise_files(root):
        exercise, found = read_exercise(path, schema_path=Path(root) / SCHEMA_NAME)
        problems += found
        if exercise is None:
            continue
        if exercise.id in exercises:
            other = exercises[exercise.id].path
            problems.append(
                ExerciseProblem(path, exercise.line_of("id"), f"id {exercise.id!r} also in {other}")
            )
            continue
        exercises[exercise.id] = exercise
    problems += _hidden_module_clashes(exercises)
    return exercises, problems


def _hidden_module_clashes(exercises: dict[str, Exercise]) -> list[ExerciseProblem]:
    """Hidden test modules are imported by their file name, so two must not share one."""
    seen: dict[str, Exercise] = {}
    problems = []
    for exercise in exercises.values():
        tests = exercise.tests_path()
        if tests is None:
            continue
        if tests.name in seen:
            other = seen[tests.name]
            problems.append(
                ExerciseProblem(
                    exercise.path,
                    exercise.line_of("tests"),
                    f"hidden test module name {tests.name!r} is also used by {other.id!r}; "
                    "pytest imports them by name, so give each its own",
                )
            )
        seen[tests.name] = exercise
    return problems


def load_exercises(root: Path | None = None) -> dict[str, Exercise]:
    """All exercises under ``root`` by id; :class:`ExerciseFileError` if any file has a problem."""
    exercises, problems = check_exercises_dir(Path(root) if root else default_exercises_dir())
    if problems:
        raise ExerciseFileError(problems)
    return exercises

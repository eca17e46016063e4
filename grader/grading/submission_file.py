"""Read a submission file (YAML or JSON) with a message that says where it is malformed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from .errors import SubmissionError

MAX_FILE_BYTES = 2 * 2**20


def parse_submission_text(text: str, name: str = "submission") -> Any:
    """Parse JSON (if it looks like JSON) or YAML; :class:`SubmissionError` with line and column."""
    if len(text) > MAX_FILE_BYTES:
        raise SubmissionError(
            f"{name}: {len(text):,} characters; a submission is at most {MAX_FILE_BYTES:,}"
        )
    if text.lstrip().startswith(("{", "[")):
        try:
            return json.loads(text, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            raise SubmissionError(
                f"{name}:{exc.lineno}:{exc.colno}: malformed JSON: {exc.msg}"
            ) from None
        except ValueError as exc:
            raise SubmissionError(f"{name}: {exc}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SubmissionError(f"{name}{where}: malformed YAML: {problem}") from None


def read_submission_file(path: Path) -> Any:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise SubmissionError(
                f"{path}: {size:,} bytes; a submission is at most {MAX_FILE_BYTES:,}"
            )
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SubmissionError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise SubmissionError(f"{path}: not UTF-8 text") from None
    return parse_submission_text(text, str(path))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a submission may contain")

"""Service settings: defaults, then a TOML settings file, then ``COURSE_*`` environment variables.

Every setting has the same name in the file (``database_url = "..."``) and, upper-cased with a
``COURSE_`` prefix, in the environment (``COURSE_DATABASE_URL``). The settings file is named by
``COURSE_SETTINGS`` or ``python -m grader serve --settings FILE``.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_PREFIX = "COURSE_"


class SettingsError(ValueError):
    """A settings value that cannot be used (names the setting and where it came from)."""


@dataclass(frozen=True)
class Settings:
    # Where the embedded SQLite database (and a generated instructor token notice) live.
    data_dir: Path = Path("data")
    # SQLAlchemy URL; empty means SQLite at <data_dir>/course.sqlite3.
    # PostgreSQL: "postgresql+psycopg://user:password@host:5432/course".
    database_url: str = ""
    # The built site served at "/" (None: API only).
    site_dir: Path | None = None
    # Exercise files (None: the grader's default, ./exercises).
    exercises_dir: Path | None = None
    # Instructor token; empty means: generate one on first start, store its hash, print it once.
    instructor_token: str = ""
    # Request bodies larger than this are refused with 413 before they are parsed.
    max_body_bytes: int = 128 * 1024
    # Per learner and per question: at most `rate_limit_attempts` graded attempts in any window
    # of `rate_limit_window_s` seconds.
    rate_limit_attempts: int = 10
    rate_limit_window_s: int = 60
    # Code submissions graded at the same time by one instance (each in the grader's sandbox).
    grading_concurrency: int = 2
    # Database connection pool per instance (PostgreSQL; SQLite uses one connection per thread).
    pool_size: int = 10

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'course.sqlite3').resolve()}"

    @property
    def is_sqlite(self) -> bool:
        return self.resolved_database_url.startswith("sqlite")

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


_FIELDS = {f.name: f for f in dataclasses.fields(Settings)}


def _coerce(name: str, value: Any, origin: str) -> Any:
    field = _FIELDS[name]
    kind = str(field.type)
    try:
        if kind == "int":
            number = int(value)
            if number < 1:
                raise ValueError("must be at least 1")
            return number
        if "Path" in kind:
            return Path(str(value)) if str(value) else None if "None" in kind else Path(".")
        return str(value)
    except (TypeError, ValueError) as exc:
        raise SettingsError(f"{origin}: setting {name!r} = {value!r}: {exc}") from exc


def load_settings(
    settings_file: Path | None = None,
    env: Mapping[str, str] | None = None,
    **overrides: Any,
) -> Settings:
    """Build the settings: defaults < settings file < environment < ``overrides`` (not None)."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    path = settings_file or (
        Path(env[ENV_PREFIX + "SETTINGS"]) if env.get(ENV_PREFIX + "SETTINGS") else None
    )
    if path is not None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise SettingsError(f"settings file {path}: {exc.strerror or exc}") from exc
        except tomllib.TOMLDecodeError as exc:
            raise SettingsError(f"settings file {path}: {exc}") from exc
        for name, value in data.items():
            if name not in _FIELDS:
                known = ", ".join(sorted(_FIELDS))
                raise SettingsError(
                    f"settings file {path}: unknown setting {name!r} (known: {known})"
                )
            values[name] = _coerce(name, value, f"settings file {path}")
    for name in _FIELDS:
        key = ENV_PREFIX + name.upper()
        if key in env:
            values[name] = _coerce(name, env[key], f"environment {key}")
    for name, value in overrides.items():
        if value is not None:
            values[name] = _coerce(name, value, f"option {name}")
    return Settings(**values)

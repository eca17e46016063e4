"""Settings (file < environment < options), SQLite durability pragmas, the roster command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select, text

from grader.service.roster import RosterError, add_learner
from grader.service.roster import main as roster_main
from grader.service.settings import SettingsError, load_settings
from grader.service.storage import learners, make_engine

ROOT = Path(__file__).resolve().parents[2]


def test_settings_file_then_environment_then_options(tmp_path: Path) -> None:
    file = tmp_path / "course.toml"
    file.write_text('database_url = "postgresql+psycopg://db/course"\nrate_limit_attempts = 5\n')
    settings = load_settings(env={"COURSE_SETTINGS": str(file), "COURSE_RATE_LIMIT_ATTEMPTS": "7"})
    assert settings.database_url == "postgresql+psycopg://db/course"
    assert settings.rate_limit_attempts == 7  # environment beats the file
    assert load_settings(file, env={}, rate_limit_attempts=9).rate_limit_attempts == 9
    default = load_settings(env={}, data_dir=tmp_path)
    assert default.resolved_database_url == f"sqlite:///{tmp_path.resolve()}/course.sqlite3"


@pytest.mark.parametrize(
    ("content", "env", "message"),
    [
        ("rate_limit = 5\n", {}, "unknown setting 'rate_limit'"),
        ("max_body_bytes = [\n", {}, "settings file"),
        ("", {"COURSE_MAX_BODY_BYTES": "lots"}, "COURSE_MAX_BODY_BYTES"),
        ("", {"COURSE_RATE_LIMIT_WINDOW_S": "0"}, "at least 1"),
    ],
)
def test_bad_settings_say_which_and_where(
    tmp_path: Path, content: str, env: dict[str, str], message: str
) -> None:
    file = tmp_path / "s.toml"
    file.write_text(content)
    with pytest.raises(SettingsError, match=message.replace("[", r"\[")):
        load_settings(file, env=env)


def test_sqlite_is_wal_with_full_sync(tmp_path: Path) -> None:
    engine = make_engine(load_settings(env={}, data_dir=tmp_path))
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA synchronous")).scalar() == 2  # FULL
    assert (tmp_path / "course.sqlite3").exists()
    engine.dispose()


def test_roster_prints_tokens_and_stores_only_hashes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--data-dir", str(tmp_path)]
    assert roster_main([*args, "add", "Ada Lovelace", "Alan"]) == 0
    printed = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert set(printed) == {"Ada Lovelace", "Alan"}
    assert all(token.startswith("crs_") and len(token) > 40 for token in printed.values())
    raw = (tmp_path / "course.sqlite3").read_bytes() + b"".join(
        p.read_bytes() for p in tmp_path.glob("course.sqlite3-*")
    )
    assert not any(token.encode() in raw for token in printed.values())

    assert roster_main([*args, "add", "Alan"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert roster_main([*args, "reissue", "Alan"]) == 0
    new_token = capsys.readouterr().out.split("\t")[1].strip()
    assert new_token != printed["Alan"]
    assert roster_main([*args, "remove", "Ada Lovelace"]) == 0
    assert roster_main([*args, "list"]) == 0
    listing = capsys.readouterr().out
    assert "Ada Lovelace\tremoved" in listing and "Alan\tactive" in listing

    engine = make_engine(load_settings(env={}, data_dir=tmp_path))
    with engine.connect() as conn:
        assert conn.execute(select(learners.c.name)).scalars().all() == ["Ada Lovelace", "Alan"]
    with pytest.raises(RosterError, match="1 to 200 characters"):
        add_learner(engine, "   ")
    engine.dispose()


def test_roster_command_line_entry_point(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "roster", "--data-dir", str(tmp_path), "add", "Grace"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Grace\tcrs_")

"""Fixtures of the site tests: a throw-away copy of the course to break, and the site served at
the address its `site_url` names (Material's instant navigation only intercepts links whose
address, port included, matches the sitemap, which MkDocs writes from `site_url`)."""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def course_copy(tmp_path: Path) -> Path:
    """A copy of the course's lessons, exercises, glossary and mkdocs.yml in a temp dir."""
    for name in ("lessons", "exercises", "glossary"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    glossary = tmp_path / "glossary"
    glossary.mkdir(exist_ok=True)
    term = glossary / "activation-checkpointing.yaml"
    if not term.exists():  # the glossary lands separately; the prerequisite must name a term
        term.write_text("term: Activation checkpointing\nshort: Recompute instead of store.\n")
    return tmp_path


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def _config_for(url: str, site_dir: Path, dest: Path) -> Path:
    """mkdocs.yml with `site_url` = ``url`` and absolute paths, written to ``dest``."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^site_url:.*$", f"site_url: {url}", text)
    text = re.sub(r"(?m)^docs_dir:.*$", f"docs_dir: {ROOT / 'lessons'}", text)
    text = re.sub(r"(?m)^site_dir:.*$", f"site_dir: {site_dir}", text)
    text = re.sub(r"(?m)^(\s+custom_dir:).*$", rf"\1 {ROOT / 'site_overrides'}", text)
    dest.write_text(text, encoding="utf-8")
    return dest


@pytest.fixture(scope="session")
def instant_site_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The course built for, and served at, one loopback address (instant navigation works)."""
    site_dir = tmp_path_factory.mktemp("instant-site")
    handler = functools.partial(_Quiet, directory=str(site_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    config = _config_for(url + "/", site_dir, tmp_path_factory.mktemp("config") / "mkdocs.yml")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config)],
        cwd=ROOT,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise AssertionError(f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield url
    server.shutdown()

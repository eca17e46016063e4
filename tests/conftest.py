"""Shared fixtures: the built site, a local static server, and headless Chromium.

Browser tests use Debian's Chromium through Playwright for Python (never `playwright install`).
Every page opened through the `page` fixture records its requests; a request to any host other
than 127.0.0.1/localhost fails the test (the site must be fully self-hosted).
"""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
]
ARTIFACTS = ROOT / "test-artifacts"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}


def build_site(dest: Path) -> Path:
    """Run `mkdocs build --strict` into `dest` and return it."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise AssertionError(f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}")
    return dest


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The course site, built once per test session."""
    return build_site(tmp_path_factory.mktemp("site"))


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """A static HTTP server on loopback serving the built site."""
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium per session."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: run `make setup` (installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


def is_local(url: str) -> bool:
    parsed = urlparse(url)
    if parsed.scheme in {"data", "blob", "about", "chrome-error"}:
        return True
    return parsed.hostname in LOCAL_HOSTS


class RequestLog:
    """Every request a browser context made, for offline assertions."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def record(self, request) -> None:
        self.urls.append(request.url)

    @property
    def non_local(self) -> list[str]:
        return [u for u in self.urls if not is_local(u)]


@pytest.fixture()
def request_log() -> RequestLog:
    return RequestLog()


@pytest.fixture()
def context(browser, request_log: RequestLog):
    """A fresh browser context (empty storage) whose requests are recorded and checked."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.on("request", request_log.record)
    yield ctx
    ctx.close()
    assert not request_log.non_local, f"non-local requests: {request_log.non_local}"


@pytest.fixture()
def page(context):
    p = context.new_page()
    p.set_default_timeout(15_000)
    yield p


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    """Screenshots saved by browser tests, for a person to look at (test-artifacts/screenshots)."""
    d = ARTIFACTS / "screenshots"
    d.mkdir(parents=True, exist_ok=True)
    return d

"""Fixtures for the cells' browser tests: a cross-origin-isolated server and cell helpers."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest


class _IsolatedHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site with COOP/COEP, so pages are cross-origin isolated (SharedArrayBuffer)."""

    def end_headers(self) -> None:
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="session")
def isolated_site_url(built_site: Path) -> Iterator[str]:
    handler = functools.partial(_IsolatedHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def warm_context(browser):
    """One browser context for a module's tests, so Chromium's cache (and its cache of compiled
    wasm code) is shared: only the first Python start of the module is cold. Like the shared
    `context` fixture, it fails on any request that leaves the host."""
    from tests.conftest import RequestLog

    log = RequestLog()
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.on("request", log.record)
    yield ctx
    ctx.close()
    assert not log.non_local, f"non-local requests: {log.non_local}"


@pytest.fixture()
def warm_page(warm_context):
    """A new page (and so a new Python worker) in the shared context, with empty storage."""
    p = warm_context.new_page()
    p.set_default_timeout(15_000)
    yield p
    p.evaluate("localStorage.clear()")
    p.close()

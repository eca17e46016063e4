"""`python -m grader serve` as a real process on a free loopback port (for crash and CLI tests)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.service.postgres_server import free_port

ROOT = Path(__file__).resolve().parents[2]


class ServerProcess:
    def __init__(
        self,
        data_dir: Path,
        *,
        database_url: str = "",
        site_dir: Path | None = None,
        env: dict[str, str] | None = None,
        port: int | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = data_dir.parent / f"serve-{self.port}.log"
        args = [sys.executable, "-m", "grader", "serve", "--port", str(self.port)]
        args += ["--data-dir", str(data_dir), "--exercises-dir", str(ROOT / "exercises")]
        if database_url:
            args += ["--database-url", database_url]
        if site_dir is not None:
            args += ["--site-dir", str(site_dir)]
        self.args = args
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("COURSE_")} | (
            env or {}
        )
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60) -> ServerProcess:
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                self.args, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve exited {self.proc.returncode}:\n{self.output}")
            try:
                if httpx.get(self.url + "/api/health", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"serve did not answer within {timeout} s:\n{self.output}")

    @property
    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, like a crash or a power cut of the process."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

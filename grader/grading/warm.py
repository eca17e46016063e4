"""The client side of the warm grader: one long-lived warm parent per exercises folder.

:class:`WarmGrader` starts ``python -m grader.grading.warm_server`` once and sends it checked
submissions; any number of threads may call :meth:`WarmGrader.grade` at once (the server forks a
child per submission and answers in any order). If the exercise files change on disk the server
is restarted, so an edited key is never graded against a stale copy.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

from .frames import FrameReader, encode
from .submission import Submission

REQUEST_TIMEOUT_S = 90.0


class GraderUnavailable(RuntimeError):
    """The grader itself failed (not the submission): retry later, tell the operator."""


class WarmGrader:
    def __init__(self, exercises_dir: Path) -> None:
        self.exercises_dir = exercises_dir
        self._lock = threading.Lock()
        self._pending: dict[int, Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "grader.grading.warm_server", str(exercises_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self._stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True, name="warm-grader-reader").start()
        threading.Thread(target=self._drain, daemon=True, name="warm-grader-stderr").start()

    def _drain(self) -> None:
        assert self._proc.stderr is not None
        for line in self._proc.stderr:
            self._stderr = [*self._stderr[-50:], line]

    def _read(self) -> None:
        assert self._proc.stdout is not None
        reader = FrameReader()
        fd = self._proc.stdout.fileno()
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            for message in reader.feed(chunk):
                future = self._pending.pop(message.get("id"), None)
                if future is None:
                    continue
                if "result" in message:
                    future.set_result(message["result"])
                else:
                    future.set_exception(
                        GraderUnavailable(f"grading failed: {message.get('error')}")
                    )
        self._proc.wait()
        tail = b"".join(self._stderr[-10:]).decode(errors="replace")
        error = GraderUnavailable(f"the warm grader stopped (exit {self._proc.returncode}): {tail}")
        for future in list(self._pending.values()):
            future.set_exception(error)
        self._pending.clear()

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def grade(self, submission: Submission, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, Any]:
        future: Future[dict[str, Any]] = Future()
        with self._lock:
            if not self.alive:
                raise GraderUnavailable("the warm grader is not running")
            request_id = next(self._ids)
            self._pending[request_id] = future
            assert self._proc.stdin is not None
            try:
                self._proc.stdin.write(
                    encode({"id": request_id, "submission": submission.to_dict()})
                )
                self._proc.stdin.flush()
            except (BrokenPipeError, OSError) as exc:
                self._pending.pop(request_id, None)
                raise GraderUnavailable(f"the warm grader is not reachable: {exc}") from None
        try:
            return future.result(timeout=timeout)
        except FutureTimeout:
            self._pending.pop(request_id, None)
            raise GraderUnavailable(f"no result within {timeout:g} s") from None

    def close(self) -> None:
        if self._proc.stdin is not None:
            try:
                self._proc.stdin.close()
            except OSError:
                pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

"""The warm parent: imports everything once, then forks a fresh child per submission.

``python -m grader.grading.warm_server EXERCISES_DIR`` reads request frames
``{"id", "submission"}`` on stdin and writes ``{"id", "result"}`` or ``{"id", "error"}`` frames on
stdout. Start-up loads the exercises, evaluates every key, and grades one throwaway model
submission per lesson (so pytest, hypothesis, the plugin and the hidden test modules are all
imported), then ``gc.freeze()`` so forked children do not copy the heap when the collector runs.
Each submission is graded in its own forked child by one ``pytest.main``, so nothing a
submission leaves behind (imported modules, fixtures, caches) reaches the next one; children run
side by side, and one that runs past ``CHILD_TIMEOUT_S`` is killed.
"""

from __future__ import annotations

import contextlib
import gc
import os
import selectors
import signal
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.exercises.loader import load_exercises

from .frames import FrameReader, encode, write_all
from .model_answers import model_submission
from .results import exercises_digest
from .runner import run_pytest
from .submission import Submission, check_submission

CHILD_TIMEOUT_S = 60.0


@dataclass
class Child:
    request_id: Any
    pid: int
    fd: int
    deadline: float
    data: bytearray = field(default_factory=bytearray)


def _grade_in_child(
    fd: int, submission: Submission, exercises: dict, root: Path, digest: str, inherited: list[int]
) -> None:
    """Runs in the forked child: grade, write one frame, and leave without cleanup."""
    code = 0
    try:
        for other in inherited:  # the protocol pipe and other children's pipes
            with contextlib.suppress(OSError):
                os.close(other)
        null = os.open(os.devnull, os.O_RDWR)
        for std in (0, 1):
            os.dup2(null, std)
        result = run_pytest(submission, exercises, root, digest=digest)
        message: dict[str, Any] = {"result": result}
    except BaseException as exc:  # reported to the parent, never raised across the fork
        message = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()[-4000:]}
        code = 1
    try:
        write_all(fd, encode(message))
    finally:
        os._exit(code)


def warm_up(exercises: dict, root: Path, digest: str) -> None:
    """One throwaway grading per lesson, in this process, so every import is done."""
    for lesson in sorted({ex.lesson for ex in exercises.values()}):
        submission = check_submission(model_submission(exercises, lesson), exercises)
        run_pytest(submission, exercises, root, digest=digest)


def serve(root: Path) -> int:
    exercises = load_exercises(root)
    digest = exercises_digest(exercises)
    with contextlib.redirect_stdout(sys.stderr):
        warm_up(exercises, root, digest)
    out_fd = os.dup(1)
    os.dup2(2, 1)  # stray prints go to stderr, never into the protocol
    gc.collect()
    gc.freeze()
    selector = selectors.DefaultSelector()
    selector.register(0, selectors.EVENT_READ, None)
    reader = FrameReader()
    children: dict[int, Child] = {}
    stdin_open = True

    def reply(message: dict[str, Any]) -> None:
        write_all(out_fd, encode(message))

    def finish(child: Child, error: str | None = None) -> None:
        selector.unregister(child.fd)
        os.close(child.fd)
        children.pop(child.fd, None)
        if error is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child.pid, signal.SIGKILL)
        os.waitpid(child.pid, 0)
        if error is None:
            try:
                payload = FrameReader().feed(bytes(child.data))
                message = payload[0] if payload else {"error": "the grading process ended early"}
            except ValueError as exc:
                message = {"error": f"unreadable result: {exc}"}
        else:
            message = {"error": error}
        reply({"id": child.request_id, **message})

    while stdin_open or children:
        timeout = None
        if children:
            timeout = max(0.0, min(c.deadline for c in children.values()) - time.monotonic())
        for key, _ in selector.select(timeout):
            if key.data is None:  # a request on stdin
                chunk = os.read(0, 1 << 20)
                if not chunk:
                    stdin_open = False
                    selector.unregister(0)
                    continue
                for request in reader.feed(chunk):
                    try:
                        submission = Submission(**request["submission"])
                    except (KeyError, TypeError) as exc:
                        reply({"id": request.get("id"), "error": f"bad request: {exc}"})
                        continue
                    read_fd, write_fd = os.pipe()
                    pid = os.fork()
                    if pid == 0:
                        os.close(read_fd)
                        inherited = [out_fd, *children]
                        _grade_in_child(write_fd, submission, exercises, root, digest, inherited)
                    os.close(write_fd)
                    child = Child(
                        request.get("id"), pid, read_fd, time.monotonic() + CHILD_TIMEOUT_S
                    )
                    children[read_fd] = child
                    selector.register(read_fd, selectors.EVENT_READ, child)
            else:
                child = key.data
                chunk = os.read(child.fd, 1 << 20)
                if chunk:
                    child.data += chunk
                else:
                    finish(child)
        now = time.monotonic()
        for child in [c for c in children.values() if c.deadline <= now]:
            finish(child, f"grading took longer than {CHILD_TIMEOUT_S:g} s and was stopped")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m grader.grading.warm_server EXERCISES_DIR", file=sys.stderr)
        return 2
    return serve(Path(args[0]))


if __name__ == "__main__":
    sys.exit(main())

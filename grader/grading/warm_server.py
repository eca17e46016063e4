"""The warm parent: pytest configured once, a fresh forked child per submission.

``python -m grader.grading.warm_server EXERCISES_DIR`` reads request frames
``{"id", "submission"}`` on stdin and writes ``{"id", "result"}`` or ``{"id", "error"}`` frames on
stdout. It runs *inside* one ``pytest.main``: the :class:`ServeLoop` plugin takes over the
session's test loop. Start-up configures pytest (options, the built-in plugins, the grading
plugin), evaluates every key and known mistake, grades one model submission per lesson in this
process (so the hidden test modules, hypothesis and the sandbox code are imported and warm), then
``gc.freeze()`` so forked children do not copy the heap when the collector runs.

Each submission is graded in its own forked child, which collects the answered exercises in the
configured session and runs their tests (:func:`runner.run_in_session`), writes one frame and
exits: nothing a submission leaves behind (imported modules, fixtures, caches) reaches the next
one. Children run side by side; one that runs past ``CHILD_TIMEOUT_S`` is killed.
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

import pytest

from grader.exercises.loader import Exercise, load_exercises

from . import plugin as plugin_module
from .frames import FrameReader, encode, write_all
from .model_answers import model_submission
from .numeric import key_value
from .results import exercises_digest
from .runner import base_args, run_in_session
from .submission import Submission, check_submission

CHILD_TIMEOUT_S = 60.0


@dataclass
class Child:
    request_id: Any
    pid: int
    fd: int
    deadline: float
    data: bytearray = field(default_factory=bytearray)


class ServeLoop:
    """A pytest plugin whose test loop serves grading requests until stdin closes."""

    def __init__(
        self, exercises: dict[str, Exercise], digest: str, in_fd: int, out_fd: int
    ) -> None:
        self.exercises = exercises
        self.digest = digest
        self.in_fd, self.out_fd = in_fd, out_fd
        self.children: dict[int, Child] = {}

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> bool:
        return True  # the parent collects nothing; each child collects its submission

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        self.warm_up(session)
        gc.collect()
        gc.freeze()
        self.serve(session)
        return True

    def warm_up(self, session: pytest.Session) -> None:
        """Grade a model submission per lesson here, once, so every import is done."""
        for exercise in self.exercises.values():
            if exercise.kind == "numeric":
                key_value(exercise.data["key"])
                for mistake in exercise.data.get("mistakes", []):
                    key_value(mistake["value"])
        for lesson in sorted({ex.lesson for ex in self.exercises.values()}):
            raw = model_submission(self.exercises, lesson)
            run_in_session(session, check_submission(raw, self.exercises), self.exercises)

    # -- the loop ------------------------------------------------------------------------------

    def reply(self, message: dict[str, Any]) -> None:
        write_all(self.out_fd, encode(message))

    def start_child(self, session: pytest.Session, request: dict[str, Any]) -> None:
        try:
            submission = Submission(**request["submission"])
        except (KeyError, TypeError) as exc:
            self.reply({"id": request.get("id"), "error": f"bad request: {exc}"})
            return
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: grade, write one frame, leave without cleanup
            os.close(read_fd)
            self.grade_in_child(session, submission, write_fd)
        os.close(write_fd)
        child = Child(request.get("id"), pid, read_fd, time.monotonic() + CHILD_TIMEOUT_S)
        self.children[read_fd] = child
        self.selector.register(read_fd, selectors.EVENT_READ, child)

    def grade_in_child(self, session: pytest.Session, submission: Submission, fd: int) -> None:
        code = 0
        try:
            for other in [
                self.in_fd,
                self.out_fd,
                *self.children,
            ]:  # protocol and other children's pipes
                with contextlib.suppress(OSError):
                    os.close(other)
            null = os.open(os.devnull, os.O_RDWR)
            for std in (0, 1):
                os.dup2(null, std)
            result = run_in_session(session, submission, self.exercises, digest=self.digest)
            message: dict[str, Any] = {"result": result}
        except BaseException as exc:  # reported to the parent, never raised across the fork
            message = {
                "error": f"{type(exc).__name__}: {exc}",
                "trace": traceback.format_exc()[-4000:],
            }
            code = 1
        try:
            write_all(fd, encode(message))
        finally:
            os._exit(code)

    def finish(self, child: Child, error: str | None = None) -> None:
        self.selector.unregister(child.fd)
        os.close(child.fd)
        self.children.pop(child.fd, None)
        if error is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child.pid, signal.SIGKILL)
        _, _, usage = os.wait4(child.pid, 0)
        if error is None:
            try:
                frames = FrameReader().feed(bytes(child.data))
                message = frames[0] if frames else {"error": "the grading process ended early"}
            except ValueError as exc:
                message = {"error": f"unreadable result: {exc}"}
            if isinstance(message.get("result"), dict):
                # CPU seconds of the child and its sandboxes: a load-independent cost measure
                cpu = usage.ru_utime + usage.ru_stime
                message["result"].setdefault("extra_data", {})["cpu_time"] = round(cpu, 4)
        else:
            message = {"error": error}
        self.reply({"id": child.request_id, **message})

    def serve(self, session: pytest.Session) -> None:
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.in_fd, selectors.EVENT_READ, None)
        reader = FrameReader()
        stdin_open = True
        while stdin_open or self.children:
            timeout = None
            if self.children:
                soonest = min(c.deadline for c in self.children.values())
                timeout = max(0.0, soonest - time.monotonic())
            for key, _ in self.selector.select(timeout):
                if key.data is None:  # requests on stdin
                    chunk = os.read(self.in_fd, 1 << 20)
                    if not chunk:
                        stdin_open = False
                        self.selector.unregister(self.in_fd)
                        continue
                    for request in reader.feed(chunk):
                        self.start_child(session, request)
                else:
                    child = key.data
                    chunk = os.read(child.fd, 1 << 20)
                    if chunk:
                        child.data += chunk
                    else:
                        self.finish(child)
            now = time.monotonic()
            for child in [c for c in self.children.values() if c.deadline <= now]:
                self.finish(
                    child, f"grading took longer than {CHILD_TIMEOUT_S:g} s and was stopped"
                )


def serve(root: Path) -> int:
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    exercises = load_exercises(root)
    digest = exercises_digest(exercises)
    # private copies of the protocol pipes: pytest's capture replaces fds 0-2
    in_fd, out_fd = os.dup(0), os.dup(1)
    os.dup2(2, 1)  # pytest's and any stray output go to stderr, never into the protocol
    loop = ServeLoop(exercises, digest, in_fd, out_fd)
    code = pytest.main(base_args(root), plugins=[plugin_module, loop])
    return 0 if code in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED) else int(code)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m grader.grading.warm_server EXERCISES_DIR", file=sys.stderr)
        return 2
    return serve(Path(args[0]))


if __name__ == "__main__":
    sys.exit(main())

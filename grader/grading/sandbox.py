"""Run submitted code in a separate, locked-down process; only JSON comes back.

The submission never runs in the grader's process, nor in the one holding keys and hidden tests:
:class:`Sandbox` starts a fresh interpreter (``/usr/bin/python3.11``, world-readable, standard
library only) running :mod:`sandbox_harness`, and the hidden tests call the learner's function
through :meth:`Sandbox.call`, one JSON line per call. The child gets, before it executes:

- new network, mount, IPC and UTS namespaces (``unshare``; root only): no network at all, not
  even loopback, and read-only empty tmpfs mounted over the exercises, the repository, ``/root``,
  ``/home``, ``/tmp``, ``/var/tmp``, ``/dev/shm`` and ``/run`` (Unix sockets live there);
- an empty, read-only working directory, a clean environment (``python -I -S``);
- rlimits: CPU seconds, address space, no file writes (``RLIMIT_FSIZE`` 0), few file
  descriptors, no core dumps, and ``RLIMIT_NPROC`` 1 so it cannot fork or start threads;
- its own unprivileged uid (one per concurrent sandbox, from ``SANDBOX_UID_BASE``) and the
  ``nogroup`` gid when the grader runs as root. ``RLIMIT_NPROC`` counts processes *per user*, so
  two sandboxes sharing ``nobody`` would make each other's limit wrong; a slot lock per uid
  (``flock``) keeps concurrent sandboxes, even from different grader processes, apart;
- ``PR_SET_PDEATHSIG``: it dies with its parent; a wall-clock limit per call and overall.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import marshal
import os
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

HARNESS = Path(__file__).with_name("sandbox_harness.py")
SANDBOX_PYTHON = os.environ.get("COURSE_SANDBOX_PYTHON", "/usr/bin/python3.11")
SANDBOX_UID_BASE = int(os.environ.get("COURSE_SANDBOX_UID_BASE", "61000"))
SANDBOX_SLOTS = 64
SANDBOX_GID = 65534  # nogroup
MAX_REPLY = 1 << 20  # bytes in one reply line
HIDDEN_SYSTEM_DIRS = ("/root", "/home", "/tmp", "/var/tmp", "/dev/shm", "/run")

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REC, MS_PRIVATE = 0x4000, 1 << 18
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 1, 38

_libc = ctypes.CDLL(None, use_errno=True)


@dataclass(frozen=True)
class Limits:
    """Per-sandbox limits. ``wall_s``: whole life; ``call_s``: one call (or the load)."""

    wall_s: float = 10.0
    call_s: float = 2.0
    cpu_s: int = 5
    memory_mb: int = 256
    nofile: int = 32


class SandboxError(Exception):
    """The submission failed in a way the learner should be told about (message is for them)."""


@dataclass
class Isolation:
    """What this sandbox actually got (reported with the results)."""

    namespaces: bool = False
    user: str = ""
    nproc_limited: bool = False
    notes: list[str] = field(default_factory=list)


def _hide_list(extra: list[Path]) -> list[bytes]:
    paths = sorted(
        {os.path.realpath(p) for p in [*extra, *HIDDEN_SYSTEM_DIRS] if os.path.isdir(p)}, key=len
    )
    kept: list[str] = []
    for path in paths:
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return [p.encode() for p in kept]


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


class _Slot:
    """One of ``SANDBOX_SLOTS`` uids, held with ``flock`` for the sandbox's whole life."""

    def __init__(self) -> None:
        directory = Path(tempfile.gettempdir()) / "course-grader-sandbox-slots"
        directory.mkdir(mode=0o700, exist_ok=True)
        deadline = time.monotonic() + 30
        while True:
            for index in range(SANDBOX_SLOTS):
                fh = open(directory / f"{index}.lock", "a+")  # noqa: SIM115 - held until release
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    fh.close()
                    continue
                self.index, self._fh = index, fh
                self.uid = SANDBOX_UID_BASE + index
                return
            if time.monotonic() > deadline:
                raise SandboxError("the grader is busy (no free sandbox); try again shortly")
            time.sleep(0.01)

    def release(self) -> None:
        self._fh.close()


class Sandbox:
    """A running sandboxed interpreter, with the learner's function loaded by :meth:`load`.

    ``Sandbox(source, function)`` starts and loads at once; ``Sandbox()`` only starts the
    interpreter, so it can boot while the grader does other work, and ``load`` follows.
    """

    def __init__(
        self,
        source: str | None = None,
        function: str | None = None,
        *,
        limits: Limits | None = None,
        hide: list[Path] | None = None,
        namespaces: bool | None = None,
    ) -> None:
        self.limits = limits or Limits()
        self.isolation = Isolation()
        self.stdout = ""
        # namespaces, a separate uid and RLIMIT_NPROC need root; None: use them when root
        self._root = os.geteuid() == 0 if namespaces is None else namespaces
        self._hide = _hide_list(hide or []) if self._root else []
        self._workdir: str | None = None
        self._slot: _Slot | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._started = time.monotonic()
        self._dead: str | None = None
        self._spawn()
        if source is not None:
            self.load(source, function or "")

    # -- process ---------------------------------------------------------------------------

    def _python(self) -> str:
        if os.path.exists(SANDBOX_PYTHON):
            return SANDBOX_PYTHON
        found = shutil.which("python3")
        if found is None:
            raise RuntimeError("no Python for the sandbox (set COURSE_SANDBOX_PYTHON)")
        return found

    def _preexec(self) -> None:  # runs in the child between fork and exec
        limits = self.limits
        if self._root:
            _check(
                _libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS), "unshare"
            )
            _check(_libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount private")
            for path in self._hide:
                flags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
                _check(
                    _libc.mount(b"tmpfs", path, b"tmpfs", flags, b"size=16k,mode=0555"),
                    "mount tmpfs",
                )
        os.chdir(self._workdir or "/tmp")
        mem = limits.memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.nofile, limits.nofile))
        if self._root:
            resource.setrlimit(resource.RLIMIT_NPROC, (1, 1))
            os.setgroups([])
            os.setgid(SANDBOX_GID)
            os.setuid(self._slot.uid if self._slot else 65534)
        _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    def _spawn(self) -> None:
        if self._root:
            self._slot = _Slot()
            self.isolation = Isolation(True, f"uid {self._slot.uid}", True)
        else:
            self._workdir = tempfile.mkdtemp(prefix="course-sandbox-")
            self.isolation = Isolation(
                False,
                f"uid {os.getuid()}",
                False,
                [
                    "not running as root: no network/mount namespaces, no separate user, "
                    "no process-count limit"
                ],
            )
        harness = HARNESS.read_text(encoding="utf-8")
        try:
            self._proc = subprocess.Popen(
                [self._python(), "-I", "-S", "-B", "-c", harness],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                preexec_fn=self._preexec,  # noqa: PLW1509 - the grading process is single-threaded
                start_new_session=True,
                close_fds=True,
            )
        except BaseException:
            self.close()
            raise

    def load(self, source: str, function: str) -> None:
        """Load the learner's code and find ``function``; :class:`SandboxError` says why not."""
        reply = self._request({"source": source, "function": function})
        if not reply.get("ok"):
            self.close()
            raise SandboxError(f"your code could not be loaded: {reply.get('error')}")

    # -- protocol --------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        try:
            body = marshal.dumps(message)
            self._proc.stdin.write(len(body).to_bytes(4, "big") + body)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the reply (or its absence) says what happened

    def _died(self, why: str) -> SandboxError:
        self._dead = why
        self.close()
        return SandboxError(why)

    def _read_line(self, deadline: float, limit_text: str) -> bytes:
        assert self._proc is not None and self._proc.stdout is not None
        stream: IO[bytes] = self._proc.stdout
        fd = stream.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._died(f"time limit: {limit_text}")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                code = self._proc.wait(timeout=1)
                if code < 0 and -code in (signal.SIGXCPU, signal.SIGKILL):
                    why = "it used up its CPU time or memory and was stopped"
                elif code < 0:
                    why = f"it was killed by signal {signal.Signals(-code).name}"
                else:
                    why = f"it exited (code {code}) before answering; do not call exit()"
                raise self._died(f"your code's process ended: {why}")
            self._buffer += chunk
            if len(self._buffer) > MAX_REPLY:
                raise self._died("your code sent back more than 1 MB")
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _request(self, message: dict[str, Any]) -> dict[str, Any]:
        if self._dead:
            raise SandboxError(self._dead)
        limits = self.limits
        now = time.monotonic()
        deadline = min(now + limits.call_s, self._started + limits.wall_s)
        what = (
            f"no answer within {limits.call_s:g} s (an endless loop?)"
            if now + limits.call_s <= self._started + limits.wall_s
            else f"all calls together took more than {limits.wall_s:g} s"
        )
        self._send(message)
        line = self._read_line(deadline, what)
        try:
            reply = json.loads(line, parse_constant=_refuse_constant)
        except ValueError:
            raise self._died("your code wrote something that is not a reply") from None
        if not isinstance(reply, dict):
            raise self._died("your code wrote something that is not a reply")
        out = reply.get("stdout")
        if isinstance(out, str) and out and len(self.stdout) < 4000:
            self.stdout += out[: 4000 - len(self.stdout)]
        return reply

    def call(self, **kwargs: Any) -> Any:
        """Call the learner's function with JSON-able keyword arguments; plain JSON comes back."""
        reply = self._request({"kwargs": kwargs})
        if not reply.get("ok"):
            raise SandboxError(str(reply.get("error"))[:1000])
        return reply.get("value")

    def call_many(self, batch: list[dict[str, Any]]) -> list[tuple[bool, Any]]:
        """Call the function once per keyword-argument set, in one round trip.

        Returns ``(True, value)`` or ``(False, error message)`` per call, in order.
        """
        reply = self._request({"batch": batch})
        values = reply.get("values")
        if not reply.get("ok") or not isinstance(values, list) or len(values) != len(batch):
            raise self._died("your code's process sent back a malformed reply")
        out: list[tuple[bool, Any]] = []
        for item in values:
            if isinstance(item, dict) and item.get("ok"):
                out.append((True, item.get("value")))
            else:
                error = item.get("error") if isinstance(item, dict) else "malformed reply"
                out.append((False, str(error)[:1000]))
        return out

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            proc.kill()
            proc.wait()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()
        if self._slot is not None:
            self._slot.release()
            self._slot = None
        if self._workdir:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not allowed")


def plain_number(value: Any, what: str = "the function") -> float:
    """Coerce a value that came back from the sandbox to a float, or say what it was instead."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        shown = type(value).__name__ if value is not None else "None"
        raise SandboxError(f"{what} returned {shown}, not a number")
    return float(value)

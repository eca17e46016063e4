"""Hostile code: each gets a clear failed result, and the grader is unharmed afterwards.

The sandbox runs as a separate process (its own uid, no network, read-only empty filesystem
views, rlimits); only JSON comes back. These tests need root for the namespaces and the uid
switch (CI and this machine run as root); without root they check what is still enforced.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from grader.grading import grade
from grader.grading.sandbox import Limits, Sandbox, SandboxError

ROOT = os.geteuid() == 0
REPO = Path(__file__).resolve().parents[2]
FAST = Limits(wall_s=3, call_s=1, cpu_s=1, memory_mb=256)
needs_root = pytest.mark.skipif(not ROOT, reason="namespaces and uid switch need root")


def run(source: str, limits: Limits = FAST, **kwargs):
    with Sandbox(source, "f", limits=limits, hide=[REPO]) as box:
        return box.call(**kwargs)


def failure(source: str, limits: Limits = FAST) -> str:
    with pytest.raises(SandboxError) as caught:
        run(source, limits, x=1)
    return str(caught.value)


def test_a_plain_function_round_trips():
    assert run("def f(x):\n    return [x, 2.5, 'a', None]\n", x=3) == [3, 2.5, "a", None]


def test_loops_forever():
    started = time.monotonic()
    message = failure("def f(x):\n    while True:\n        pass\n")
    assert "time limit" in message or "CPU time" in message
    assert time.monotonic() - started < 5


def test_sleeps_forever():
    assert "no answer within 1 s" in failure("import time\ndef f(x):\n    time.sleep(60)\n")


def test_loops_forever_while_loading():
    message = failure("while True:\n    pass\ndef f(x):\n    return 1\n")
    assert "time limit" in message or "CPU time" in message, message  # whichever comes first


def test_allocates_without_bound():
    roomy = Limits(wall_s=10, call_s=8, cpu_s=8, memory_mb=256)  # slow machines: fail on memory
    source = "def f(x):\n    a = []\n    while True:\n        a.append(bytearray(10**7))\n"
    message = failure(source, roomy)
    assert "memory" in message, message


@needs_root
@pytest.mark.parametrize(
    "source",
    [
        "import os\ndef f(x):\n    return os.fork()\n",
        "import subprocess\ndef f(x):\n    return subprocess.run(['true']).returncode\n",
        "import threading\ndef f(x):\n    threading.Thread(target=print).start()\n",
    ],
    ids=["fork", "subprocess", "thread"],
)
def test_cannot_start_processes(source):
    assert "Resource temporarily unavailable" in failure(source) or "thread" in failure(source)


@needs_root
@pytest.mark.parametrize("host", ["127.0.0.1", "1.1.1.1"])
def test_no_network(host):
    source = f"import socket\ndef f(x):\n    socket.create_connection(('{host}', 80), timeout=1)\n"
    assert "Network is unreachable" in failure(source)


@needs_root
def test_cannot_read_keys_hidden_tests_or_other_files():
    key = REPO / "exercises" / "lesson-08" / "l08-practice-7b-states.yaml"
    assert "No such file" in failure(f"def f(x):\n    return open({str(key)!r}).read()\n")
    hidden = next((REPO / "exercises").glob("lesson-*/hidden/*.py"))
    assert "No such file" in failure(f"def f(x):\n    return open({str(hidden)!r}).read()\n")
    assert "Permission denied" in failure("def f(x):\n    return open('/etc/shadow').read()\n")
    listing = run(
        "import os\ndef f(x):\n    return [os.getcwd(), os.listdir('.'), "
        "os.listdir('/tmp'), os.listdir('/run'), sorted(os.environ)]\n",
        x=1,
    )
    assert listing == ["/tmp", [], [], [], ["LANG", "PATH"]]


def test_cannot_write_files():
    message = failure("def f(x):\n    open('results.json', 'w').write('{\"score\": 100}')\n")
    assert "Read-only file system" in message or "File too large" in message or "Errno" in message


def test_prints_megabytes():
    with Sandbox("def f(x):\n    print('x' * 10**7)\n    return 1\n", "f", limits=FAST) as box:
        assert box.call(x=1) == 1
        assert len(box.stdout) < 5000 and "more characters of output dropped" in box.stdout


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("import sys\ndef f(x):\n    sys.exit(0)\n", "called sys.exit(0)"),
        ("import sys\nsys.exit(0)\ndef f(x):\n    return 1\n", "called sys.exit(0)"),
        ("import os\ndef f(x):\n    os._exit(0)\n", "exited (code 0) before answering"),
        (
            "class A:\n    def __eq__(s, o):\n        return True\ndef f(x):\n    return A()\n",
            "object of type A, not a plain number",
        ),
        (
            "class F(float):\n    def __eq__(s, o):\n        return True\n"
            "def f(x):\n    return F(1)\n",
            "object of type F",
        ),
        ("def f(x):\n    return float('nan')\n", "not a finite number"),
        ("def f(x)\n    return 1\n", "SyntaxError"),
        ("def g(x):\n    return 1\n", "does not define a function 'f'"),
        (
            "import os, signal\ndef f(x):\n    os.kill(os.getppid(), signal.SIGKILL)\n",
            "Operation not permitted",
        ),
    ],
    ids=[
        "exit-call",
        "exit-load",
        "os-exit",
        "eq-always-true",
        "float-subclass",
        "nan",
        "syntax",
        "no-function",
        "kill-parent",
    ],
)
def test_tricks_fail_clearly(source, words):
    if "getppid" in source and not ROOT:
        pytest.skip("without the uid switch the child may signal its parent's user")
    assert words in failure(source)


@needs_root
def test_concurrent_sandboxes_get_separate_users():
    """RLIMIT_NPROC counts per user: each concurrent sandbox has its own uid, so one's process
    does not count against another's limit of one."""
    source = "import os\ndef f(x):\n    import time; time.sleep(0.2)\n    return os.getuid()\n"

    def one(_: int) -> int:
        with Sandbox(source, "f", limits=FAST) as box:
            return box.call(x=0)

    with ThreadPoolExecutor(6) as pool:
        uids = list(pool.map(one, range(6)))
    assert len(set(uids)) == 6 and all(uid != 0 for uid in uids)


def code(source: str) -> dict:
    return {
        "learner": "mallory",
        "lesson": 8,
        "answers": {"l08-code-model-state-bytes": source, "l08-practice-7b-states": "112 GB"},
    }


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("import sys\ndef model_state_bytes(params, dp, zero):\n    sys.exit(0)\n", "sys.exit(0)"),
        (
            "import os\ndef model_state_bytes(params, dp, zero):\n    return os.fork()\n",
            "Resource temporarily unavailable",
        ),
        (
            "class A:\n    def __eq__(s, o):\n        return True\n"
            "def model_state_bytes(params, dp, zero):\n    return A()\n",
            "not a plain number",
        ),
        (
            "def model_state_bytes(params, dp, zero):\n"
            "    return open('exercises/lesson-08/hidden/'\n"
            "                'test_l08_code_model_state_bytes.py').read()\n",
            "No such file",
        ),
        ("import os\nos._exit(0)\n", "exited (code 0)"),
        (
            "def model_state_bytes(params, dp, zero):\n    return str(16 * params)\n",
            "returned str, not a number",
        ),
    ],
    ids=["sys-exit", "fork", "eq", "read-hidden-tests", "os-exit-at-load", "string"],
)
def test_hostile_code_through_grade(source, words):
    if not ROOT and words in ("Resource temporarily unavailable", "No such file"):
        pytest.skip("needs root")
    result = grade(code(source))
    by_name = {t["name"]: t for t in result["tests"]}
    hostile = by_name["l08-code-model-state-bytes"]
    assert hostile["status"] == "failed" and hostile["score"] == 0
    assert words in hostile["output"]
    assert by_name["l08-practice-7b-states"]["score"] == 2  # the rest is still graded


def test_an_endless_loop_through_grade_leaves_the_grader_working(exercises):
    started = time.monotonic()
    result = grade(
        code("def model_state_bytes(params, dp, zero):\n    while True:\n        pass\n")
    )
    assert time.monotonic() - started < 15
    hostile = result["tests"][0]
    assert hostile["score"] == 0 and (
        "time limit" in hostile["output"] or "CPU" in hostile["output"]
    )
    after = grade(code(exercises["l08-code-model-state-bytes"].data["solution"]))
    assert after["score"] == after["max_score"] == 6


def test_without_root_privileges_the_other_limits_still_hold():
    """The path a non-root grader takes: no namespaces or uid switch, the rest still applies."""
    with Sandbox(
        "import os\ndef f():\n    return os.getcwd()\n", "f", limits=FAST, namespaces=False
    ) as box:
        workdir = box.call()
        assert "course-sandbox-" in workdir and box.isolation.namespaces is False
        assert "no network/mount namespaces" in box.isolation.notes[0]
    assert not Path(workdir).exists()  # the empty working directory is removed afterwards
    message = failure("def f(x):\n    while True:\n        pass\n")
    assert "time limit" in message or "CPU time" in message
    with Sandbox("def f():\n    return [0] * 10**9\n", "f", limits=FAST, namespaces=False) as box:
        with pytest.raises(SandboxError, match="memory"):
            box.call()

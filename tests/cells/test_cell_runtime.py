"""The cell runtime (grader/cell_runtime.py) in CPython: what the browser runs inside Pyodide."""

from __future__ import annotations

import pytest

from grader.cell_runtime import CellRuntime, cell_filename, svg_of


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def __call__(self, kind: str, text: str) -> None:
        self.events.append((kind, text))

    def text(self, kind: str) -> str:
        return "".join(t for k, t in self.events if k == kind)


@pytest.fixture()
def runtime() -> CellRuntime:
    return CellRuntime()


def run(
    runtime: CellRuntime, source: str, page: str = "p", cell: str = "c"
) -> tuple[dict, Recorder]:
    out = Recorder()
    return runtime.run(page, cell, source, out), out


def test_stdout_and_last_expression(runtime: CellRuntime) -> None:
    summary, out = run(runtime, "x = 6\nprint('x is', x)\nx * 7\n")
    assert summary["ok"] is True and summary["run"] == 1
    assert out.text("stdout") == "x is 6\n"
    assert out.text("result") == "42"


def test_none_and_assignments_show_nothing(runtime: CellRuntime) -> None:
    _, out = run(runtime, "y = 1\nNone")
    assert out.events == []


def test_stderr_is_separate(runtime: CellRuntime) -> None:
    _, out = run(runtime, "import sys\nprint('warn', file=sys.stderr)\nprint('ok')")
    assert out.text("stderr") == "warn\n"
    assert out.text("stdout") == "ok\n"


def test_cells_of_one_page_share_a_namespace_in_run_order(runtime: CellRuntime) -> None:
    run(runtime, "a = 1", page="lesson-8", cell="one")
    summary, out = run(runtime, "a + 1", page="lesson-8", cell="two")
    assert out.text("result") == "2" and summary["run"] == 2
    _, other = run(runtime, "a", page="lesson-11", cell="one")
    assert "NameError" in other.text("error"), "another page has its own namespace"


def test_reset_forgets_a_page(runtime: CellRuntime) -> None:
    run(runtime, "a = 1", page="p")
    runtime.reset("p")
    _, out = run(runtime, "a", page="p")
    assert "NameError: name 'a' is not defined" in out.text("error")


def test_traceback_uses_the_learners_line_numbers_and_nothing_else(runtime: CellRuntime) -> None:
    source = "def f(n):\n    return n / 0\n\nvalue = 3\nf(value)\n"
    summary, out = run(runtime, source, cell="l08-breakdown")
    err = out.text("error")
    assert summary["ok"] is False
    assert err.startswith("Traceback (most recent call last):\n")
    assert 'File "<cell l08-breakdown>", line 5, in <module>' in err
    assert 'File "<cell l08-breakdown>", line 2, in f' in err
    assert "    return n / 0" in err, "the learner's own source line is shown"
    assert err.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "cell_runtime" not in err and "exec(" not in err


def test_syntax_error_is_short_and_points_at_the_line(runtime: CellRuntime) -> None:
    _, out = run(runtime, "a = 1\nb = (a +\n", cell="x")
    err = out.text("error")
    assert "Traceback" not in err
    assert 'File "<cell x>", line 2' in err
    assert "SyntaxError: '(' was never closed" in err


def test_error_in_the_memory_model_keeps_its_message(runtime: CellRuntime) -> None:
    _, out = run(runtime, "from grader.memory import parse_bytes\nparse_bytes('12 parsecs')")
    err = out.text("error")
    assert 'File "<cell c>", line 2' in err
    assert "ValueError" in err


def test_output_before_an_error_is_kept(runtime: CellRuntime) -> None:
    _, out = run(runtime, "print('before')\nraise RuntimeError('boom')")
    kinds = [k for k, _ in out.events]
    assert kinds == ["stdout", "error"]
    assert "RuntimeError: boom" in out.text("error")


def test_input_explains_itself(runtime: CellRuntime) -> None:
    _, out = run(runtime, "input('n? ')")
    assert "EOFError: cells cannot read input()" in out.text("error")


def test_system_exit_and_keyboard_interrupt_are_reported_not_raised(runtime: CellRuntime) -> None:
    _, out = run(runtime, "raise SystemExit(3)")
    assert "SystemExit: 3" in out.text("error")
    _, out = run(runtime, "raise KeyboardInterrupt")
    assert out.text("error").rstrip().endswith("KeyboardInterrupt")


def test_sys_streams_are_restored(runtime: CellRuntime) -> None:
    import sys

    before = sys.stdout, sys.stderr, sys.stdin
    run(runtime, "1/0")
    assert (sys.stdout, sys.stderr, sys.stdin) == before


def test_svg_values_are_pictures(runtime: CellRuntime) -> None:
    _, out = run(runtime, "'<svg xmlns=\"http://www.w3.org/2000/svg\"><title>t</title></svg>'")
    assert [k for k, _ in out.events] == ["svg"]

    class Chart:
        def _repr_svg_(self) -> str:
            return "<svg/>"

    assert svg_of(Chart()) == "<svg/>"
    assert svg_of("not a picture") is None
    assert svg_of(Chart) is None


def test_display_shows_values_mid_cell(runtime: CellRuntime) -> None:
    _, out = run(runtime, "print('a')\ndisplay(1, '<svg/>')\nprint('b')")
    assert out.events == [("stdout", "a\n"), ("result", "1"), ("svg", "<svg/>"), ("stdout", "b\n")]


def test_a_learners_own_display_is_not_overwritten(runtime: CellRuntime) -> None:
    run(runtime, "def display(x):\n    print('mine', x)")
    _, out = run(runtime, "display(2)")
    assert out.text("stdout") == "mine 2\n"


def test_large_output_is_batched(runtime: CellRuntime) -> None:
    _, out = run(runtime, "for i in range(20000):\n    print(i)")
    stdout = [t for k, t in out.events if k == "stdout"]
    assert "".join(stdout) == "".join(f"{i}\n" for i in range(20000))
    assert len(stdout) < 200, "writes are sent in chunks, not one message per print"


def test_cell_filename() -> None:
    assert cell_filename("l08-breakdown") == "<cell l08-breakdown>"

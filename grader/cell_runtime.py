"""Run the Python cells of a lesson page: the part of the cells feature that runs *inside* Pyodide.

The browser side (``site_overrides/assets/javascripts/cells/``) loads Pyodide in a module Web
Worker, unpacks this package's wheel and calls :meth:`CellRuntime.run` for every Run click. The
same code runs in CPython, so the unit tests in ``tests/cells`` check exactly what a learner gets.

What it does for one cell:

- compiles the source under the name ``<cell ID>`` and registers it with :mod:`linecache`, so
  tracebacks show the learner's own line numbers and lines;
- executes it in the namespace of its page (cells on one page share one namespace, in the order
  they are run; each page has its own);
- shows the value of a final expression, as a notebook does: an SVG string (for instance from
  ``grader.memory.stacked_bar_svg``) or an object with ``_repr_svg_`` as a picture, anything
  else as its ``repr``;
- streams stdout and stderr through ``emit`` and reports an exception as a traceback that starts
  at the learner's cell: no frames of Pyodide or of this runtime.

Stdlib only.
"""

from __future__ import annotations

import ast
import builtins
import linecache
import sys
import time
import traceback
from collections.abc import Callable
from types import CodeType, TracebackType
from typing import Any

# emit(kind, text): kind is "stdout", "stderr", "error", "result" or "svg".
Emit = Callable[[str, str], None]

FLUSH_CHARS = 8192  # send stdout in chunks of this size at most...
FLUSH_SECONDS = 0.05  # ...or at least this often while a cell runs.


def cell_filename(cell_id: str) -> str:
    """The file name tracebacks show for a cell."""
    return f"<cell {cell_id}>"


class _Stream:
    """A text stream that forwards what a cell writes to ``emit``, batched."""

    def __init__(self, kind: str, emit: Emit) -> None:
        self.kind = kind
        self.emit = emit
        self.buffer: list[str] = []
        self.size = 0
        self.last_flush = time.monotonic()

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if text:
            self.buffer.append(text)
            self.size += len(text)
            now = time.monotonic()
            if self.size >= FLUSH_CHARS or now - self.last_flush >= FLUSH_SECONDS:
                self.flush()
        return len(text)

    def flush(self) -> None:
        self.last_flush = time.monotonic()
        if self.buffer:
            text, self.buffer, self.size = "".join(self.buffer), [], 0
            self.emit(self.kind, text)

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:
        return "utf-8"


class _NoInput:
    """``sys.stdin`` for cells: there is no keyboard behind a cell, so ``input()`` says so."""

    def readline(self, size: int = -1) -> str:
        raise EOFError("cells cannot read input(): set the value in the code instead")

    read = readline

    def isatty(self) -> bool:
        return False


def svg_of(value: object) -> str | None:
    """The SVG markup to show for ``value``, or None if it is not a picture."""
    if isinstance(value, str) and value.lstrip().startswith(("<svg", "<?xml")) and "<svg" in value:
        return value.strip()
    repr_svg = getattr(value, "_repr_svg_", None)
    if callable(repr_svg) and not isinstance(value, type):
        svg = repr_svg()
        if isinstance(svg, str):
            return svg
    return None


def _split_last_expression(tree: ast.Module) -> tuple[ast.Module, ast.Expression | None]:
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body.pop()
        assert isinstance(last, ast.Expr)
        return tree, ast.Expression(body=last.value)
    return tree, None


def _cell_traceback(exc: BaseException, filename: str) -> str:
    """Format ``exc`` from the first frame of the cell on, without this runtime's own frames."""
    if isinstance(exc, SyntaxError) and exc.filename == filename:
        return "".join(traceback.format_exception_only(type(exc), exc))
    tb: TracebackType | None = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    te = traceback.TracebackException(type(exc), exc, tb)
    te.stack = traceback.StackSummary.from_list(
        [frame for frame in te.stack if frame.filename != __file__]
    )
    return "".join(te.format())


class CellRuntime:
    """The namespaces of the pages a learner has run cells on, and the runner."""

    def __init__(self) -> None:
        self.namespaces: dict[str, dict[str, Any]] = {}
        self.runs: dict[str, int] = {}

    def namespace(self, page: str) -> dict[str, Any]:
        """The namespace the cells of ``page`` share (created on the first run)."""
        ns = self.namespaces.get(page)
        if ns is None:
            ns = {"__name__": "__main__", "__builtins__": builtins}
            self.namespaces[page] = ns
        return ns

    def run(self, page: str, cell_id: str, source: str, emit: Emit) -> dict[str, Any]:
        """Run one cell; stream its output through ``emit``; return a summary.

        The summary is ``{"ok": bool, "run": n, "seconds": float}``, where ``n`` counts the
        cells run so far in this page's namespace.
        """
        filename = cell_filename(cell_id)
        ns = self.namespace(page)
        self.runs[page] = self.runs.get(page, 0) + 1
        lines = source.splitlines(keepends=True)
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        linecache.cache[filename] = (len(source), None, lines, filename)

        def display(*values: object) -> None:
            """Show values below the cell: SVG as a picture, anything else as its repr."""
            stdout.flush()
            for value in values:
                self._show(value, emit)

        display.from_runtime = True  # type: ignore[attr-defined]
        existing = ns.get("display")
        if existing is None or getattr(existing, "from_runtime", False):
            ns["display"] = display  # unless the learner defined their own ``display``

        stdout, stderr = _Stream("stdout", emit), _Stream("stderr", emit)
        saved = sys.stdout, sys.stderr, sys.stdin
        sys.stdout, sys.stderr, sys.stdin = stdout, stderr, _NoInput()  # type: ignore[assignment]
        started = time.perf_counter()
        ok = True
        try:
            body, last = self._compile(source, filename)
            exec(body, ns)
            if last is not None:
                value = eval(last, ns)
                stdout.flush()
                if value is not None:
                    ns["_"] = value
                    self._show(value, emit)
        except BaseException as exc:  # noqa: BLE001 - a cell's error is output, never a crash
            ok = False
            stdout.flush()
            stderr.flush()
            emit("error", _cell_traceback(exc, filename))
        finally:
            stdout.flush()
            stderr.flush()
            sys.stdout, sys.stderr, sys.stdin = saved
        return {"ok": ok, "run": self.runs[page], "seconds": time.perf_counter() - started}

    def reset(self, page: str | None = None) -> None:
        """Forget one page's namespace, or all of them."""
        if page is None:
            self.namespaces.clear()
            self.runs.clear()
        else:
            self.namespaces.pop(page, None)
            self.runs.pop(page, None)

    @staticmethod
    def _compile(source: str, filename: str) -> tuple[CodeType, CodeType | None]:
        tree = ast.parse(source, filename, "exec")
        body, last = _split_last_expression(tree)
        code = compile(body, filename, "exec")
        return code, (compile(last, filename, "eval") if last is not None else None)

    @staticmethod
    def _show(value: object, emit: Emit) -> None:
        svg = svg_of(value)
        if svg is not None:
            emit("svg", svg)
        else:
            emit("result", repr(value))


_runtime = CellRuntime()


def run(page: str, cell_id: str, source: str, emit: Emit) -> dict[str, Any]:
    """Run a cell in the worker's single runtime (the entry point the Web Worker calls)."""
    return _runtime.run(page, cell_id, source, emit)


def reset(page: str | None = None) -> None:
    """Forget a page's namespace (or all) in the worker's runtime."""
    _runtime.reset(page)

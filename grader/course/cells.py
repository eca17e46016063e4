"""The ``pycell`` fence: Python cells in lesson Markdown (the Markdown side of the cells feature).

An author writes a cell as a fenced block with a stable id (it keys the learner's saved edits)::

    ```pycell id="l08-breakdown" title="The 16 bytes of GPT-2 1.5B"
    from grader.memory import model_states, format_bytes
    print(format_bytes(model_states(1.5e9).total))
    ```

Registered in ``mkdocs.yml`` as a ``pymdownx.superfences`` custom fence (a Markdown extension
setting, no MkDocs plugin, so Zensical reads it too)::

    - pymdownx.superfences:
        custom_fences:
          - name: pycell
            class: pycell
            validator: !!python/name:grader.course.cells.validate
            format: !!python/name:grader.course.cells.format_cell

The page gets the source as a plain ``<pre>`` (readable without JavaScript); ``cells.js`` turns
it into an editor with Run, Stop and Reset. The fence body is the one copy of a cell's source:
:func:`extract_cells` reads it back out of a Markdown file, so tests run the very same code in
CPython, and :func:`check_cells` (``python -m grader check``) reports bad cells with file:line.
"""

from __future__ import annotations

import ast
import html
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.course.problem import Problem

FENCE_NAME = "pycell"
OPTIONS = ("id", "title")
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
# ```pycell id="x" title="y"  (also ~~~, longer fences and indented fences in lists/admonitions)
_FENCE_OPEN = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*" + FENCE_NAME + r"\b(?P<options>[^\n]*)$"
)
# Same rule as superfences: key="value" or key='value' (a bare key stands for key="key").
_OPTION = re.compile(
    r"""[ \t]*(?P<key>[a-zA-Z][a-zA-Z0-9_]*)(?:=(?P<q>["'])(?P<value>.*?)(?P=q))?"""
)


class CellError(ValueError):
    """A cell fence an author must fix (bad or missing option); ``line`` is 1-based if known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def _fence_error(message: str) -> Exception:
    # SuperFencesException stops the build with our message instead of being swallowed.
    try:
        from pymdownx.superfences import SuperFencesException
    except ImportError:  # pragma: no cover - pymdownx is installed with the `site` extra
        return CellError(message)

    class PyCellFenceError(SuperFencesException, CellError):
        pass

    return PyCellFenceError(message)


def parse_options(inputs: dict[str, str]) -> dict[str, str]:
    """Check a fence's options; return them. Raise :class:`CellError` with a clear message."""
    unknown = sorted(set(inputs) - set(OPTIONS))
    if unknown:
        raise CellError(
            f"pycell: unknown option(s) {', '.join(unknown)}; allowed: {', '.join(OPTIONS)}"
        )
    cell_id = inputs.get("id")
    if not cell_id or cell_id == "id":
        raise CellError('pycell: every cell needs an id, e.g. ```pycell id="l08-breakdown"')
    if not ID_PATTERN.match(cell_id):
        raise CellError(
            f"pycell: id {cell_id!r} must be lowercase letters, digits and '-' (at most 64)"
        )
    return {k: inputs[k] for k in OPTIONS if k in inputs}


def validate(
    language: str, inputs: dict[str, str], options: dict[str, Any], attrs: dict[str, Any], md: Any
) -> bool:
    """superfences validator: accept ``id`` and ``title``; stop the build on anything else."""
    try:
        options.update(parse_options(inputs))
    except CellError as exc:
        raise _fence_error(str(exc)) from None
    return True


def render_cell(source: str, cell_id: str, title: str | None = None) -> str:
    """The HTML of one cell before JavaScript enhances it."""
    label = html.escape(title or "Python", quote=False)
    return (
        f'<div class="pycell" id="cell-{cell_id}" data-cell-id="{cell_id}">'
        f'<div class="pycell-head"><span class="pycell-title">{label}</span>'
        f'<span class="pycell-badge" title="Runs in your browser">Python</span></div>'
        f'<pre class="pycell-source"><code>{html.escape(source, quote=False)}</code></pre>'
        "</div>"
    )


def format_cell(
    source: str, language: str, class_name: str, options: dict[str, Any], md: Any, **kwargs: Any
) -> str:
    """superfences formatter for ``pycell``."""
    return render_cell(source, options["id"], options.get("title"))


@dataclass(frozen=True)
class CellSource:
    """A cell as written in a Markdown file."""

    path: Path
    line: int  # line of the opening fence (1-based)
    id: str
    title: str | None
    source: str
    section: str | None  # the level-2 heading the cell sits under


def _parse_option_string(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _OPTION.match(text, pos)
        if not m or m.end() == pos:
            raise CellError(
                f'pycell: cannot read the options {text[pos:].strip()!r}; write key="value"'
            )
        found[m["key"]] = m["value"] if m["value"] is not None else m["key"]
        pos = m.end()
    return found


def extract_cells(path: Path) -> list[CellSource]:
    """Every ``pycell`` fence of a Markdown file, in page order, with its exact source."""
    lines = path.read_text(encoding="utf-8").splitlines()
    cells: list[CellSource] = []
    section: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:].strip()
        m = _FENCE_OPEN.match(line)
        if not m:
            i += 1
            continue
        indent, fence = m["indent"], m["fence"]
        closing = re.compile(
            "^" + re.escape(indent) + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$"
        )
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not closing.match(lines[j]):
            body.append(lines[j].removeprefix(indent))
            j += 1
        if j == len(lines):
            raise CellError("pycell: this fence is never closed", i + 1)
        try:
            opts = parse_options(_parse_option_string(m["options"]))
        except CellError as exc:
            raise CellError(exc.message, i + 1) from None
        cells.append(
            CellSource(path, i + 1, opts["id"], opts.get("title"), "\n".join(body), section)
        )
        i = j + 1
    return cells


def check_cells(root: Path) -> list[Problem]:
    """Course check: cells parse, have unique ids per page and are valid Python."""
    problems: list[Problem] = []
    for path in sorted((root / "lessons").rglob("*.md")):
        try:
            cells = extract_cells(path)
        except CellError as exc:
            problems.append(Problem(path, exc.line or 1, exc.message))
            continue
        seen: dict[str, int] = {}
        for cell in cells:
            if cell.id in seen:
                problems.append(
                    Problem(
                        path,
                        cell.line,
                        f"pycell id {cell.id!r} already used on line {seen[cell.id]}",
                    )
                )
            seen.setdefault(cell.id, cell.line)
            try:
                ast.parse(cell.source, f"<cell {cell.id}>")
            except SyntaxError as exc:
                problems.append(
                    Problem(path, cell.line + (exc.lineno or 1), f"pycell {cell.id}: {exc.msg}")
                )
    return problems

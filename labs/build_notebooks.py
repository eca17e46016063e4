"""Build the lab notebooks (``labs/*.ipynb``) from their readable sources (``labs/src/*.py``).

    .venv/bin/python labs/build_notebooks.py          # write the notebooks
    .venv/bin/python labs/build_notebooks.py --check  # exit 1 if a notebook is out of date

A source is a Python file split into cells by ``# %%`` lines (the "percent" format that VS Code,
Spyder and Jupytext read): ``# %% [markdown]`` starts a Markdown cell whose lines drop their
leading ``# ``; ``# %% tags=["parameters"]`` tags a code cell (the parameters cell that tests and
papermill replace); ``# %% [meta]`` holds ``key: value`` lines stored in the notebook's metadata
under ``course_lab`` (what the lab box on a lesson page shows); ``# %% [setup]`` becomes the
shared setup cell; lines before the first ``# %%`` (e.g. a ``# ruff: noqa`` line for names the
setup cell defines) stay out of the notebook. Indented ``# `` lines continue a meta value.
``{{REPO_URL}}`` is replaced by ``repo_url`` from ``mkdocs.yml``. The notebooks
are committed without outputs and with stable cell ids, so a rebuild changes nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import nbformat

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CELL_RE = re.compile(r"^# %%(?:\s+\[(?P<kind>\w+)\])?(?:\s+tags=(?P<tags>\[.*\]))?\s*$")

SETUP = '''\
# Setup: find labkit/ (next to this notebook) and the course's memory model (grader/).
import sys
from pathlib import Path

HERE = next((p for p in (Path.cwd(), Path.cwd() / "labs") if (p / "labkit").is_dir()), None)
if HERE is None:  # opened alone (e.g. in Colab): fetch the course repository first
    import subprocess

    repo = "{{REPO_URL}}"
    subprocess.run(["git", "clone", "--depth=1", repo, "course"], check=True)
    HERE = Path("course/labs").resolve()
for path in (str(HERE), str(HERE.parent)):
    if path not in sys.path:
        sys.path.insert(0, path)

from IPython.display import Markdown, display  # noqa: E402'''


def repo_url(mkdocs_yml: Path = ROOT / "mkdocs.yml") -> str:
    """``repo_url`` from ``mkdocs.yml`` (read as text: the file may hold MkDocs-only YAML tags)."""
    for line in mkdocs_yml.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^repo_url:\s*['\"]?([^'\"#\s]+)", line)
        if m:
            return m.group(1).rstrip("/")
    raise SystemExit(f"{mkdocs_yml}: no repo_url")


def parse(source: str) -> tuple[dict[str, str], list[Any]]:
    """Cells and lab metadata of one source file."""
    meta: dict[str, str] = {}
    cells: list[Any] = []
    kind, tags, lines = None, None, []

    def flush() -> None:
        text = "\n".join(lines).strip("\n")
        if kind is None and not text:
            return
        if kind == "meta":
            key = ""
            for line in text.splitlines():
                body = line.removeprefix("#")
                if body.startswith("   ") and key:  # an indented line continues the value
                    meta[key] = f"{meta[key]} {body.strip()}"
                    continue
                key, _, value = body.strip().partition(":")
                key = key.strip()
                meta[key] = value.strip()
        elif kind == "markdown":
            md = "\n".join(re.sub(r"^# ?", "", line) for line in text.splitlines())
            cells.append(nbformat.v4.new_markdown_cell(md))
        elif kind == "setup":
            cells.append(nbformat.v4.new_code_cell(SETUP))
        else:
            cell = nbformat.v4.new_code_cell(text)
            if tags:
                cell.metadata["tags"] = tags
            cells.append(cell)

    started = False
    for line in source.splitlines():
        m = CELL_RE.match(line)
        if m:
            if started:
                flush()
            started = True
            kind, tags, lines = m["kind"], json.loads(m["tags"]) if m["tags"] else None, []
        else:
            lines.append(line)
    flush()
    return meta, cells


def build(src: Path, url: str) -> str:
    """The notebook JSON text for one source file."""
    meta, cells = parse(src.read_text(encoding="utf-8").replace("{{REPO_URL}}", url))
    for i, cell in enumerate(cells):
        cell["id"] = f"{src.stem}-{i:02d}"
        cell.source = cell.source.replace("{{REPO_URL}}", url)
    meta["id"] = src.stem
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "course_lab": meta,
    }
    nbformat.validate(nb)
    return nbformat.writes(nb) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="labs/build_notebooks.py")
    parser.add_argument("--check", action="store_true", help="fail if a notebook is out of date")
    args = parser.parse_args(argv)
    url = repo_url()
    stale = []
    for src in sorted((HERE / "src").glob("*.py")):
        text = build(src, url)
        out = HERE / f"{src.stem}.ipynb"
        if args.check:
            if not out.exists() or out.read_text(encoding="utf-8") != text:
                stale.append(out.name)
        else:
            out.write_text(text, encoding="utf-8")
            print(f"wrote {out.relative_to(ROOT)}")
    if stale:
        print(f"out of date (run labs/build_notebooks.py): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

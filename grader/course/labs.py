"""``::: lab <id>``: a GPU lab box in a lesson page, and the course check of the labs.

A line on its own, ``::: lab l08-model-states``, becomes a box that says what the lab measures
and the hardware it needs (both read from the notebook's ``metadata.course_lab``, written by
``labs/build_notebooks.py``: one source for the notebook and the page), with three ways to run
it: a download link to the notebook served by the site itself (``vendor/labs/<id>.ipynb``, copied
there by ``python -m grader.site_assets vendor``), an "Open in Colab" link built from
``repo_url`` in ``mkdocs.yml``, and the local command ``jupyter lab labs/<id>.ipynb``.

Markup::

    <div class="course-lab" id="lab-ID" data-lab-id="ID">
      <p class="course-lab-kicker">GPU lab</p>
      <p class="course-lab-title">title</p>
      <dl class="course-lab-facts"><dt>What it measures</dt><dd>…</dd><dt>Hardware</dt><dd>…</dd>
        <dt>Run it</dt><dd class="course-lab-run"> links, then the local command </dd></dl>
    </div>

The download link's ``href`` is the notebook in the repository (it works without JavaScript);
``assets/javascripts/labs.js`` points it at the site's own copy, which is resolved against the
site root and so works at any page depth. Only Python-Markdown's API is used.
"""

from __future__ import annotations

import json
import logging
import re
import xml.etree.ElementTree as etree
from pathlib import Path
from typing import Any

from markdown import Markdown
from markdown.blockparser import BlockParser
from markdown.extensions import Extension
from markdown.util import AtomicString

from grader.course.lesson_source import split_front_matter
from grader.course.line_directive import LineDirectiveProcessor
from grader.course.problem import Problem

# A logger under "mkdocs" so that `mkdocs build --strict` fails on a bad lab directive.
log = logging.getLogger("mkdocs.course.labs")

LAB_RE = re.compile(r"^:::[ \t]+lab[ \t]+(?P<id>\S+)[ \t]*$")
LAB_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
REQUIRED_META = ("title", "lesson", "measures", "hardware")
GITHUB_RE = re.compile(r"^https://github\.com/(?P<owner>[^/\s]+)/(?P<repo>[^/\s]+?)(?:\.git)?/?$")
COLAB = "https://colab.research.google.com/github/{owner}/{repo}/blob/{branch}/{path}"


def repo_url(config_file: Path) -> str | None:
    """``repo_url`` from ``mkdocs.yml``, read as text (the file holds MkDocs-only YAML tags)."""
    try:
        text = config_file.read_text(encoding="utf-8")
    except OSError:
        return None
    m = re.search(r"^repo_url:[ \t]*['\"]?([^'\"#\s]+)", text, re.MULTILINE)
    return m.group(1).rstrip("/") if m else None


def colab_url(repo: str | None, branch: str, path: str) -> str | None:
    """Colab's "open from GitHub" address of ``path``; None when the repository is not on GitHub."""
    m = GITHUB_RE.match(repo or "")
    if not m:
        return None
    return COLAB.format(owner=m["owner"], repo=m["repo"], branch=branch, path=path)


def read_lab(labs_dir: Path, lab_id: str) -> dict[str, Any]:
    """The ``course_lab`` metadata of ``labs/<lab_id>.ipynb``; ValueError says what is wrong."""
    if not LAB_ID_RE.match(lab_id):
        raise ValueError(f"'{lab_id}' is not a lab id (lowercase letters, digits, hyphens)")
    path = labs_dir / f"{lab_id}.ipynb"
    if not path.is_file():
        known = sorted(p.stem for p in labs_dir.glob("*.ipynb"))
        raise ValueError(f"no notebook {path} (labs: {', '.join(known) or 'none'})")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))["metadata"]["course_lab"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: no metadata.course_lab ({exc!r}); rebuild it with "
                         "labs/build_notebooks.py") from None
    missing = [k for k in REQUIRED_META if not str(meta.get(k, "")).strip()]
    if missing:
        raise ValueError(f"{path}: metadata.course_lab lacks {', '.join(missing)}")
    return dict(meta)


def _text(parent: etree.Element, tag: str, text: str, cls: str | None = None) -> etree.Element:
    el = etree.SubElement(parent, tag)
    if cls:
        el.set("class", cls)
    el.text = AtomicString(text)
    return el


def _sentence(value: object) -> str:
    text = str(value).strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def render_box(parent: etree.Element, lab_id: str, meta: dict[str, Any], *, repo: str | None,
               branch: str) -> etree.Element:
    """The lab box as an element tree under ``parent``."""
    notebook = f"{lab_id}.ipynb"
    path = f"labs/{notebook}"
    box = etree.SubElement(parent, "div")
    box.set("class", "course-lab")
    box.set("id", f"lab-{lab_id}")
    box.set("data-lab-id", lab_id)
    _text(box, "p", "GPU lab", "course-lab-kicker")
    _text(box, "p", str(meta["title"]), "course-lab-title")
    facts = etree.SubElement(box, "dl")
    facts.set("class", "course-lab-facts")
    _text(facts, "dt", "What it measures")
    _text(facts, "dd", _sentence(meta["measures"]))
    _text(facts, "dt", "Hardware")
    _text(facts, "dd", _sentence(meta["hardware"]))
    _text(facts, "dt", "Run it")
    run = etree.SubElement(facts, "dd")
    run.set("class", "course-lab-run")
    links = etree.SubElement(run, "p")
    links.set("class", "course-lab-links")
    download = _text(links, "a", "Download the notebook", "md-button course-lab-download")
    download.set("href", f"{repo}/raw/{branch}/{path}" if repo else path)
    download.set("data-lab-notebook", notebook)
    download.set("download", notebook)
    colab = colab_url(repo, branch, path)
    if colab:
        link = _text(links, "a", "Open in Colab", "md-button course-lab-colab")
        link.set("href", colab)
        link.set("rel", "noopener")
        link.set("target", "_blank")
    local = etree.SubElement(run, "p")
    local.set("class", "course-lab-local")
    local.text = AtomicString("Locally, in a clone of the course repository (after ")
    _text(local, "code", "make venv").tail = AtomicString(" and ")
    _text(local, "code", ".venv/bin/pip install jupyterlab").tail = AtomicString("): ")
    _text(local, "code", f"jupyter lab {path}").tail = AtomicString(", set ")
    _text(local, "code", "SMOKE = False").tail = AtomicString(
        " in the first cell, then run all cells. Measurements are saved to "
    )
    _text(local, "code", "labs/results/").tail = AtomicString(".")
    return box


class LabProcessor(LineDirectiveProcessor):
    """Replace a ``::: lab <id>`` line with the lab box."""

    def __init__(self, parser: BlockParser, labs_dir: Path, repo: str | None, branch: str) -> None:
        super().__init__(parser)
        self.labs_dir, self.repo, self.branch = labs_dir, repo, branch

    pattern = LAB_RE

    def render(self, parent: etree.Element, match: re.Match[str]) -> None:
        lab_id = match["id"]
        try:
            meta = read_lab(self.labs_dir, lab_id)
        except ValueError as exc:
            log.warning("lab directive '%s': %s", lab_id, exc)
            box = _text(parent, "div", f"Lab '{lab_id}' cannot be shown: {exc}",
                        "admonition failure course-error")
            box.set("data-lab-id", lab_id)
            return
        render_box(parent, lab_id, meta, repo=self.repo, branch=self.branch)


class LabExtension(Extension):
    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "labs_dir": ["labs", "folder of the lab notebooks (<id>.ipynb)"],
            "config_file": ["mkdocs.yml", "where repo_url is read (for the Colab links)"],
            "branch": ["main", "branch of the repository the Colab links open"],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Python-Markdown's name)
        repo = repo_url(Path(self.getConfig("config_file")))
        processor = LabProcessor(md.parser, Path(self.getConfig("labs_dir")), repo,
                                 str(self.getConfig("branch")))
        # Above the list processors, like the course's other directives.
        md.parser.blockprocessors.register(processor, "course-lab", 45)


def makeExtension(**kwargs: Any) -> LabExtension:  # noqa: N802 (Python-Markdown's name)
    return LabExtension(**kwargs)


def _front_matter_labs(page: Path, lines: list[str], problems: list[Problem]
                       ) -> list[tuple[int, str]]:
    """``(line, id)`` for each id under ``labs:`` in the page's YAML front matter."""
    # Broken front matter comes back empty: the lesson checks report it.
    meta, _error, body_start, _body = split_front_matter("\n".join(lines))
    end = body_start - 2  # index of the closing '---'
    labs = meta.get("labs")
    if labs is None:
        return []
    line = next((i + 1 for i in range(1, end) if lines[i].startswith("labs:")), 1)
    if not isinstance(labs, list) or not all(isinstance(x, str) for x in labs):
        problems.append(Problem(page, line, "front matter 'labs' must be a list of lab ids"))
        return []
    return [(line, lab_id) for lab_id in labs]


def check_labs(root: Path) -> list[Problem]:
    """Every ``::: lab`` directive and front-matter ``labs:`` id names a built, clean notebook.

    A notebook is clean when it stores no outputs or execution counts, has a code cell tagged
    ``parameters`` that sets ``SMOKE``, and carries the lab box's metadata.
    """
    problems: list[Problem] = []
    labs_dir = root / "labs"
    for nb_path in sorted(labs_dir.glob("*.ipynb")):
        try:
            nb = json.loads(nb_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            problems.append(Problem(nb_path, 0, f"not a readable notebook: {exc}"))
            continue
        try:
            read_lab(labs_dir, nb_path.stem)
        except ValueError as exc:
            problems.append(Problem(nb_path, 0, str(exc)))
        cells = nb.get("cells", [])
        if any(c.get("outputs") or c.get("execution_count") for c in cells):
            problems.append(Problem(nb_path, 0, "stored outputs: commit notebooks without "
                                    "outputs (rebuild with labs/build_notebooks.py)"))
        params = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
        if not params or "SMOKE" not in "".join(params[0].get("source", "")):
            problems.append(Problem(nb_path, 0, "no parameters cell (tagged 'parameters') "
                                    "setting SMOKE"))
    docs = root / "lessons"
    for page in sorted(docs.rglob("*.md")) if docs.is_dir() else []:
        lines = page.read_text(encoding="utf-8").splitlines()
        wanted = _front_matter_labs(page, lines, problems)
        wanted += [(i, m["id"]) for i, line in enumerate(lines, 1) if (m := LAB_RE.match(line))]
        for line_no, lab_id in wanted:
            try:
                read_lab(labs_dir, lab_id)
            except ValueError as exc:
                problems.append(Problem(page, line_no, f"lab '{lab_id}': {exc}"))
    return problems

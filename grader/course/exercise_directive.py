"""``::: exercise <id>``: an exercise from ``exercises/lesson-NN/<id>.yaml`` rendered in the page.

Only the public view (``grader.exercises.public.load_public``) reaches the page: prompt, choices,
units, starter code. The answer field itself is left to the practice script, which fills
``<div class="exercise-answer">``. Markup (see the team contract)::

    <div class="course-item exercise" id=ID data-item-id=ID data-kind=KIND data-section=SECTION
         data-lesson=N>
      <input type="checkbox" class="course-check" ...>   progress checkbox
      <div class="exercise-prompt"> the prompt, rendered </div>
      <ol class="exercise-choices"> ... </ol>             choice kinds; matching: two lists
      <div class="exercise-answer" data-exercise-id=ID></div>
      <div class="exercise-public" hidden data-json="{public view}"></div>
    </div>

The public view travels in a data attribute, not in ``<script type="application/json">``: Material's
instant navigation re-creates every inline ``<script>`` of the new page as a plain script (type,
id and class dropped), so a JSON script would run as JavaScript (a syntax error) and vanish.
"""

from __future__ import annotations

import json
import logging
import re
import xml.etree.ElementTree as etree
from pathlib import Path
from typing import Any

import yaml
from markdown.blockparser import BlockParser
from markdown.util import AtomicString

from grader.course.lesson_source import EXERCISE_RE, exercise_path
from grader.course.line_directive import LineDirectiveProcessor
from grader.course.progress_items import checkbox
from grader.exercises.public import load_public

# A logger under "mkdocs" so that `mkdocs build --strict` counts a bad directive as a warning;
# any other Python-Markdown host simply logs it.
log = logging.getLogger("mkdocs.course.exercise")

CHOICE_KINDS = {"single_choice", "multiple_select"}


def public_json(view: dict[str, Any]) -> str:
    """The public view as JSON, also safe inside a <script> element."""
    text = json.dumps(view, ensure_ascii=False, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


class ExerciseProcessor(LineDirectiveProcessor):
    """Replace a ``::: exercise <id>`` line with the exercise's public view."""

    def __init__(self, parser: BlockParser, exercises_dir: Path) -> None:
        super().__init__(parser)
        self.exercises_dir = exercises_dir

    pattern = EXERCISE_RE

    def render(self, parent: etree.Element, match: re.Match[str]) -> None:
        exercise_id = match["id"]
        path = exercise_path(self.exercises_dir, exercise_id)
        if path is None:
            self.error(parent, exercise_id, f"no exercise file {exercise_id}.yaml under "
                       f"{self.exercises_dir}/lesson-NN/")
            return
        try:
            view = load_public(path)
        except (OSError, ValueError, yaml.YAMLError) as exc:
            self.error(parent, exercise_id, f"cannot read {path}: {exc}")
            return
        self.render_exercise(parent, exercise_id, view)

    def error(self, parent: etree.Element, exercise_id: str, message: str) -> None:
        log.warning("exercise directive '%s': %s", exercise_id, message)
        box = etree.SubElement(parent, "div")
        box.set("class", "admonition failure course-error")
        title = etree.SubElement(box, "p")
        title.set("class", "admonition-title")
        title.text = AtomicString(f"Exercise {exercise_id} is missing")
        body = etree.SubElement(box, "p")
        body.text = AtomicString(message)

    def render_exercise(
        self, parent: etree.Element, exercise_id: str, view: dict[str, Any]
    ) -> None:
        kind = str(view.get("kind", ""))
        section = str(view.get("section", ""))
        title = str(view.get("title") or exercise_id)
        div = etree.SubElement(parent, "div")
        div.set("class", f"course-item exercise exercise--{kind}")
        div.set("id", exercise_id)
        div.set("data-item-id", exercise_id)
        div.set("data-kind", kind)
        div.set("data-section", section)
        if "lesson" in view:
            div.set("data-lesson", str(view["lesson"]))

        checkbox(div, exercise_id, title)
        head = etree.SubElement(div, "p")
        head.set("class", "exercise-title")
        number = etree.SubElement(head, "span")
        number.set("class", "exercise-number")
        number.set("aria-hidden", "true")
        name = etree.SubElement(head, "strong")
        name.text = title
        if view.get("points"):
            points = etree.SubElement(head, "span")
            points.set("class", "exercise-points")
            plural = "" if view["points"] == 1 else "s"
            points.text = AtomicString(f"{view['points']} pt{plural}")

        prompt = etree.SubElement(div, "div")
        prompt.set("class", "exercise-prompt")
        self.parser.parseChunk(prompt, str(view.get("prompt", "")))

        if kind in CHOICE_KINDS and view.get("choices"):
            self.choice_list(div, "exercise-choices", view["choices"], ordered=True)
        if kind == "matching":
            match = etree.SubElement(div, "div")
            match.set("class", "exercise-matching")
            self.choice_list(match, "matching-left", view.get("left", []), ordered=True)
            self.choice_list(match, "matching-right", view.get("right", []), ordered=False)

        answer = etree.SubElement(div, "div")
        answer.set("class", "exercise-answer")
        answer.set("data-exercise-id", exercise_id)
        data = etree.SubElement(div, "div")
        data.set("class", "exercise-public")
        data.set("hidden", "hidden")
        data.set("data-json", public_json(view))

    @staticmethod
    def choice_list(
        parent: etree.Element, css: str, items: list[dict[str, Any]], *, ordered: bool
    ) -> None:
        lst = etree.SubElement(parent, "ol" if ordered else "ul")
        lst.set("class", css)
        if ordered:
            lst.set("type", "a")
        for item in items:
            li = etree.SubElement(lst, "li")
            li.set("data-choice-id", str(item.get("id", "")))
            li.text = str(item.get("text", ""))

"""Answer keys stay on the server: the built site holds no key, explanation, feedback, solution
or hidden test of any exercise file.

Secret texts (explanations, per-option and per-mistake feedback, solutions, hidden tests) are
searched in the text of every file of the build (tags stripped, entities and JSON decoded), so a
leak is found however it was rendered. Key values (a numeric key in the units people write, the
accepted short answers, matching pairs, which option is correct) are searched in the exercise's
own block on every page that shows it, where a leak would give the answer away.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from grader.exercises.keys import evaluate
from grader.exercises.public import ITEM_LISTS, PUBLIC_FIELDS, PUBLIC_ITEM_FIELDS

ROOT = Path(__file__).resolve().parents[2]
EXERCISE_FILES = sorted((ROOT / "exercises").glob("lesson-*/*.yaml"))
MIN_FRAGMENT = 28
TEXT_SUFFIXES = {".html", ".js", ".json", ".xml", ".txt", ".css", ".md", ".py", ".yaml", ".yml"}


def normalise(text: str) -> str:
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    text = re.sub(r"[*_`#>|\\]", "", text)
    return re.sub(r"\s+", " ", text).strip().lower()


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _json_strings(text: str) -> str:
    try:
        return " ".join(_strings(json.loads(text)))
    except ValueError:
        return text


def fragments(secret: str) -> list[str]:
    """Sentences (and code lines) of a secret text, long enough to be unmistakable."""
    pieces = re.split(r"(?<=[.!?:;])\s+|\n", secret)
    out = []
    for piece in pieces:
        piece = normalise(piece)
        if len(piece) >= MIN_FRAGMENT and not piece.startswith(("import ", "from ")):
            out.append(piece)
    return out


def secret_texts(path: Path, data: dict[str, Any]) -> list[str]:
    texts = []
    for name, value in data.items():
        if name in PUBLIC_FIELDS or name in ITEM_LISTS:
            continue
        texts.extend(_strings(value))
        if name == "tests" and isinstance(value, str):
            texts.append((path.parent / value).read_text(encoding="utf-8"))
    for list_name in ITEM_LISTS:
        for item in data.get(list_name, []):
            for name, value in item.items():
                if name not in PUBLIC_ITEM_FIELDS:
                    texts.extend(_strings(value))
    return texts


def key_values(data: dict[str, Any]) -> list[str]:
    """How a key would look if it leaked into the exercise's block."""
    kind = data.get("kind")
    values: list[str] = []
    if kind == "numeric":
        key = evaluate(str(data["key"]))
        for scaled in (key, key / 1e9, key / 2**30, key / 1e12):
            for form in (f"{scaled:g}", f"{scaled:.3g}", f"{scaled:,.0f}"):
                if len(form.replace(".", "")) >= 3:
                    values.append(form)
    elif kind == "short_answer":
        values.extend(str(a) for a in data.get("accepted", []))
    elif kind == "matching":
        values.append(json.dumps(data["key"], sort_keys=True))
    return values


@pytest.fixture(scope="module")
def build(built_site: Path) -> dict[Path, str]:
    files = {}
    for path in built_site.rglob("*"):
        if path.is_file() and path.suffix in TEXT_SUFFIXES and "vendor" not in path.parts:
            files[path] = path.read_text(encoding="utf-8", errors="replace")
    return files


@pytest.fixture(scope="module")
def corpus(build: dict[Path, str]) -> str:
    parts = []
    for path, text in build.items():
        parts.append(normalise(_json_strings(text) if path.suffix == ".json" else text))
    return "\n".join(parts)


def exercise_blocks(build: dict[Path, str], exercise_id: str) -> list[str]:
    """Each rendering of the exercise: its div up to the end of its public-view element."""
    blocks = []
    pattern = rf'<div class="course-item exercise[^"]*"[^>]* id="{exercise_id}"'
    for path, text in build.items():
        if path.suffix != ".html":
            continue
        for match in re.finditer(pattern, text):
            public = text.find('class="exercise-public"', match.end())
            end = min(
                i for i in (text.find("</script>", public), text.find("</div>", public)) if i > 0
            )
            blocks.append(text[match.start() : end])
    return blocks


def public_view_in(block: str) -> dict[str, Any]:
    """The public view, from ``data-json="..."`` or a JSON ``<script>`` (either form)."""
    element = block[block.index('class="exercise-public"') :]
    attribute = re.search(r'data-json="([^"]*)"', element)
    raw = attribute.group(1) if attribute else element.split(">", 1)[1]
    return json.loads(html.unescape(raw))


@pytest.mark.parametrize("path", EXERCISE_FILES, ids=[p.stem for p in EXERCISE_FILES])
def test_no_secret_of_an_exercise_is_in_the_build(
    path: Path, build: dict[Path, str], corpus: str
) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    secrets = [f for text in secret_texts(path, data) for f in fragments(text)]
    assert secrets, f"{path.name}: no secret text found: is the test reading the right fields?"
    leaked = [fragment for fragment in secrets if fragment in corpus]
    assert leaked == [], f"{path.name}: secret text in the built site: {leaked[:3]}"

    for block in exercise_blocks(build, data["id"]):
        public = public_view_in(block)
        assert public["id"] == data["id"]
        assert set(public) <= set(PUBLIC_FIELDS) | set(ITEM_LISTS), sorted(public)
        for name in ITEM_LISTS:
            for item in public.get(name, []):
                assert set(item) <= set(PUBLIC_ITEM_FIELDS)
        assert "correct" not in block
        text = normalise(block)
        for value in key_values(data):
            assert normalise(value) not in text, f"{path.name}: key {value!r} in its block"


def test_the_build_shows_the_exercises(build: dict[Path, str]) -> None:
    """Guard against a vacuous pass: the lesson exercises are in the build, with public views."""
    for exercise_id in ("l08-practice-7b-states", "l08-practice-why-dp-fails"):
        assert exercise_blocks(build, exercise_id), f"{exercise_id} is not on any page"
    assert "l08-practice-7b-states" in "".join(build.values())


def test_the_detector_finds_a_planted_leak() -> None:
    data = yaml.safe_load((ROOT / "exercises/lesson-08/l08-practice-7b-states.yaml").read_text())
    explanation = fragments(data["explanation"])[0]
    page = normalise(f"<p>{html.escape(data['explanation'])}</p>")
    assert explanation in page
    assert any(normalise(v) in normalise("about <b>112</b> GB") for v in key_values(data))

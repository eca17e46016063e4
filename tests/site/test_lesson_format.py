"""The lesson format: the Markdown extension (directive, reps, figures) and the built pages."""

from __future__ import annotations

import json
import logging
import re
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
import yaml

from grader.course import memory_figures
from grader.course.lesson_source import SECTIONS, lessons
from grader.memory import GB, activations, model_states

ROOT = Path(__file__).resolve().parents[2]
LESSON_PAGES = {8: "stage-4/lesson-08/index.html", 11: "stage-5/lesson-11/index.html"}
ZERO_PAPER_URL = "https://arxiv.org/abs/1910.02054"


def render(text: str, exercises: Path, docs: Path | None = None) -> str:
    config = {"exercises_dir": str(exercises), "docs_dir": str(docs or exercises)}
    md = markdown.Markdown(
        extensions=["md_in_html", "tables", "grader.course.extension"],
        extension_configs={"grader.course.extension": config},
    )
    return md.convert(text)


@pytest.fixture()
def exercises(tmp_path: Path) -> Path:
    """A temp exercises folder with one single-choice exercise holding server-only fields."""
    folder = tmp_path / "exercises" / "lesson-03"
    folder.mkdir(parents=True)
    (folder / "l03-demo.yaml").write_text(
        yaml.safe_dump(
            {
                "id": "l03-demo",
                "lesson": 3,
                "section": "practice",
                "kind": "single_choice",
                "title": "A demo <question>",
                "prompt": "Which is **right**? $16\\Psi$",
                "points": 1,
                "choices": [
                    {"id": "a", "text": "This one", "correct": True, "feedback": "SECRET-FB"},
                    {"id": "b", "text": "That one", "correct": False},
                ],
                "answer": "SECRET-KEY",
                "explanation": "SECRET-EXPLANATION",
            }
        )
    )
    return tmp_path / "exercises"


class Elements(HTMLParser):
    """Start tags with their attributes, in document order."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def find(self, tag: str, **attrs: str) -> list[dict[str, str]]:
        return [
            a
            for t, a in self.tags
            if t == tag and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]


# --- the exercise directive ----------------------------------------------------------------------


def test_directive_renders_the_contract_markup(exercises: Path) -> None:
    html = render("Intro.\n\n::: exercise l03-demo\n\nAfter.", exercises)
    tags = Elements(html)
    [div] = tags.find("div", id="l03-demo")
    assert div["class"].split()[:2] == ["course-item", "exercise"]
    assert div["data-item-id"] == "l03-demo"
    assert (div["data-kind"], div["data-section"], div["data-lesson"]) == (
        "single_choice",
        "practice",
        "3",
    )
    [box] = tags.find("input", data_item_id="l03-demo")
    assert box["type"] == "checkbox" and "course-check" in box["class"]
    assert box["aria-label"] == "Done: A demo <question>"
    assert tags.find("div", data_exercise_id="l03-demo")[0]["class"] == "exercise-answer"
    assert "<strong>right</strong>" in html  # the prompt is Markdown
    assert [c["data-choice-id"] for c in tags.find("li")] == ["a", "b"]
    assert html.index("Intro.") < html.index("l03-demo") < html.index("After.")


def test_directive_ships_only_the_public_view(exercises: Path) -> None:
    html = render("::: exercise l03-demo", exercises)
    assert "SECRET" not in html and "correct" not in html
    [data] = Elements(html).find("div", **{"class": "exercise-public"})
    view = json.loads(data["data-json"])
    assert "hidden" in data and "<script" not in html  # instant navigation re-runs scripts
    assert view["id"] == "l03-demo" and view["title"] == "A demo <question>"
    assert view["choices"] == [{"id": "a", "text": "This one"}, {"id": "b", "text": "That one"}]


def test_directive_naming_no_exercise_warns(
    exercises: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="mkdocs.course.exercise"):
        html = render("::: exercise l03-missing", exercises)
    assert "course-error" in html and "l03-missing" in html
    assert any("l03-missing" in r.getMessage() for r in caplog.records)


# --- reps ----------------------------------------------------------------------------------------

REPS = """## Real-world reps

- [ ] {#l03-rep-one} First rep, with a [link](https://example.org)
  that continues here.
- [ ] {#l03-rep-two} Second rep.
"""


def rep_ids(html: str) -> list[str]:
    return [a["data-item-id"] for a in Elements(html).find("li") if "data-item-id" in a]


def test_reps_render_with_their_ids(exercises: Path) -> None:
    html = render(REPS, exercises)
    assert rep_ids(html) == ["l03-rep-one", "l03-rep-two"]
    tags = Elements(html)
    [box] = tags.find("input", data_item_id="l03-rep-one")
    assert box["aria-label"].startswith("Done: First rep, with a link")
    assert 'href="https://example.org"' in html and "that continues here." in html
    assert len(tags.find("ul", **{"class": "course-reps"})) == 1


def test_inserting_a_rep_above_keeps_the_ids(exercises: Path) -> None:
    before = rep_ids(render(REPS, exercises))
    inserted = REPS.replace(
        "- [ ] {#l03-rep-one}", "- [ ] {#l03-rep-new} A new rep.\n- [ ] {#l03-rep-one}"
    )
    after = rep_ids(render(inserted, exercises))
    assert after == ["l03-rep-new", *before]


# --- figures from the memory model ---------------------------------------------------------------


def test_figures_come_from_the_memory_model() -> None:
    assert memory_figures.render("model_states(1.5e9).total", "GB") == "24 GB"
    assert memory_figures.render('model_states(1.5e9).parts["fp16 parameters"]', "GB") == "3 GB"
    gpt2 = 'activations(hidden=1600, layers=48, seq=1024, batch=32, method="zero-paper")'
    assert memory_figures.render(f"{gpt2}.total", "GB", 2) == "60 GB"
    assert memory_figures.render("32 * GB / model_states(1).total", "count", 1) == "2 billion"
    assert memory_figures.render("model_states(7e9).total", "GiB") == "104 GiB"


@pytest.mark.parametrize(
    "expr",
    [
        "__import__('os').system('true')",
        "model_states(1).__class__",
        "open('x')",
        "model_states(x).total",
        "model_states(1)",
        "[1][0]",
    ],
)
def test_figures_refuse_anything_else(expr: str) -> None:
    with pytest.raises(memory_figures.FigureError):
        memory_figures.evaluate(expr)


def test_bad_figure_warns(exercises: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mkdocs.course.figures"):
        html = render("It takes {{ memory: model_states(1.5e9).totl | GB }}.", exercises)
    assert "figure error" in html and caplog.records


def test_figure_in_a_table_cell(exercises: Path) -> None:
    html = render(
        "| a | b |\n|---|---|\n| x | {{ memory: model_states(1).total \\| number }} |", exercises
    )
    assert re.search(r"<td><span class=\"course-figure\"[^>]*>16</span></td>", html)


# --- the built lesson pages ----------------------------------------------------------------------


def page_text(built_site: Path, lesson: int) -> str:
    return (built_site / LESSON_PAGES[lesson]).read_text(encoding="utf-8")


def visible(html: str) -> str:
    html = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.mark.parametrize("lesson", [8, 11])
def test_lesson_page_order(built_site: Path, lesson: int) -> None:
    html = page_text(built_site, lesson)
    markers = [
        "Mission link",
        "Primary source",
        "Prerequisites",
        *[f">{s}<" for s in SECTIONS],
        "Not landing?",
        "Report a problem with this lesson",
    ]
    html = html.replace('href="#', "")  # the table of contents lists the sections first
    article = html[html.index('<article class="course-lesson"') :]
    positions = [article.find(m) for m in markers]
    assert -1 not in positions, dict(zip(markers, positions, strict=True))
    assert positions == sorted(positions)


@pytest.mark.parametrize("lesson", [8, 11])
def test_lesson_header(built_site: Path, lesson: int) -> None:
    html = page_text(built_site, lesson)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    report = config["extra"]["report_problem_url"]
    assert f'class="course-report" href="{report}"' in html
    assert f'href="{ZERO_PAPER_URL}"' in html
    assert "Rajbhandari et al." in html and "2019" in html
    text = visible(html)
    assert "Explain what ZeRO/FSDP shard, why data parallelism alone runs out of memory" in text
    assert 'href="../../#goal-4"' in html


def test_prerequisites_linked_only_when_published(built_site: Path) -> None:
    l8, l11 = page_text(built_site, 8), page_text(built_site, 11)
    assert re.search(r'<span class="[^"]*course-prereq--unpublished"[^>]*>Lesson 7</span>', l8)
    assert re.search(r'<span class="[^"]*course-prereq--unpublished"[^>]*>Lesson 10</span>', l11)
    glossary_published = (built_site / "glossary" / "index.html").exists()
    term = re.search(r'<(a|span)( href="([^"]*)")? class="course-prereq course-prereq--term"', l11)
    assert term is not None
    assert (term.group(1) == "a") == glossary_published
    if glossary_published:
        assert term.group(3) == "../../glossary/#activation-checkpointing"
    assert "Activation checkpointing" in visible(l11)


FIGURES_8 = [
    "16 bytes per parameter",
    "24 GB",
    "3 GB",
    "60 GB",
    "1.4B",
    "32 GB",
    "1.3B",
    "2 billion",
    "h = 1600",
    "L = 48",
    "s = 1024",
    "b = 32",
]
FIGURES_11 = [
    "60 GB",
    "24 GB",
    "Activation partitioning",
    "Right-sized temporary buffers",
    "Defragmentation",
    "CPU memory",
    "residual memory",
]


def test_lesson_figures(built_site: Path) -> None:
    l8 = visible(page_text(built_site, 8)).replace("\\(", "").replace("\\)", "")
    for figure in FIGURES_8:
        assert figure in l8, figure
    l11 = visible(page_text(built_site, 11))
    for figure in FIGURES_11:
        assert figure in l11, figure
    # the figures agree with the memory model (Principle 1)
    assert model_states(1.5e9).total == 24 * GB
    assert round(activations(hidden=1600, layers=48, seq=1024, batch=32).total / GB) == 60


def test_quotation_is_marked(built_site: Path) -> None:
    html = page_text(built_site, 8)
    quote = re.search(r"<blockquote>(.*?)</blockquote>", html, re.S)
    assert quote is not None
    assert "runs out of memory for models with more than 1.4B parameters" in " ".join(
        quote.group(1).split()
    )


@pytest.mark.parametrize("lesson", [8, 11])
def test_every_question_and_rep_has_a_checkbox(built_site: Path, lesson: int) -> None:
    [source] = [s for s in lessons(ROOT / "lessons") if s.number == lesson]
    tags = Elements(page_text(built_site, lesson))
    boxes = [a for a in tags.find("input") if "course-check" in a.get("class", "")]
    assert [b["data-item-id"] for b in boxes] == [i.id for i in source.items]
    assert len(boxes) == 9
    assert all(b["aria-label"].startswith("Done: ") and len(b["aria-label"]) > 8 for b in boxes)


# The multiple-choice options of the drafts (shared/seeds), as the page must show them.
DRAFT_OPTIONS = {
    8: [
        "Communication bandwidth between devices eventually saturates",
        "Every device holds a full, redundant copy of the same per-parameter memory cost",
        "The all-reduce operation itself consumes an amount of memory proportional to model size",
        "Larger models always produce larger gradients, which overflow fp16 representation",
    ],
    11: [
        "Checkpointing is incompatible with ZeRO-DP and cannot be used alongside it",
        "Even the reduced set of activations checkpointing keeps can still be large",
        "Checkpointing increases memory use in exchange for less compute",
        "Checkpointing only works for models trained without mixed precision",
    ],
}


@pytest.mark.parametrize("lesson", [8, 11])
def test_every_multiple_choice_option_of_the_draft(built_site: Path, lesson: int) -> None:
    text = visible(page_text(built_site, lesson))
    for option in DRAFT_OPTIONS[lesson]:
        assert option in text, option


def test_formulas_render_as_math(built_site: Path) -> None:
    html = page_text(built_site, 8)
    assert re.search(r'<span class="arithmatex">\\\(16\\Psi\\\)</span>', html)
    assert "vendor/katex/katex.min.js" in html and "assets/javascripts/math.js" in html
    l11 = page_text(built_site, 11)
    assert '<span class="arithmatex">\\((2+2+K)\\Psi/N_d\\)</span>' in l11


def test_progress_page_lists_lessons_from_the_build(built_site: Path) -> None:
    html = (built_site / "progress" / "index.html").read_text(encoding="utf-8")
    [page] = [a for t, a in Elements(html).tags if "data-lessons" in a]
    index = json.loads(page["data-lessons"])["lessons"]
    expected = [(s.number, [i.id for i in s.items]) for s in lessons(ROOT / "lessons")]
    assert [(e["lesson"], e["items"]) for e in index] == expected
    assert 'href="../stage-4/lesson-08/"' in html and 'href="../stage-5/lesson-11/"' in html


def test_no_inline_script_in_page_content(built_site: Path) -> None:
    """Material's instant navigation re-creates each inline <script> of the new page's content as
    a plain script (type, id and class dropped): data must travel in attributes instead."""
    for path in built_site.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        start, end = html.find("<article"), html.find("</article>")
        if start != -1:
            assert "<script" not in html[start:end], path

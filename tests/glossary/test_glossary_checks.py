"""The course checker's glossary check: term files, duplicate aliases, related terms, lessons."""

from __future__ import annotations

from pathlib import Path

from conftest import SMALL, write_glossary

from grader.course.check import CHECKS
from grader.glossary.checks import check_glossary
from grader.glossary.terms import load_glossary

ROOT = Path(__file__).resolve().parents[2]


def course(tmp_path: Path, terms: dict[str, dict], lesson_front: str = "") -> Path:
    write_glossary(tmp_path / "glossary", terms)
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    (lessons / "lesson-01.md").write_text(
        f"---\nlesson: 1\ntitle: One\n{lesson_front}---\n\n## Warm-up\n\nGradients.\n",
        encoding="utf-8",
    )
    return tmp_path


def rendered(root: Path) -> list[str]:
    return [p.render(root) for p in check_glossary(root)]


def test_registered_in_the_course_checker() -> None:
    assert check_glossary in CHECKS


def test_the_course_glossary_is_clean() -> None:
    assert rendered(ROOT) == []


def test_clean_small_glossary(tmp_path: Path) -> None:
    assert rendered(course(tmp_path, SMALL, "terms: [gradients, symbol-s]\n")) == []


def test_missing_definition_and_source(tmp_path: Path) -> None:
    terms = {**SMALL, "rank": {"term": "Rank", "related": ["zero"]}}
    out = rendered(course(tmp_path, terms))
    assert "glossary/rank.yaml:1: missing 'short' definition (one sentence for tooltips)" in out
    assert "glossary/rank.yaml:1: missing 'source' (the publication the definition rests on)" in out


def test_blank_definition_points_at_its_line(tmp_path: Path) -> None:
    terms = {**SMALL, "rank": {"term": "Rank", "short": " ", "source": "A book"}}
    out = rendered(course(tmp_path, terms))
    assert out == ["glossary/rank.yaml:2: missing 'short' definition (one sentence for tooltips)"]


def test_unknown_related_term(tmp_path: Path) -> None:
    terms = {**SMALL, "zero": {**SMALL["zero"], "related": ["zero-dp", "zero-r"]}}
    out = rendered(course(tmp_path, terms))
    line = (tmp_path / "glossary/zero.yaml").read_text().splitlines().index("- zero-r") + 1
    assert out == [f"glossary/zero.yaml:{line}: related term 'zero-r' does not exist in glossary/"]


def test_duplicate_alias_across_terms(tmp_path: Path) -> None:
    terms = {
        **SMALL,
        "zero-dp": {**SMALL["zero-dp"], "aliases": ["sharded DP", "Data-Parallel"]},
    }
    out = rendered(course(tmp_path, terms))
    assert len(out) == 1
    assert out[0].startswith("glossary/zero-dp.yaml:")
    assert "duplicate alias 'Data-Parallel': term 'data-parallelism' already uses" in out[0]


def test_alias_repeated_within_a_term(tmp_path: Path) -> None:
    terms = {**SMALL, "zero": {**SMALL["zero"], "aliases": ["zero redundancy", "ZeRO"]}}
    out = rendered(course(tmp_path, terms))
    line = (tmp_path / "glossary/zero.yaml").read_text().splitlines().index("- ZeRO") + 1
    assert out == [f"glossary/zero.yaml:{line}: alias 'ZeRO' repeats a name of this term"]


def test_lesson_names_unknown_term(tmp_path: Path) -> None:
    root = course(tmp_path, SMALL, "terms:\n  - gradients\n  - zero-r\n")
    assert rendered(root) == [
        "lessons/lesson-01.md:6: glossary term 'zero-r' does not exist (no glossary/zero-r.yaml)"
    ]


def test_malformed_yaml_and_bad_id(tmp_path: Path) -> None:
    root = course(tmp_path, SMALL)
    (root / "glossary" / "Bad_Name.yaml").write_text(
        "term: X\nshort: y\nsource: z\n", encoding="utf-8"
    )
    (root / "glossary" / "broken.yaml").write_text("term: [unclosed\n", encoding="utf-8")
    out = rendered(root)
    assert any(o.startswith("glossary/Bad_Name.yaml:1: term id 'Bad_Name'") for o in out)
    assert any(o.startswith("glossary/broken.yaml:") and "not valid YAML" in o for o in out)


def test_load_keeps_good_terms_next_to_bad_ones(tmp_path: Path) -> None:
    folder = write_glossary(tmp_path / "glossary", {**SMALL, "rank": {"term": "Rank"}})
    glossary = load_glossary(folder)
    assert "zero" in glossary and "rank" in glossary
    assert glossary.problems

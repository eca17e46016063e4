"""The `pycell` fence (grader/course/cells.py): rendering, option errors, extraction, the check."""

from __future__ import annotations

from pathlib import Path

import markdown
import pytest
from pymdownx.superfences import SuperFencesException

from grader.course import cells

ROOT = Path(__file__).resolve().parents[2]


def render(text: str) -> str:
    md = markdown.Markdown(
        extensions=["admonition", "pymdownx.superfences"],
        extension_configs={
            "pymdownx.superfences": {
                "custom_fences": [
                    {
                        "name": "pycell",
                        "class": "pycell",
                        "validator": cells.validate,
                        "format": cells.format_cell,
                    }
                ]
            }
        },
    )
    return md.convert(text)


def test_fence_renders_a_cell_with_its_source_escaped() -> None:
    html = render('```pycell id="demo" title="A <b>cell</b>"\nif a < b:\n    print("&")\n```\n')
    assert '<div class="pycell" id="cell-demo" data-cell-id="demo">' in html
    assert '<span class="pycell-title">A &lt;b&gt;cell&lt;/b&gt;</span>' in html
    assert 'if a &lt; b:\n    print("&amp;")' in html


def test_fence_inside_an_admonition_loses_only_the_admonitions_indentation() -> None:
    html = render(
        '!!! note\n    ```pycell id="x"\n    for i in range(2):\n        print(i)\n    ```\n'
    )
    assert "<code>for i in range(2):\n    print(i)</code>" in html


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("```pycell", "every cell needs an id"),
        ('```pycell id="Bad Id"', "must be lowercase"),
        ('```pycell id="x" autorun="yes"', "unknown option(s) autorun"),
    ],
)
def test_bad_options_stop_the_build_with_a_clear_message(header: str, message: str) -> None:
    with pytest.raises(SuperFencesException, match=message.replace("(", r"\(").replace(")", r"\)")):
        render(f"{header}\nprint(1)\n```\n")


def test_extract_cells_returns_the_exact_source_and_section(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# T\n\n## Know this\n\n"
        '```pycell id="a" title="First"\nx = 1\n\nprint(x)\n```\n\n'
        "## Practice\n\n"
        "- item\n\n"
        "    ````pycell id='b'\n    ```\n    y = 2\n    ````\n"
    )
    found = cells.extract_cells(page)
    assert [(c.id, c.title, c.section, c.line) for c in found] == [
        ("a", "First", "Know this", 5),
        ("b", None, "Practice", 15),
    ]
    assert found[0].source == "x = 1\n\nprint(x)"
    assert found[1].source == "```\ny = 2"


def test_extract_cells_reports_file_and_line(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text('text\n\n```pycell title="no id"\nx\n```\n')
    with pytest.raises(cells.CellError) as info:
        cells.extract_cells(page)
    assert info.value.line == 3 and "needs an id" in info.value.message
    page.write_text('```pycell id="a"\nx = 1\n')
    with pytest.raises(cells.CellError, match="never closed"):
        cells.extract_cells(page)


def test_course_check_finds_duplicate_ids_and_syntax_errors(tmp_path: Path) -> None:
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    (lessons / "a.md").write_text('```pycell id="a"\nx = 1\n```\n\n```pycell id="a"\nx = (\n```\n')
    problems = cells.check_cells(tmp_path)
    messages = sorted((p.line, p.message) for p in problems)
    assert messages[0] == (5, "pycell id 'a' already used on line 1")
    assert messages[1][0] == 6 and "pycell a:" in messages[1][1]


def test_course_lessons_pass_the_cell_check() -> None:
    assert cells.check_cells(ROOT) == []

"""The generated glossary page and the 'Used in' lists computed from the lessons."""

from __future__ import annotations

import re
from pathlib import Path

import markdown

from grader.glossary.extension import GlossaryExtension
from grader.glossary.forms import TermMatcher
from grader.glossary.page import glossary_markdown
from grader.glossary.terms import load_glossary
from grader.glossary.usage import lesson_usage, split_prose

LESSON_8 = """---
lesson: 8
title: Lesson Eight
terms: [symbol-psi]
---

## Know this

Data parallelism keeps $16\\Psi$ bytes. `ZeRO` in code does not count.

```python
activations = 1
```
"""

LESSON_11 = """---
lesson: 11
title: Lesson Eleven
prerequisites:
  - lesson: 10
  - term: activation-checkpointing
---

The gradients and the sequence length $s$ of a [batch size](https://example.org) link.
"""


def write_lessons(docs: Path) -> Path:
    (docs / "stage-4").mkdir(parents=True)
    (docs / "stage-5").mkdir(parents=True)
    (docs / "stage-4" / "lesson-08.md").write_text(LESSON_8, encoding="utf-8")
    (docs / "stage-5" / "lesson-11.md").write_text(LESSON_11, encoding="utf-8")
    (docs / "index.md").write_text("# Home\n\nZeRO and gradients.\n", encoding="utf-8")
    return docs


def usage_labels(glossary_dir: Path, docs: Path) -> dict[str, list[str]]:
    glossary = load_glossary(glossary_dir)
    usage = lesson_usage(docs, glossary, TermMatcher(glossary))
    return {term_id: [ref.label for ref in refs] for term_id, refs in usage.items() if refs}


def test_usage_is_computed_from_prose_front_matter_and_formulas(
    small_glossary: Path, tmp_path: Path
) -> None:
    docs = write_lessons(tmp_path / "lessons")
    assert usage_labels(small_glossary, docs) == {
        "data-parallelism": ["Lesson 8: Lesson Eight"],  # prose
        "symbol-psi": ["Lesson 8: Lesson Eight"],  # front matter terms (and $16\Psi$)
        "activation-checkpointing": ["Lesson 11: Lesson Eleven"],  # a prerequisite
        "gradients": ["Lesson 11: Lesson Eleven"],  # not index.md: not a lesson
        "symbol-s": ["Lesson 11: Lesson Eleven"],  # the letter inside a formula
        "batch-size": ["Lesson 11: Lesson Eleven"],  # a link's text is prose, its address not
    }  # not ZeRO (inline code) nor activations (code block)


def test_split_prose_removes_code_math_and_link_targets() -> None:
    prose, math = split_prose(
        "A `ZeRO` b $K\\Psi$ c [text](https://x.org/zero) <!-- FSDP -->\n::: exercise x\n"
    )
    assert "ZeRO" not in prose and "FSDP" not in prose and "x.org" not in prose
    assert "text" in prose and "exercise" not in prose
    assert "K\\Psi" in math


def test_page_markdown_is_alphabetical_with_anchors_and_symbols_last(
    small_glossary: Path,
) -> None:
    glossary = load_glossary(small_glossary)
    lines = glossary_markdown(glossary, {}, "glossary.md")
    headings = [line for line in lines if line.startswith("### ")]
    ids = [re.search(r"\{ #([a-z0-9-]+) ", h)[1] for h in headings]
    assert ids == [
        "activation-checkpointing",
        "activations",
        "all-reduce",
        "batch-size",
        "data-parallelism",
        "gradients",
        "zero",
        "zero-dp",
        "symbol-psi",
        "symbol-s",
    ]
    letters = [line for line in lines if line.startswith("## ")]
    assert [line.split()[1] for line in letters] == ["A", "B", "D", "G", "Z", "Symbols"]


def test_directive_expands_into_entries_with_lesson_links(
    small_glossary: Path, tmp_path: Path
) -> None:
    docs = write_lessons(tmp_path / "lessons")
    md = markdown.Markdown(
        extensions=[
            "attr_list",
            "toc",
            GlossaryExtension(glossary_dir=str(small_glossary), docs_dir=str(docs)),
        ]
    )
    html = md.convert("# Glossary\n\nIntro about ZeRO.\n\n::: glossary\n")
    assert '<h3 class="glossary-entry" id="zero">ZeRO</h3>' in html
    assert '<h3 class="glossary-entry" id="symbol-s">s — sequence length</h3>' in html
    assert (
        '<strong>Used in:</strong> <a href="stage-4/lesson-08.md">Lesson 8: Lesson Eight</a>'
        in html
    )
    assert '<strong>Related:</strong> <a href="#zero-dp">ZeRO-DP</a>' in html
    # The glossary page does not link terms to itself.
    assert "data-glossary-term" not in html

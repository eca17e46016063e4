"""The treeprocessor: first use only, never inside code, math, headings or links."""

from __future__ import annotations

import re
from collections.abc import Callable

Render = Callable[[str], str]
LINK_RE = re.compile(r'<a [^>]*data-glossary-term="(?P<id>[^"]+)"[^>]*>(?P<text>.*?)</a>', re.S)


def links(html: str) -> list[tuple[str, str]]:
    return [(m["id"], m["text"]) for m in LINK_RE.finditer(html)]


def test_first_use_only(render: Render) -> None:
    html = render(
        "Data parallelism copies the model.\n\n"
        "With data parallelism each device holds everything; data parallelism again."
    )
    assert links(html) == [("data-parallelism", "Data parallelism")]


def test_link_carries_href_class_and_definition(render: Render) -> None:
    html = render("Use ZeRO.")
    assert (
        '<a class="glossary-term" data-glossary-def="The Zero Redundancy Optimizer." '
        'data-glossary-term="zero" href="glossary.html#zero">ZeRO</a>'
    ) in html


def test_text_around_links_is_kept(render: Render) -> None:
    html = render("Before ZeRO, between, gradients after.")
    assert re.sub(r"<[^>]+>", "", html) == "Before ZeRO, between, gradients after."
    assert links(html) == [("zero", "ZeRO"), ("gradients", "gradients")]


def test_not_inside_inline_code_or_code_blocks(render: Render) -> None:
    html = render(
        "`ZeRO` here.\n\n```python\nzero = 'ZeRO'\n```\n\n    ZeRO indented\n\nThen ZeRO."
    )
    assert links(html) == [("zero", "ZeRO")]
    assert "<code>ZeRO</code>" in html
    assert html.index('data-glossary-term="zero"') > html.index("Then")


def test_not_inside_math(render: Render) -> None:
    html = render(r"Memory $s \cdot \text{batch size}$ grows.  Then the batch size.")
    assert links(html) == [("batch-size", "batch size")]
    assert html.index('data-glossary-term="batch-size"') > html.index("Then")


def test_not_inside_headings(render: Render) -> None:
    html = render("## Gradients and ZeRO\n\nThe gradients.")
    assert links(html) == [("gradients", "gradients")]
    assert '<h2 id="gradients-and-zero">Gradients and ZeRO</h2>' in html


def test_not_inside_existing_links(render: Render) -> None:
    html = render("[ZeRO paper](https://arxiv.org/abs/1910.02054), then ZeRO.")
    assert links(html) == [("zero", "ZeRO")]
    assert '<a href="https://arxiv.org/abs/1910.02054">ZeRO paper</a>' in html


def test_links_inside_emphasis_and_lists(render: Render) -> None:
    html = render("- **Gradients** first\n- then *ZeRO-DP*")
    assert links(html) == [("gradients", "Gradients"), ("zero-dp", "ZeRO-DP")]


def test_aliases_count_as_the_term(render: Render) -> None:
    html = render("Gradient checkpointing saves memory. Activation checkpointing too.")
    assert links(html) == [("activation-checkpointing", "Gradient checkpointing")]


def test_plural_and_singular(render: Render) -> None:
    assert links(render("Two all-reduces.")) == [("all-reduce", "all-reduces")]
    assert links(render("One gradient.")) == [("gradients", "gradient")]
    assert links(render("Larger batch sizes.")) == [("batch-size", "batch sizes")]


def test_case(render: Render) -> None:
    # Ordinary words in any case; ZeRO only as written ("zero" is a number).
    assert links(render("DATA PARALLELISM")) == [("data-parallelism", "DATA PARALLELISM")]
    assert links(render("zero bytes, Zero bytes, ZERO bytes")) == []


def test_whole_words_and_longest_form(render: Render) -> None:
    assert links(render("ZeRO-DP first")) == [("zero-dp", "ZeRO-DP")]
    assert links(render("16-bytes-per-gradient and zero-gradients")) == []
    assert links(render("activation checkpointing")) == [
        ("activation-checkpointing", "activation checkpointing")
    ]


def test_symbols_are_not_linked_in_prose(render: Render) -> None:
    assert links(render("a s Ψ of s")) == []


def test_explicit_glossary_link_is_the_first_use(render: Render) -> None:
    html = render("See [the ZeRO entry](glossary.md#zero). Later ZeRO.")
    assert links(html) == [("zero", "the ZeRO entry")]
    assert 'class="glossary-term"' in html and 'href="glossary.md#zero"' in html


def test_opt_out_marker(render: Render) -> None:
    html = render('<div data-glossary="off" markdown="1">\nZeRO inside\n</div>\n\nZeRO after')
    assert links(html) == [("zero", "ZeRO")]
    assert "ZeRO</a> after" in html
    assert "<p>ZeRO inside</p>" in html


def test_first_use_counts_across_the_whole_page_in_order(render: Render) -> None:
    html = render("# Title\n\nFirst *gradients*.\n\n> A quote about gradients and ZeRO.")
    assert links(html) == [("gradients", "gradients"), ("zero", "ZeRO")]


def test_not_inside_exercises(render: Render) -> None:
    """A tooltip inside a question could give its answer away: exercises are never linked."""
    html = render(
        '<div class="course-item exercise" markdown="1">\n\n'
        "Which stage inspired ZeRO?\n\n</div>\n\n"
        "Later, ZeRO."
    )
    assert links(html) == [("zero", "ZeRO")]
    assert html.index('data-glossary-term="zero"') > html.index("Later")

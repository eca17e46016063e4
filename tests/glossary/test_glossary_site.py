"""The glossary in the built site: coverage of the lessons' terms, the page, links, search."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from grader.glossary.terms import load_glossary

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = load_glossary(ROOT / "glossary")

# Every term the drafts of Lessons 8 and 11 use (issue 7, point 3), by id.
REQUIRED_TERMS = [
    "data-parallelism", "all-reduce", "model-states", "mixed-precision-training", "adam",
    "adam-momentum", "adam-variance", "fp16", "bf16", "fp32", "optimizer-state", "gradients",
    "parameters", "zero", "zero-dp", "zero-stage-1", "zero-stage-2", "zero-stage-3", "zero-r",
    "fsdp", "activations", "activation-checkpointing", "residual-memory", "temporary-buffers",
    "memory-fragmentation", "activation-partitioning", "cpu-offload", "model-parallelism",
    "tensor-parallelism", "pipeline-parallelism", "sequence-length", "batch-size",
]  # fmt: skip

# The symbols of the course's formulas and what each stands for (ZeRO paper; Korthikanti et
# al. 2022, Table 1; Narayanan et al. 2021 for m).
SYMBOLS = {
    "symbol-psi": ("Ψ", "number of parameters"),
    "symbol-k": ("K", "optimizer-state multiplier"),
    "symbol-n-d": ("N_d", "data-parallel degree"),
    "symbol-s": ("s", "sequence length"),
    "symbol-b": ("b", "micro-batch size"),
    "symbol-h": ("h", "hidden size"),
    "symbol-l": ("L", "number of layers"),
    "symbol-a": ("a", "number of attention heads"),
    "symbol-t": ("t", "tensor-parallel size"),
    "symbol-p": ("p", "pipeline-parallel size"),
    "symbol-m": ("m", "number of micro-batches"),
}


class Links(HTMLParser):
    """Collects the ids and the glossary links of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.h3_ids: list[str] = []
        self.terms: list[dict[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.append(a["id"])
            if tag == "h3":
                self.h3_ids.append(a["id"])
        if tag == "a" and "glossary-term" in a.get("class", "").split():
            self.terms.append(a)


def parse(path: Path) -> Links:
    parser = Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_every_required_term_exists() -> None:
    assert [t for t in REQUIRED_TERMS if t not in GLOSSARY] == []
    assert "gradient checkpointing" in GLOSSARY["activation-checkpointing"].aliases


def test_symbols_and_their_meanings() -> None:
    for term_id, (letter, meaning) in SYMBOLS.items():
        term = GLOSSARY[term_id]
        assert (term.symbol, term.term, term.name) == (True, letter, meaning), term_id
    assert "= 12" in GLOSSARY["symbol-k"].short  # K = 12 for mixed-precision Adam
    # Letters with a second meaning in another source say so.
    for term_id in ("symbol-k", "symbol-m", "symbol-t", "symbol-p"):
        assert GLOSSARY[term_id].other_meanings, term_id


def test_every_term_has_a_sourced_one_sentence_definition() -> None:
    for term in GLOSSARY.terms.values():
        assert term.sources and term.short.endswith("."), term.id
        assert term.short.count(". ") == 0 or term.symbol, f"{term.id}: one sentence"


def test_glossary_page_has_every_entry_alphabetically(built_site: Path) -> None:
    page = parse(built_site / "glossary" / "index.html")
    assert page.h3_ids == [t.id for t in GLOSSARY.sorted_terms() if not t.symbol] + [
        t.id for t in GLOSSARY.sorted_terms() if t.symbol
    ]
    words = [t.term.casefold() for t in GLOSSARY.sorted_terms() if not t.symbol and not t.sort_as]
    assert words == sorted(words)


def test_used_in_lists_the_lessons(built_site: Path) -> None:
    html = (built_site / "glossary" / "index.html").read_text(encoding="utf-8")

    def used_in(term_id: str) -> str:
        entry = html[html.index(f'id="{term_id}"') :]
        return entry[entry.index("Used in:") : entry.index("</p>", entry.index("Used in:"))]

    assert '"../stage-5/lesson-11/"' in used_in("activation-checkpointing")
    assert '"../stage-4/lesson-08/"' not in used_in("activation-checkpointing")
    both = used_in("residual-memory")
    assert '"../stage-4/lesson-08/"' in both and '"../stage-5/lesson-11/"' in both
    assert '"../stage-4/lesson-08/"' in used_in("symbol-psi")  # $16\Psi$ in Lesson 8


@pytest.mark.parametrize("lesson", ["stage-4/lesson-08", "stage-5/lesson-11"])
def test_lessons_link_each_term_once_to_an_existing_entry(built_site: Path, lesson: str) -> None:
    page = parse(built_site / lesson / "index.html")
    entries = set(parse(built_site / "glossary" / "index.html").ids)
    ids = [a["data-glossary-term"] for a in page.terms]
    assert len(ids) >= 15
    assert len(ids) == len(set(ids))  # first use only
    for a in page.terms:
        assert a["href"] == f"../../glossary/#{a['data-glossary-term']}"
        assert a["href"].rsplit("#", 1)[1] in entries
        assert a["data-glossary-def"] == GLOSSARY[a["data-glossary-term"]].short
    if lesson.endswith("08"):
        assert {"data-parallelism", "adam", "model-states", "fp16", "activations"} <= set(ids)
    else:
        assert {"zero-r", "activation-checkpointing", "residual-memory"} <= set(ids)


def test_site_search_finds_entries(built_site: Path) -> None:
    index = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    docs = {d["location"]: d for d in index["docs"]}
    for term_id in ("activation-checkpointing", "zero-r", "symbol-n-d"):
        assert f"glossary/#{term_id}" in docs
    entry = docs["glossary/#activation-checkpointing"]
    assert entry["title"] == "Activation checkpointing"
    # An alias finds the entry too: the search matches the section's text.
    hits = [loc for loc, d in docs.items() if re.search("gradient checkpointing", d["text"], re.I)]
    assert "glossary/#activation-checkpointing" in hits

"""The surface forms of terms: plurals, case rules, whole words, longest match."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.glossary.forms import TermMatcher, is_case_sensitive, number_variants
from grader.glossary.terms import load_glossary


@pytest.mark.parametrize(
    ("form", "variants"),
    [
        ("gradient", ["gradients"]),
        ("gradients", ["gradient"]),
        ("batch size", ["batch sizes"]),
        ("all-reduce", ["all-reduces"]),
        ("micro-batch", ["micro-batches"]),
        ("memory", ["memories"]),
        ("mixed-precision training", []),  # -ing words stay as they are
        ("ZeRO", []),  # acronyms have no plural here
        ("fp16", []),
        ("bias", []),  # not a plural
    ],
)
def test_number_variants(form: str, variants: list[str]) -> None:
    assert number_variants(form) == variants


def test_case_rule() -> None:
    assert is_case_sensitive("ZeRO") and is_case_sensitive("FSDP") and is_case_sensitive("CPU x")
    assert not is_case_sensitive("Adam") and not is_case_sensitive("data parallelism")


def test_matcher_rules(small_glossary: Path) -> None:
    matcher = TermMatcher(load_glossary(small_glossary))
    found = [(m.term_id, m.text) for m in matcher.finditer(
        "ZeRO-DP and ZeRO, not zero; Data Parallelism, data-parallel, gradients, "
        "activation checkpointing beats activations; 16-bytes-per-gradient; s and a"
    )]
    assert found == [
        ("zero-dp", "ZeRO-DP"),  # longest form, and ZeRO does not match inside it
        ("zero", "ZeRO"),
        ("data-parallelism", "Data Parallelism"),  # any case for ordinary words
        ("data-parallelism", "data-parallel"),
        ("gradients", "gradients"),
        ("activation-checkpointing", "activation checkpointing"),
        ("activations", "activations"),
    ]  # "zero" is not ZeRO, "gradient" inside a hyphenated word is not, symbols never


def test_matcher_spans_line_breaks(small_glossary: Path) -> None:
    matcher = TermMatcher(load_glossary(small_glossary))
    assert matcher.term_ids("a batch\nsize of 32") == {"batch-size"}

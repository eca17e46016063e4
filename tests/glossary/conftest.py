"""Fixtures for the glossary tests: small glossaries written to a temporary folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import markdown
import pytest
import yaml

from grader.glossary.extension import GlossaryExtension

SOURCE = {"cite": "A paper, 2020", "url": "https://example.org/paper"}

# A small glossary that exercises every linking rule.
SMALL: dict[str, dict] = {
    "data-parallelism": {
        "term": "Data parallelism",
        "aliases": ["data-parallel"],
        "short": "Every device holds a full copy of the model.",
        "source": SOURCE,
        "related": ["zero"],
    },
    "zero": {
        "term": "ZeRO",
        "short": "The Zero Redundancy Optimizer.",
        "source": SOURCE,
        "related": ["zero-dp"],
    },
    "zero-dp": {"term": "ZeRO-DP", "short": "ZeRO's data-parallel half.", "source": SOURCE},
    "activations": {"term": "Activations", "short": "Values kept for backward.", "source": SOURCE},
    "activation-checkpointing": {
        "term": "Activation checkpointing",
        "aliases": ["gradient checkpointing"],
        "short": "Recompute activations in the backward pass.",
        "source": SOURCE,
    },
    "gradients": {"term": "Gradients", "short": "Derivatives of the loss.", "source": SOURCE},
    "batch-size": {"term": "Batch size", "short": "Samples per step.", "source": SOURCE},
    "all-reduce": {"term": "All-reduce", "short": "Sum everywhere.", "source": SOURCE},
    "symbol-s": {
        "term": "s",
        "symbol": True,
        "name": "sequence length",
        "short": "s is the sequence length.",
        "source": SOURCE,
        "math": ["s"],
    },
    "symbol-psi": {
        "term": "Ψ",
        "symbol": True,
        "name": "number of parameters",
        "short": "Ψ is the number of parameters.",
        "source": SOURCE,
        "math": ["\\Psi", "Ψ"],
        "sort_as": "psi",
    },
}


def write_glossary(folder: Path, terms: dict[str, dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for term_id, data in terms.items():
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
        (folder / f"{term_id}.yaml").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture()
def small_glossary(tmp_path: Path) -> Path:
    return write_glossary(tmp_path / "glossary", SMALL)


@pytest.fixture()
def render(small_glossary: Path) -> Callable[[str], str]:
    """Markdown -> HTML with the extensions the course uses around the glossary's."""

    def _render(text: str) -> str:
        md = markdown.Markdown(
            extensions=[
                "attr_list",
                "md_in_html",
                "toc",
                "abbr",
                "pymdownx.superfences",
                "pymdownx.arithmatex",
                GlossaryExtension(
                    glossary_dir=str(small_glossary),
                    docs_dir=str(small_glossary.parent / "lessons"),
                    fallback_url="glossary.html",
                ),
            ],
            extension_configs={"pymdownx.arithmatex": {"generic": True}},
        )
        return md.convert(text)

    return _render

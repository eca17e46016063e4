"""The surface forms of glossary terms and the matcher that finds them in prose.

Rules (the same for linking and for counting which lessons use a term):

- A term is found by its name and its aliases, and by each of those with its last word's plural
  or singular ("gradient" ↔ "gradients", "batch size" → "batch sizes", "activations" →
  "activation"; words ending in "-ing" and forms ending in a digit or capital are left as is).
- Case: a form with a capital letter after its first character ("ZeRO", "FSDP", "CPU offload")
  matches only as written, so "zero" the number is never ZeRO; every other form matches in any
  case ("Data parallelism" = "data parallelism").
- A match is a whole word: not preceded by a letter or '-', not followed by a letter, digit,
  '_' or '-' ("ZeRO" does not match inside "ZeRO-DP", "parameter" not inside
  "16-bytes-per-parameter").
- At one position the longest form wins ("activation checkpointing" over "activations").
- A symbol's own letter (``symbol: true``) is never matched in prose: "a", "s", "t" are English
  words. Terms with ``autolink: false`` are not matched either.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from grader.glossary.terms import Glossary, Term

_VOWELS = set("aeiou")


def is_case_sensitive(form: str) -> bool:
    """True when a form carries capitals after its first character (an acronym or a name)."""
    return any(ch.isupper() for ch in form[1:])


def number_variants(form: str) -> list[str]:
    """The form with its last word's plural (or singular) added, when the rules allow one."""
    head, _, last = form.rpartition(" ")
    prefix = f"{head} " if head else ""
    letters = last.replace("-", "")
    if not letters.isalpha() or not letters.islower() or len(letters) < 3 or last.endswith("ing"):
        return []
    if last.endswith(("ss", "x", "ch", "sh")):
        return [prefix + last + "es"]
    if last.endswith(("us", "is", "as")):
        return []
    if last.endswith("s"):
        return [prefix + last[:-1]]
    if last.endswith("y") and last[-2] not in _VOWELS:
        return [prefix + last[:-1] + "ies"]
    return [prefix + last + "s"]


def term_forms(term: Term) -> list[str]:
    """Every form under which ``term`` is linked in prose (empty when it is never autolinked)."""
    if not term.autolink:
        return []
    names = list(term.aliases) if term.symbol else [term.term, *term.aliases]
    forms: list[str] = []
    for name in names:
        # "Gradients" matches in any case, so its singular is that of "gradients".
        variants = number_variants(name if is_case_sensitive(name) else name.lower())
        for form in (name, *variants):
            if form not in forms:
                forms.append(form)
    return forms


@dataclass(frozen=True)
class Match:
    """One occurrence of a term in a text."""

    term_id: str
    start: int
    end: int
    text: str


class TermMatcher:
    """Finds the forms of every autolinked term of a glossary in a text."""

    def __init__(self, glossary: Glossary) -> None:
        self._exact: dict[str, str] = {}  # case-sensitive form -> term id
        self._folded: dict[str, str] = {}  # casefolded form -> term id
        alternatives: list[tuple[int, str]] = []
        for term in glossary.sorted_terms():
            for form in term_forms(term):
                sensitive = is_case_sensitive(form)
                table, key = (self._exact, form) if sensitive else (self._folded, form.casefold())
                if key in table:
                    continue  # a duplicate alias: the validation reports it, the first one wins
                table[key] = term.id
                escaped = re.escape(form).replace(r"\ ", r"\s+")
                alternatives.append((len(form), escaped if sensitive else f"(?i:{escaped})"))
        alternatives.sort(key=lambda item: -item[0])
        self._regex: re.Pattern[str] | None = None
        if alternatives:
            body = "|".join(pattern for _, pattern in alternatives)
            self._regex = re.compile(rf"(?<![^\W\d])(?<!-)(?:{body})(?![\w-])")

    def term_of(self, text: str) -> str | None:
        """The term id a matched text belongs to."""
        normalized = " ".join(text.split())
        return self._exact.get(normalized) or self._folded.get(normalized.casefold())

    def finditer(self, text: str) -> Iterator[Match]:
        """Every non-overlapping occurrence, left to right, longest form first at a position."""
        if self._regex is None:
            return
        for m in self._regex.finditer(text):
            term_id = self.term_of(m.group(0))
            if term_id is not None:
                yield Match(term_id, m.start(), m.end(), m.group(0))

    def term_ids(self, text: str) -> set[str]:
        return {m.term_id for m in self.finditer(text)}

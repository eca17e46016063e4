"""Loading glossary term files: ``glossary/<id>.yaml``, one term a file.

A term file holds::

    term: Activation checkpointing          # the name shown as the entry's heading
    aliases: [gradient checkpointing]       # other names, linked like the term itself
    short: One sentence, shown in tooltips.
    long: A longer explanation in Markdown.
    source:                                 # one mapping or a list of them
      cite: Chen, Xu, Zhang, Guestrin. Training Deep Nets with Sublinear Memory Cost. 2016
      url: https://arxiv.org/abs/1604.06174
      where: Section 3
    related: [activations, residual-memory] # ids of other terms
    symbol: false                           # true for a formula symbol such as Ψ or N_d
    name: ...                               # symbols only: what the letter stands for
    math: [\\Psi, Ψ]                        # symbols only: spellings found inside formulas
    other_meanings: [...]                   # symbols only: the same letter elsewhere
    sort_as: psi                            # optional alphabetical key

The id of a term is its file name without ``.yaml``; it is also the anchor of its entry on the
glossary page. Loading never raises on a bad file: it records a :class:`FileProblem` with the
line it concerns and keeps every term it could read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

TERM_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
KNOWN_KEYS = frozenset(
    {
        "term",
        "aliases",
        "short",
        "long",
        "source",
        "related",
        "symbol",
        "name",
        "math",
        "other_meanings",
        "sort_as",
        "autolink",
    }
)


@dataclass(frozen=True)
class FileProblem:
    """Something wrong in a file, at a 1-based line."""

    path: Path
    line: int
    message: str


@dataclass(frozen=True)
class Source:
    """What a definition rests on: a citation, an address and where in it."""

    cite: str
    url: str = ""
    where: str = ""


@dataclass
class Term:
    """One glossary entry, as read from its file."""

    id: str
    term: str
    short: str
    long: str = ""
    aliases: tuple[str, ...] = ()
    sources: tuple[Source, ...] = ()
    related: tuple[str, ...] = ()
    symbol: bool = False
    name: str = ""
    math: tuple[str, ...] = ()
    other_meanings: tuple[str, ...] = ()
    sort_as: str = ""
    autolink: bool = True
    path: Path | None = None
    lines: dict[str, int] = field(default_factory=dict)  # key or "aliases[0]" -> line

    @property
    def sort_key(self) -> str:
        return (self.sort_as or self.term).casefold()

    @property
    def heading(self) -> str:
        """The entry's heading: the term, and for a symbol what it stands for."""
        return f"{self.term} — {self.name}" if self.symbol and self.name else self.term

    def line_of(self, key: str) -> int:
        return self.lines.get(key, self.lines.get("", 1))


@dataclass
class Glossary:
    """Every term that loaded, by id, and the problems met while loading."""

    terms: dict[str, Term] = field(default_factory=dict)
    problems: list[FileProblem] = field(default_factory=list)

    def sorted_terms(self) -> list[Term]:
        return sorted(self.terms.values(), key=lambda t: (t.sort_key, t.id))

    def __contains__(self, term_id: object) -> bool:
        return term_id in self.terms

    def __getitem__(self, term_id: str) -> Term:
        return self.terms[term_id]


def _node_lines(node: yaml.Node) -> dict[str, int]:
    """Line numbers (1-based) of each top-level key and of each list item, from a YAML node."""
    lines: dict[str, int] = {"": node.start_mark.line + 1}
    if not isinstance(node, yaml.MappingNode):
        return lines
    for key_node, value_node in node.value:
        key = str(key_node.value)
        lines[key] = key_node.start_mark.line + 1
        if isinstance(value_node, yaml.SequenceNode):
            for i, item in enumerate(value_node.value):
                lines[f"{key}[{i}]"] = item.start_mark.line + 1
    return lines


def _strings(value: Any) -> tuple[str, ...] | None:
    """A list of non-empty strings (a single string counts as one), or None when malformed."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        return None
    return tuple(v.strip() for v in value)


def _sources(value: Any) -> tuple[Source, ...] | None:
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    sources: list[Source] = []
    for item in items:
        if isinstance(item, str) and item.strip():
            sources.append(Source(item.strip()))
        elif isinstance(item, dict) and isinstance(item.get("cite"), str) and item["cite"].strip():
            url, where = item.get("url", ""), item.get("where", "")
            if not isinstance(url, str) or not isinstance(where, str):
                return None
            sources.append(Source(item["cite"].strip(), url.strip(), where.strip()))
        else:
            return None
    return tuple(sources)


def read_term(path: Path, text: str | None = None) -> tuple[Term | None, list[FileProblem]]:
    """Read one term file; return the term (None when unusable) and the problems found."""
    problems: list[FileProblem] = []

    def problem(line: int, message: str) -> None:
        problems.append(FileProblem(path, line, message))

    term_id = path.stem
    if not TERM_ID_RE.match(term_id):
        problem(1, f"term id {term_id!r} (the file name) must be lowercase letters, digits, '-'")
    try:
        if text is None:
            text = path.read_text(encoding="utf-8")
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except (OSError, UnicodeDecodeError) as exc:
        problem(1, f"cannot read term file: {exc}")
        return None, problems
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem(mark.line + 1 if mark else 1, f"not valid YAML: {exc}")
        return None, problems
    if not isinstance(data, dict) or node is None:
        problem(1, "a term file must be a YAML mapping (term, short, long, source, ...)")
        return None, problems
    lines = _node_lines(node)
    for key in data:
        if key not in KNOWN_KEYS:
            problem(lines.get(str(key), 1), f"unknown key {key!r} (known: {sorted(KNOWN_KEYS)})")

    name = data.get("term")
    if not isinstance(name, str) or not name.strip():
        problem(lines.get("term", 1), "missing 'term' (the name of the entry)")
        name = term_id
    short = data.get("short")
    if not isinstance(short, str) or not short.strip():
        problem(lines.get("short", 1), "missing 'short' definition (one sentence for tooltips)")
        short = ""
    long = data.get("long", "")
    if not isinstance(long, str):
        problem(lines.get("long", 1), "'long' must be Markdown text")
        long = ""
    sources = _sources(data.get("source"))
    if sources is None:
        problem(lines.get("source", 1), "'source' must be a citation or a list of {cite, url}")
        sources = ()
    elif not sources:
        problem(lines.get("", 1), "missing 'source' (the publication the definition rests on)")
    for src in sources:
        if src.url and not src.url.startswith(("https://", "http://")):
            problem(lines.get("source", 1), f"source url {src.url!r} is not an http(s) address")

    lists: dict[str, tuple[str, ...]] = {}
    for key in ("aliases", "related", "math", "other_meanings"):
        value = _strings(data.get(key))
        if value is None:
            problem(lines.get(key, 1), f"'{key}' must be a list of non-empty strings")
            value = ()
        lists[key] = value
    flags: dict[str, bool] = {}
    for key, default in (("symbol", False), ("autolink", True)):
        value = data.get(key, default)
        if not isinstance(value, bool):
            problem(lines.get(key, 1), f"'{key}' must be true or false")
            value = default
        flags[key] = value
    symbol_name = data.get("name", "")
    if not isinstance(symbol_name, str):
        problem(lines.get("name", 1), "'name' must be text")
        symbol_name = ""
    if flags["symbol"] and not symbol_name.strip():
        problem(lines.get("", 1), "a symbol needs 'name' (what the letter stands for)")
    sort_as = data.get("sort_as", "")
    if not isinstance(sort_as, str):
        problem(lines.get("sort_as", 1), "'sort_as' must be text")
        sort_as = ""

    term = Term(
        id=term_id,
        term=name.strip(),
        short=" ".join(short.split()),
        long=long.strip(),
        aliases=lists["aliases"],
        sources=sources,
        related=lists["related"],
        symbol=flags["symbol"],
        name=symbol_name.strip(),
        math=lists["math"],
        other_meanings=lists["other_meanings"],
        sort_as=sort_as.strip(),
        # A symbol's letter is never linked in prose ("a", "s", "t" are English words);
        # its aliases (if any) still are.
        autolink=flags["autolink"],
        path=path,
        lines=lines,
    )
    return term, problems


def load_glossary(directory: Path) -> Glossary:
    """Read every ``*.yaml`` term file under ``directory`` (sorted by name)."""
    glossary = Glossary()
    if not directory.is_dir():
        glossary.problems.append(FileProblem(directory, 1, "glossary folder not found"))
        return glossary
    for path in sorted(directory.glob("*.y*ml")):
        if path.suffix not in {".yaml", ".yml"}:
            continue
        term, problems = read_term(path)
        glossary.problems.extend(problems)
        if term is None:
            continue
        if term.id in glossary.terms:
            glossary.problems.append(FileProblem(path, 1, f"term id {term.id!r} defined twice"))
            continue
        glossary.terms[term.id] = term
    return glossary

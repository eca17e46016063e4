"""Problems in the glossary and in the lessons' references to it, each at a file and line.

- a term file that cannot be read, or lacks a definition (``short``) or a ``source``;
- two terms sharing a name or an alias (case-insensitive), or a plural form that collides;
- a related term that does not exist (or is the term itself);
- a lesson naming a term that does not exist in ``terms:`` (a ``{term: id}`` prerequisite is
  checked by the course's own prerequisite check, ``grader.course.lesson_checks``).
"""

from __future__ import annotations

import re
from pathlib import Path

from grader.course.lesson_source import split_front_matter
from grader.glossary.forms import is_case_sensitive, term_forms
from grader.glossary.terms import FileProblem, Glossary, load_glossary


def _form_key(form: str) -> str:
    return form if is_case_sensitive(form) else form.casefold()


def name_problems(glossary: Glossary) -> list[FileProblem]:
    """Names and aliases used by two terms, or twice by one."""
    problems: list[FileProblem] = []
    owners: dict[str, tuple[str, str]] = {}  # casefolded name -> (term id, as written)
    for term in glossary.sorted_terms():
        path = term.path or Path(f"{term.id}.yaml")
        names = [("term", term.term)] + [(f"aliases[{i}]", a) for i, a in enumerate(term.aliases)]
        seen: set[str] = set()
        for key, name in names:
            folded = name.casefold()
            if folded in seen:
                message = f"alias {name!r} repeats a name of this term"
                problems.append(FileProblem(path, term.line_of(key), message))
                continue
            seen.add(folded)
            if folded in owners and owners[folded][0] != term.id:
                other_id, written = owners[folded]
                problems.append(
                    FileProblem(
                        path,
                        term.line_of(key),
                        f"duplicate alias {name!r}: term {other_id!r} already uses {written!r}",
                    )
                )
            else:
                owners[folded] = (term.id, name)
    forms: dict[str, tuple[str, str]] = {}
    for term in glossary.sorted_terms():
        for form in term_forms(term):
            key = _form_key(form)
            if key in forms and forms[key][0] != term.id and form.casefold() not in owners:
                other_id, written = forms[key]
                problems.append(
                    FileProblem(
                        term.path or Path(f"{term.id}.yaml"),
                        term.line_of("aliases"),
                        f"the form {form!r} (a plural or singular) is also {other_id!r}'s "
                        f"{written!r}: add 'autolink: false' or rename one",
                    )
                )
            forms.setdefault(key, (term.id, form))
    return problems


def related_problems(glossary: Glossary) -> list[FileProblem]:
    problems: list[FileProblem] = []
    for term in glossary.sorted_terms():
        path = term.path or Path(f"{term.id}.yaml")
        for i, related in enumerate(term.related):
            line = term.line_of(f"related[{i}]")
            if related == term.id:
                problems.append(FileProblem(path, line, "a term cannot be related to itself"))
            elif related not in glossary:
                problems.append(
                    FileProblem(path, line, f"related term {related!r} does not exist in glossary/")
                )
    return problems


def _front_matter_line(lines: list[str], value: str) -> int:
    """The 1-based line of the front matter that names ``value`` (1 when not found)."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(value)}(?![\w-])")
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() in {"---", "..."}:
            break
        if pattern.search(line):
            return number
    return 1


def lesson_problems(docs_dir: Path, glossary: Glossary) -> list[FileProblem]:
    """Terms that a page's front matter names but the glossary does not have."""
    problems: list[FileProblem] = []
    for path in sorted(docs_dir.rglob("*.md")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        front, _error, _start, _body = split_front_matter(text)
        terms = front.get("terms")
        if terms is None:
            continue
        if not (isinstance(terms, list) and all(isinstance(t, str) for t in terms)):
            line = _front_matter_line(text.splitlines(), "terms")
            problems.append(FileProblem(path, line, "'terms' must be a list of glossary ids"))
            continue
        for term_id in terms:
            if term_id not in glossary:
                line = _front_matter_line(text.splitlines(), term_id)
                problems.append(
                    FileProblem(
                        path,
                        line,
                        f"glossary term {term_id!r} does not exist "
                        f"(no glossary/{term_id}.yaml)",
                    )
                )
    return problems


def glossary_problems(glossary_dir: Path, docs_dir: Path) -> list[FileProblem]:
    """Every problem of the glossary folder and of the lessons' references to it."""
    glossary = load_glossary(glossary_dir)
    problems = list(glossary.problems)
    problems += name_problems(glossary)
    problems += related_problems(glossary)
    if docs_dir.is_dir():
        problems += lesson_problems(docs_dir, glossary)
    return problems

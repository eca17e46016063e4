"""The course glossary: one YAML file per term under ``glossary/``, linked from every lesson.

- :mod:`grader.glossary.terms`       loading term files (with line numbers for problems)
- :mod:`grader.glossary.forms`       the surface forms of a term (aliases, plurals, case rules)
- :mod:`grader.glossary.linking`     the treeprocessor that links the first use of each term
- :mod:`grader.glossary.page`        the ``::: glossary`` directive that generates the page
- :mod:`grader.glossary.usage`       which lessons use which terms (scanned, never typed)
- :mod:`grader.glossary.validation`  problems in term files and in lessons' term references
- :mod:`grader.glossary.checks`      the course checker's entry point
- :mod:`grader.glossary.extension`   the Python-Markdown extension registered in ``mkdocs.yml``
"""

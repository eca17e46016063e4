"""The course system's Python package.

Subpackages, each imported only when used, so ``grader.memory`` stays stdlib-only and loads in
Pyodide:

- ``grader.memory``     the memory model: every formula the course teaches, stdlib only
- ``grader.course``     lesson format: Markdown extensions and the course checker
- ``grader.exercises``  exercise schema and loading (YAML, one question a file)
- ``grader.glossary``   glossary terms, linking and the generated glossary page
- ``grader.grading``    pytest-based grading and the sandbox for submitted code
- ``grader.service``    the HTTP service (FastAPI) and its storage
"""

__version__ = "0.1.0"

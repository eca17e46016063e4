"""Command line: ``python -m grader <command> ...``.

Each command lives in its own module and is imported only when called, so a command never pays
for the others' dependencies.
"""

from __future__ import annotations

import importlib
import sys

COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("grader.course.check", "check the whole course (lessons, exercises, glossary)"),
    "grade": ("grader.grading.cli", "grade a submission file"),
    "serve": ("grader.service.cli", "serve the built site and the grader over HTTP"),
    "roster": ("grader.service.roster", "manage learners and tokens"),
    "memory": ("grader.memory.cli", "the memory model's command line"),
}


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help"}:
        print("usage: python -m grader <command> [options]\n\ncommands:")
        for name, (_, summary) in COMMANDS.items():
            print(f"  {name:<8} {summary}")
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"grader: unknown command {name!r} (try --help)", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    return int(module.main(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())

"""Copy the pinned front-end runtimes into the theme folder so the site is self-hosted.

``python -m grader.site_assets vendor --npm .build/npm/node_modules --dest site_overrides/vendor``

- Pyodide core (``pyodide.mjs``, ``pyodide.asm.*``, ``python_stdlib.zip``, ``pyodide-lock.json``)
- KaTeX (``katex.min.js``, ``katex.min.css``, ``contrib/auto-render.min.js``, fonts)
- the ``grader`` wheel built from this repository (``.build/wheel/*.whl``)
- the GPU lab notebooks (``labs/*.ipynb``), served for download from ``vendor/labs/``

The destination is generated output (git-ignored); MkDocs copies the theme folder into the site.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from pathlib import Path

PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
    "package.json",
)
# Fetched (not imported) by Pyodide when the cells start; pyodide.asm.mjs is an ES import.
CELL_FETCHED_FILES = ("pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
KATEX_FILES = ("katex.min.js", "katex.min.css", "contrib/auto-render.min.js")


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not dst.exists() or dst.stat().st_size != src.stat().st_size or (
        dst.stat().st_mtime < src.stat().st_mtime
    ):
        shutil.copy2(src, dst)


def copy_lab_notebooks(labs_dir: Path, dest: Path) -> list[str]:
    """Copy ``labs/*.ipynb`` into ``dest`` (replacing what was there); return their names."""
    if dest.exists():
        shutil.rmtree(dest)
    names = []
    for notebook in sorted(labs_dir.glob("*.ipynb")):
        _copy(notebook, dest / notebook.name)
        names.append(notebook.name)
    return names


def vendor(
    npm_modules: Path, dest: Path, wheel_dir: Path, labs_dir: Path = Path("labs")
) -> dict[str, object]:
    """Copy runtimes into ``dest``; return a manifest (also written as ``dest/manifest.json``)."""
    pyodide = npm_modules / "pyodide"
    katex = npm_modules / "katex" / "dist"
    missing = [str(p) for p in (pyodide, katex) if not p.is_dir()]
    if missing:
        raise SystemExit(f"site_assets: missing npm packages {missing}; run `make setup`")
    for name in PYODIDE_FILES:
        src = pyodide / name
        if src.exists():
            _copy(src, dest / "pyodide" / name)
    for name in KATEX_FILES:
        _copy(katex / name, dest / "katex" / name)
    for font in (katex / "fonts").glob("*.woff2"):
        _copy(font, dest / "katex" / "fonts" / font.name)
    wheels = sorted(wheel_dir.glob("grader-*.whl"))
    if not wheels:
        raise SystemExit(f"site_assets: no grader wheel in {wheel_dir}; run `make wheel`")
    wheel_dest = dest / "wheels"
    if wheel_dest.exists():
        shutil.rmtree(wheel_dest)
    _copy(wheels[-1], wheel_dest / wheels[-1].name)
    lab_notebooks = copy_lab_notebooks(labs_dir, dest / "labs")
    manifest = {
        "pyodide_version": json.loads((pyodide / "package.json").read_text())["version"],
        "katex_version": json.loads((npm_modules / "katex" / "package.json").read_text())[
            "version"
        ],
        "grader_wheel": f"wheels/{wheels[-1].name}",
        # Keys the worker's stored Python snapshot: a rebuilt wheel never meets an old snapshot.
        "grader_wheel_sha256": hashlib.sha256(wheels[-1].read_bytes()).hexdigest(),
        # What the cells' worker fetches on the first Run: its progress bar counts against this.
        "cells_download_bytes": sum(
            (dest / "pyodide" / name).stat().st_size for name in CELL_FETCHED_FILES
        )
        + wheels[-1].stat().st_size,
        "lab_notebooks": [f"labs/{name}" for name in lab_notebooks],
    }
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.site_assets")
    sub = parser.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("vendor", help="copy Pyodide, KaTeX and the grader wheel into the theme")
    v.add_argument("--npm", type=Path, default=Path(".build/npm/node_modules"))
    v.add_argument("--dest", type=Path, default=Path("site_overrides/vendor"))
    v.add_argument("--wheels", type=Path, default=Path(".build/wheel"))
    args = parser.parse_args(argv)
    manifest = vendor(args.npm, args.dest, args.wheels)
    print(f"vendored into {args.dest}: {json.dumps(manifest)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

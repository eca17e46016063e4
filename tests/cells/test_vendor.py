"""The runtime the cells load: vendored Pyodide, and a grader wheel that matches the sources."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from grader import site_assets

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "site_overrides" / "vendor"


def test_vendored_grader_wheel_matches_the_sources() -> None:
    """The wheel the cells load holds today's grader.memory and cell runtime (else: make vendor)."""
    manifest = json.loads((VENDOR / "manifest.json").read_text())
    wheel = VENDOR / manifest["grader_wheel"]
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        stale = []
        for source in [
            ROOT / "grader/cell_runtime.py",
            *sorted((ROOT / "grader/memory").glob("*.py")),
        ]:
            name = source.relative_to(ROOT).as_posix()
            if name not in names or zf.read(name) != source.read_bytes():
                stale.append(name)
    assert not stale, f"{wheel.name} is older than {stale}: run `make vendor`"


def test_manifest_names_what_the_worker_downloads() -> None:
    manifest = json.loads((VENDOR / "manifest.json").read_text())
    assert manifest["pyodide_version"] == "314.0.7"
    expected = sum((VENDOR / "pyodide" / n).stat().st_size for n in site_assets.CELL_FETCHED_FILES)
    expected += (VENDOR / manifest["grader_wheel"]).stat().st_size
    assert manifest["cells_download_bytes"] == expected


def test_vendor_copies_pyodide_and_the_newest_wheel(tmp_path: Path) -> None:
    npm = tmp_path / "node_modules"
    (npm / "pyodide").mkdir(parents=True)
    for name in site_assets.PYODIDE_FILES:
        (npm / "pyodide" / name).write_text("x" * 10)
    (npm / "pyodide" / "package.json").write_text('{"version": "314.0.7"}')
    (npm / "katex" / "dist" / "contrib").mkdir(parents=True)
    (npm / "katex" / "dist" / "fonts").mkdir()
    (npm / "katex" / "package.json").write_text('{"version": "0.16.22"}')
    for name in site_assets.KATEX_FILES:
        (npm / "katex" / "dist" / name).write_text("k")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / "grader-0.1.0-py3-none-any.whl").write_bytes(b"w" * 7)
    dest = tmp_path / "vendor"
    manifest = site_assets.vendor(npm, dest, wheels, labs_dir=tmp_path / "labs")
    assert manifest["grader_wheel"] == "wheels/grader-0.1.0-py3-none-any.whl"
    assert manifest["cells_download_bytes"] == 3 * 10 + 7
    # The key of the worker's stored Python snapshot: changes with the wheel's bytes.
    assert manifest["grader_wheel_sha256"] == hashlib.sha256(b"w" * 7).hexdigest()
    assert (dest / "pyodide" / "pyodide.mjs").read_text() == "x" * 10
    assert json.loads((dest / "manifest.json").read_text()) == manifest


def test_vendor_without_npm_packages_says_what_to_run(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="run `make setup`"):
        site_assets.vendor(tmp_path / "none", tmp_path / "dest", tmp_path)

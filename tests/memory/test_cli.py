"""The command line: JSON with every part in bytes, a table without --json, exit 2 on bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from grader.memory.cli import main


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_states_json_figure_1(capsys: pytest.CaptureFixture[str]) -> None:
    """ZeRO Figure 1, stage 3: 1.875e9 bytes per device for 7.5B parameters on 64 devices."""
    code, out, _ = run(
        ["states", "--params", "7.5e9", "--dp", "64", "--zero", "3", "--json"], capsys
    )
    data = json.loads(out)
    assert code == 0
    assert data["total"] == 1_875_000_000 == sum(data["parts"].values())
    assert data["unit"] == "bytes" and "1910.02054" in data["source"]


def test_activations_json_gpt2(capsys: pytest.CaptureFixture[str]) -> None:
    """ZeRO Section 3.2: about 60 GB of activations for GPT-2 (h 1600, L 48, s 1024, b 32)."""
    args = "activations --hidden 1600 --layers 48 --seq 1024 --batch 32 --heads 25 "
    code, out, _ = run((args + "--method zero-paper --json").split(), capsys)
    assert code == 0
    data = json.loads(out)
    assert data["total"] == 60_397_977_600 and data["method"] == "zero-paper"


def test_human_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["states", "--params", "1.5B"], capsys)
    assert code == 0
    assert "fp16 parameters" in out and "3 GB" in out and "24 GB" in out
    code, out, _ = run(["states", "--params", "1.5B", "--unit", "GiB"], capsys)
    assert "22.4 GiB" in out and "2**30" in out


def test_other_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        json.loads(run(["comm", "--params", "1e9", "--zero", "3", "--json"], capsys)[1])["total"]
        == 6e9
    )
    bubble = json.loads(run("bubble --stages 8 --microbatches 32 --json".split(), capsys)[1])
    assert bubble["value"] == 7 / 32
    fit = json.loads(run(["fit", "--memory", "32 GB", "--json"], capsys)[1])
    assert fit["params"] == 2_000_000_000
    devices = json.loads(
        run(["devices", "--params", "7.5B", "--memory", "32 GB", "--zero", "3", "--json"], capsys)[
            1
        ]
    )
    assert devices["devices"] == 4
    code, out, _ = run(
        "deepspeed --params 2851e6 --largest-layer 32e6 --gpus-per-node 8".split(), capsys
    )
    assert code == 0 and "71.69GB" in out and "2**30" in out


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["bogus"],
        ["states"],
        ["states", "--params", "lots"],
        ["states", "--params", "7e9", "--dp", "x"],
        ["states", "--params", "7e9", "--zero", "5"],
        ["states", "--params", "7e9", "--dp", "0"],
        [
            "activations",
            "--hidden",
            "1600",
            "--layers",
            "48",
            "--seq",
            "1024",
            "--batch",
            "32",
            "--method",
            "korthikanti",
        ],
        ["fit", "--memory", "32 Gb"],
        ["fit", "--memory", "32"],
        ["deepspeed", "--params", "1e9"],
    ],
)
def test_bad_arguments_one_line_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(args, capsys)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("python -m grader.memory")


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--help"], capsys)
    assert code == 0 and "states" in out


@pytest.mark.parametrize("entry", [["-m", "grader.memory"], ["-m", "grader", "memory"]])
def test_module_entry_points(entry: list[str]) -> None:
    """Both `python -m grader.memory` and `python -m grader memory` reach the same command line."""
    ok = subprocess.run(
        [
            sys.executable,
            *entry,
            "states",
            "--params",
            "7.5e9",
            "--dp",
            "64",
            "--zero",
            "1",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["total"] == 31_406_250_000
    bad = subprocess.run(
        [sys.executable, *entry, "states", "--params", "7.5e9", "--zero", "9"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1

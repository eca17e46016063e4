"""Command line for instructors making answer keys: ``python -m grader.memory <command> ...``.

Also reachable as ``python -m grader memory ...``. Every command prints a human table (or, with
``--json``, JSON with every part in bytes and the total). Bad arguments print one line on stderr
and exit with status 2.

    python -m grader.memory states --params 7.5e9 --dp 64 --zero 3 --json
    python -m grader.memory activations --hidden 1600 --layers 48 --seq 1024 --batch 32 \\
        --heads 25 --method zero-paper --json
    python -m grader.memory comm --params 7.5e9 --zero 3
    python -m grader.memory bubble --stages 8 --microbatches 32 --interleave 2
    python -m grader.memory fit --memory "32 GB" --dp 64 --zero 1
    python -m grader.memory devices --params 7.5B --memory "32 GB" --zero 3
    python -m grader.memory deepspeed --params 2851e6 --largest-layer 32e6 --gpus-per-node 8
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, NoReturn

from .activations import METHODS, RECOMPUTE, activations
from .communication import data_parallel_volume, pipeline_bubble
from .deepspeed_estimator import (
    deepspeed_zero2_estimate,
    deepspeed_zero3_estimate,
    format_deepspeed_rows,
)
from .fit import max_params, min_devices
from .model_states import OPTIMIZERS, PRECISIONS, model_states
from .units import BYTE_UNITS, format_bytes, parse_bytes, parse_count

PROG = "python -m grader.memory"


class _UsageError(Exception):
    """A bad command line: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: {message}")


def _count(text: str) -> int:
    try:
        return parse_count(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _size(text: str) -> int | float:
    try:
        return parse_bytes(text, default_unit=None)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _whole(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    return value


def _unit(text: str) -> str:
    for name in BYTE_UNITS:
        if name.lower() == text.lower():
            return name
    raise argparse.ArgumentTypeError(f"unknown unit {text!r}; use GB (10**9 bytes) or GiB (2**30)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG, description="The course's memory model (bytes; GB = 10**9, GiB = 2**30)."
    )
    sub = parser.add_subparsers(dest="command", metavar="command", parser_class=_Parser)
    sub.required = True

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--json", action="store_true", help="print JSON (every part in bytes)")
        p.add_argument("--unit", type=_unit, default="GB", help="GB (default) or GiB for the table")

    p = sub.add_parser("states", help="model states per device (ZeRO paper, Section 3.1 and 5)")
    p.add_argument("--params", type=_count, required=True, help="parameters: 7.5e9, 7.5B, 1.5B")
    p.add_argument("--optimizer", choices=OPTIMIZERS, default="adam")
    p.add_argument("--precision", choices=PRECISIONS, default="mixed")
    p.add_argument("--dp", type=_whole, default=1, help="data-parallel devices N_d")
    p.add_argument("--zero", type=_whole, default=0, choices=(0, 1, 2, 3))
    p.add_argument("--offload-optimizer", action="store_true")
    common(p)

    p = sub.add_parser("activations", help="activation memory (ZeRO paper or Korthikanti et al.)")
    for name in ("hidden", "layers", "seq", "batch"):
        p.add_argument(f"--{name}", type=_whole, required=True)
    p.add_argument("--heads", type=_whole)
    p.add_argument("--method", choices=METHODS, default="zero-paper")
    p.add_argument("--tp", type=_whole, default=1)
    p.add_argument("--sequence-parallel", action="store_true")
    p.add_argument("--recompute", choices=RECOMPUTE, default="none")
    p.add_argument("--pipeline", type=_whole, default=1)
    p.add_argument("--interleave", type=_whole, default=1)
    p.add_argument("--vocab", type=_whole)
    common(p)

    p = sub.add_parser("comm", help="data-parallel traffic per device per step (ZeRO Section 7)")
    p.add_argument("--params", type=_count, required=True)
    p.add_argument("--zero", type=_whole, default=0, choices=(0, 1, 2, 3))
    p.add_argument("--bytes-per-element", type=_whole, default=2)
    common(p)

    p = sub.add_parser("bubble", help="pipeline bubble fraction (p-1)/(v·m) (Narayanan et al.)")
    p.add_argument("--stages", type=_whole, required=True)
    p.add_argument("--microbatches", type=_whole, required=True)
    p.add_argument("--interleave", type=_whole, default=1)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("fit", help="largest model whose states fit a device")
    p.add_argument("--memory", type=_size, required=True, help='device memory, e.g. "32 GB"')
    p.add_argument("--optimizer", choices=OPTIMIZERS, default="adam")
    p.add_argument("--precision", choices=PRECISIONS, default="mixed")
    p.add_argument("--dp", type=_whole, default=1)
    p.add_argument("--zero", type=_whole, default=0, choices=(0, 1, 2, 3))
    p.add_argument("--mp", type=_whole, default=1, help="model-parallel degree")
    p.add_argument("--reserve", type=_size, default=0, help='memory kept for other uses, "8 GB"')
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("devices", help="fewest data-parallel devices whose memory holds a model")
    p.add_argument("--params", type=_count, required=True)
    p.add_argument("--memory", type=_size, required=True)
    p.add_argument("--optimizer", choices=OPTIMIZERS, default="adam")
    p.add_argument("--precision", choices=PRECISIONS, default="mixed")
    p.add_argument("--zero", type=_whole, default=3, choices=(0, 1, 2, 3))
    p.add_argument("--reserve", type=_size, default=0)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser(
        "deepspeed", help="DeepSpeed's estimator (prints GiB labelled GB, as it does)"
    )
    p.add_argument("--params", type=_count, required=True)
    p.add_argument("--largest-layer", type=_count, help="largest layer's parameters (ZeRO-3)")
    p.add_argument("--gpus-per-node", type=_whole, default=1)
    p.add_argument("--nodes", type=_whole, default=1)
    p.add_argument("--stage", type=_whole, default=3, choices=(2, 3))
    p.add_argument("--json", action="store_true")
    return parser


def _emit(data: Any, text: str, as_json: bool) -> None:
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(text)


def _pick(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    """The named options as keyword arguments (``--offload-optimizer`` -> offload_optimizer)."""
    return {name: getattr(args, name) for name in names}


CONFIG = ("optimizer", "precision", "zero")


def _states(args: argparse.Namespace) -> None:
    result = model_states(
        args.params, dp=args.dp, offload_optimizer=args.offload_optimizer, **_pick(args, *CONFIG)
    )
    _emit(result.to_dict(), result.format(args.unit), args.json)


def _activations(args: argparse.Namespace) -> None:
    names = (
        "hidden",
        "layers",
        "seq",
        "batch",
        "heads",
        "method",
        "tp",
        "sequence_parallel",
        "recompute",
        "pipeline",
        "interleave",
        "vocab",
    )
    result = activations(**_pick(args, *names))
    _emit(result.to_dict(), result.format(args.unit), args.json)


def _comm(args: argparse.Namespace) -> None:
    result = data_parallel_volume(args.params, **_pick(args, "zero", "bytes_per_element"))
    _emit(result.to_dict(), result.format(args.unit), args.json)


def _bubble(args: argparse.Namespace) -> None:
    inputs = _pick(args, "stages", "microbatches", "interleave")
    value = pipeline_bubble(**inputs)
    data = {
        "kind": "pipeline bubble fraction",
        "value": value,
        "inputs": inputs,
        "source": "Narayanan et al. 2021, arXiv:2104.04473, Section 2.2",
    }
    _emit(data, f"pipeline bubble (p-1)/(v·m) = {value:.4g} of the ideal step time", args.json)


def _fit(args: argparse.Namespace) -> None:
    inputs = _pick(args, "memory", "dp", "mp", "reserve", *CONFIG)
    value = max_params(inputs.pop("memory"), **inputs)
    data = {"kind": "largest model", "params": value, "inputs": _pick(args, "memory", *inputs)}
    text = (
        f"largest model whose states fit {format_bytes(args.memory, 'GB')} per device: "
        f"{value:,} parameters ({value / 1e9:.4g}B)"
    )
    _emit(data, text, args.json)


def _devices(args: argparse.Namespace) -> None:
    inputs = _pick(args, "params", "memory", "reserve", *CONFIG)
    value = min_devices(inputs.pop("params"), inputs.pop("memory"), **inputs)
    data = {
        "kind": "fewest data-parallel devices",
        "devices": value,
        "inputs": _pick(args, "params", "memory", *inputs),
    }
    if value is None:
        text = f"no number of devices fits {args.params:,} parameters at ZeRO stage {args.zero}"
    else:
        text = f"fewest data-parallel devices: {value} (ZeRO stage {args.zero})"
    _emit(data, text, args.json)


def _deepspeed(args: argparse.Namespace) -> None:
    layout = {"num_gpus_per_node": args.gpus_per_node, "num_nodes": args.nodes}
    if args.stage == 3:
        if args.largest_layer is None:
            raise ValueError("--stage 3 needs --largest-layer")
        rows = deepspeed_zero3_estimate(args.params, args.largest_layer, **layout)
    else:
        rows = deepspeed_zero2_estimate(args.params, **layout)
    data = {
        "kind": f"DeepSpeed ZeRO-{args.stage} estimate",
        "unit": "bytes",
        "rows": [row.to_dict() for row in rows],
    }
    text = format_deepspeed_rows(rows) + "\n(DeepSpeed's 'GB' is bytes / 2**30, i.e. GiB)"
    _emit(data, text, args.json)


COMMANDS = {
    "states": _states,
    "activations": _activations,
    "comm": _comm,
    "bubble": _bubble,
    "fit": _fit,
    "devices": _devices,
    "deepspeed": _deepspeed,
}


def run(args: argparse.Namespace) -> None:
    """Carry out one parsed command (raises ``ValueError`` for values the model refuses)."""
    COMMANDS[args.command](args)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 2 bad arguments)."""
    parser = build_parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
        run(args)
    except _UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (e.g. `| head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    return 0

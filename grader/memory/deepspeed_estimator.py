"""DeepSpeed's model-state estimators, reproduced (they differ from the ZeRO paper's count).

Source: DeepSpeed documentation, "Memory Requirements" (docs/code-docs/source/memory.rst):
``estimate_zero3_model_states_mem_needs_all_cold`` and ``estimate_zero2_..._all_cold``. DeepSpeed
counts 18 bytes per parameter for ZeRO-3 (fp32 parameters, gradients, momentum, variance: 16, plus
2 for fp16 parameters), 4 × largest-layer parameters to gather one layer, a 1.5 "additional buffer
factor" for CPU memory, and 4 bytes × GPUs per node when a model is first created in fp32 without
``zero.Init``. DeepSpeed prints bytes / 2**30 with the label "GB": those numbers are GiB.
"""

from __future__ import annotations

from collections import namedtuple

from . import sources
from .validation import check_int, check_params, check_positive


class EstimateRow(
    namedtuple("EstimateRow", "offload_param offload_optimizer zero_init per_cpu per_gpu")
):
    """One line of DeepSpeed's estimate: the options and bytes per CPU (node) and per GPU.

    Fields: offload_param: str; offload_optimizer: str; zero_init: bool; per_cpu: int; per_gpu: int.
    """

    __slots__ = ()

    def options(self) -> str:
        """The options as DeepSpeed prints them (``offload_param=cpu , ...``)."""
        if not self.offload_param:
            return f"offload_optimizer={self.offload_optimizer}"
        return (
            f"offload_param={self.offload_param:<4}, "
            f"offload_optimizer={self.offload_optimizer:<4}, zero_init={int(self.zero_init)}"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "offload_param": self.offload_param or None,
            "offload_optimizer": self.offload_optimizer,
            "zero_init": self.zero_init,
            "per_cpu_bytes": self.per_cpu,
            "per_gpu_bytes": self.per_gpu,
        }


SOURCE = sources.DEEPSPEED_ESTIMATOR


def _layout(
    total_params: int | float | str, per_node: int, nodes: int, factor: float
) -> tuple[int | float, int, int, float, float]:
    """Checked: params, GPUs per node, total GPUs, gpus_factor (1 / nodes), buffer factor."""
    params = check_params(total_params, "total_params")
    per_node = check_int("num_gpus_per_node", per_node, minimum=1)
    nodes = check_int("num_nodes", nodes, minimum=1)
    factor = check_positive("additional_buffer_factor", factor)
    return params, per_node, per_node * nodes, 1 / nodes, factor


def deepspeed_zero3_estimate(
    total_params: int | float | str,
    largest_layer_params: int | float | str,
    *,
    num_gpus_per_node: int = 1,
    num_nodes: int = 1,
    additional_buffer_factor: float = 1.5,
) -> list[EstimateRow]:
    """DeepSpeed's ZeRO-3 estimate, the six rows ``..._all_cold`` prints, in its order.

    DeepSpeed "Memory Requirements", Discussion (ZeRO-3), with ``largest_layer_memory =
    4 × largest_layer_params`` and ``gpus_factor = 1 / num_nodes``:
    GPU: offload params and optimizer -> largest_layer_memory; offload optimizer only ->
    largest_layer_memory + int(2 × params / total_gpus); none -> largest_layer_memory +
    int(18 × params / total_gpus).
    CPU (× additional_buffer_factor): 18 × params × gpus_factor, 16 × params × gpus_factor, or
    4 × largest_layer_params × gpus_per_node with ``zero.Init``; without it the first two take
    max(4 × gpus_per_node, 18 or 16 × gpus_factor) and the last 4 × params × gpus_per_node.
    """
    largest = check_params(largest_layer_params, "largest_layer_params")
    params, per_node, total_gpus, gpus_factor, factor = _layout(
        total_params, num_gpus_per_node, num_nodes, additional_buffer_factor
    )
    layer_memory = 4 * largest
    rows = []
    for offload_param, offload_optimizer in (("cpu", "cpu"), ("none", "cpu"), ("none", "none")):
        for zero_init in (True, False):
            if offload_param == "cpu":
                gpu = layer_memory
                host = 18 * gpus_factor if zero_init else max(4 * per_node, 18 * gpus_factor)
                cpu = params * host * factor
            elif offload_optimizer == "cpu":
                gpu = layer_memory + int(2 * params / total_gpus)
                host = 16 * gpus_factor if zero_init else max(4 * per_node, 16 * gpus_factor)
                cpu = params * host * factor
            else:
                gpu = layer_memory + int(18 * params / total_gpus)
                cpu = (largest if zero_init else params) * 4 * per_node * factor
            rows.append(
                EstimateRow(offload_param, offload_optimizer, zero_init, int(cpu), int(gpu))
            )
    return rows


def deepspeed_zero2_estimate(
    total_params: int | float | str,
    *,
    num_gpus_per_node: int = 1,
    num_nodes: int = 1,
    additional_buffer_factor: float = 1.5,
) -> list[EstimateRow]:
    """DeepSpeed's ZeRO-2 estimate, the two rows ``..._all_cold`` prints, in its order.

    DeepSpeed "Memory Requirements", Discussion (ZeRO-2): GPU 2 × params with the optimizer
    offloaded, else 4 × params + int(16 × params / total_gpus); CPU params × max(4 ×
    gpus_per_node, 16 × gpus_factor) × factor offloaded, else params × 4 × gpus_per_node × factor.
    """
    params, per_node, total_gpus, gpus_factor, factor = _layout(
        total_params, num_gpus_per_node, num_nodes, additional_buffer_factor
    )
    offloaded = EstimateRow(
        "",
        "cpu",
        False,
        int(params * max(4 * per_node, 16 * gpus_factor) * factor),
        int(2 * params),
    )
    resident = EstimateRow(
        "",
        "none",
        False,
        int(params * 4 * per_node * factor),
        int(4 * params + int(16 * params / total_gpus)),
    )
    return [offloaded, resident]


def format_deepspeed_rows(rows: list[EstimateRow]) -> str:
    """The rows as DeepSpeed prints them: bytes / 2**30 to two decimals, labelled "GB" (= GiB)."""
    lines = ["  per CPU  |  per GPU |   Options"]
    for row in rows:
        lines.append(
            f"  {row.per_cpu / 2**30:7.2f}GB | {row.per_gpu / 2**30:6.2f}GB | {row.options()}"
        )
    return "\n".join(lines)

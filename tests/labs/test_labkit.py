"""labkit on its own, in this process: the counts the notebooks rely on, and their edge cases.

Sources of the expected numbers: ``grader.memory`` (ZeRO Section 3.1 for model states; Korthikanti
et al. 2022 Eq. 1 and Section 5 for activations), never numbers typed here.
"""

from __future__ import annotations

import pytest
import torch
from labkit.counting import SavedActivations, tensor_bytes
from labkit.device import GPURequired, dtype_of, lab_device
from labkit.gpt import GPT, GPTConfig, parameter_count, random_batch
from labkit.mixed_adam import MixedPrecisionAdam, precision_name
from labkit.report import Row, check_exact, table
from labkit.states import one_step

from grader.memory import activations, model_states

CPU = torch.device("cpu")


@pytest.mark.parametrize("cfg", [
    GPTConfig(vocab=128, context=64, hidden=64, layers=2, heads=4),
    GPTConfig(vocab=50257, context=1024, hidden=768, layers=12, heads=12),  # GPT-2 small
])
def test_parameter_count_matches_the_model(cfg: GPTConfig) -> None:
    if cfg.hidden == 768:
        assert parameter_count(cfg) == 124_439_808  # GPT-2 small with tied embeddings
        return
    assert parameter_count(cfg) == sum(p.numel() for p in GPT(cfg).parameters())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_one_step_counts_exactly_the_16_psi_parts(dtype: torch.dtype) -> None:
    cfg = GPTConfig(vocab=96, context=32, hidden=32, layers=1, heads=2)
    step = one_step(cfg, CPU, dtype, seq=8, batch=2)
    predicted = model_states(step.params, precision=precision_name(dtype))
    assert step.counted == dict(predicted.parts)
    assert sum(step.counted.values()) == 16 * step.params
    assert step.measured_total is None and all(v is None for v in step.measured.values())


def test_mixed_precision_adam_trains_and_keeps_fp32_masters() -> None:
    torch.manual_seed(0)
    cfg = GPTConfig(vocab=32, context=16, hidden=32, layers=1, heads=2, dropout=0.0)
    model = GPT(cfg).to(torch.bfloat16)
    opt = MixedPrecisionAdam(model.parameters(), lr=3e-3)
    tokens, targets = random_batch(cfg, 16, 4, CPU)
    losses = []
    for _ in range(25):
        loss = model(tokens, targets)
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    assert losses[-1] < 0.7 * losses[0]
    assert all(w.dtype == torch.float32 for w in opt.master + opt.momentum + opt.variance)
    for p, w in zip(opt.params, opt.master, strict=True):
        assert torch.equal(p.detach(), w.to(torch.bfloat16))  # params are the rounded masters


def test_mixed_precision_adam_refuses_fp32_parameters() -> None:
    with pytest.raises(ValueError, match="float16 or all bfloat16"):
        MixedPrecisionAdam(torch.nn.Linear(2, 2).parameters())


@pytest.mark.parametrize("recompute", ["none", "selective", "full"])
@pytest.mark.parametrize(("h", "a", "L", "s", "b", "dtype"), [
    (64, 4, 2, 16, 3, torch.bfloat16),  # head size 16 equals s: scores and Q share a shape
    (48, 3, 3, 10, 1, torch.float16),
    (32, 1, 1, 7, 2, torch.bfloat16),
])
def test_saved_activations_equal_korthikanti_part_by_part(
    recompute: str, h: int, a: int, L: int, s: int, b: int, dtype: torch.dtype
) -> None:
    cfg = GPTConfig(vocab=64, context=32, hidden=h, layers=L, heads=a)
    model = GPT(cfg, recompute=recompute).to(dtype)
    tokens, targets = random_batch(cfg, s, b, CPU)
    with SavedActivations(model) as saved:
        loss = model(tokens, targets)
    loss.backward()  # the graph is intact: counting changed nothing
    predicted = activations(hidden=h, layers=L, seq=s, batch=b, heads=a, method="korthikanti",
                            recompute=recompute)
    assert saved.in_formula() == dict(predicted.parts)
    assert len(set(saved.per_layer)) == 1, "every layer keeps the same bytes"
    outside = [k for k in saved.parts if k.startswith("not in the formula")]
    assert any("embeddings" in k for k in outside)


def test_counting_does_not_leak_hooks() -> None:
    cfg = GPTConfig(vocab=64, context=32, hidden=32, layers=1, heads=2)
    model = GPT(cfg).to(torch.bfloat16)
    tokens, targets = random_batch(cfg, 8, 1, CPU)
    with SavedActivations(model):
        model(tokens, targets)
    assert all(not m._forward_pre_hooks and not m._forward_hooks for m in model.modules())


def test_tensor_bytes_counts_each_tensor_once() -> None:
    t = torch.zeros(10, dtype=torch.float16)
    assert tensor_bytes([t, t, torch.zeros(3, dtype=torch.float32)]) == 20 + 12


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_gpu_mode_without_cuda_raises_a_one_line_message() -> None:
    with pytest.raises(GPURequired) as info:
        lab_device(False, "l08-model-states")
    lines = info.value._render_traceback_()
    assert len(lines) == 1 and lines[0].startswith("GPU lab stopped: ")
    assert "labs/l08-model-states.ipynb" in lines[0]
    assert lab_device(True, "l08-model-states") == CPU


def test_dtype_names_are_checked() -> None:
    assert dtype_of("float16") is torch.float16
    with pytest.raises(ValueError, match="DTYPE must be one of"):
        dtype_of("fp8")


def test_exact_check_and_table() -> None:
    rows = [Row("a", 100, 100, None), Row("b", 100, 90, 110), Row("c", None, 5)]
    assert rows[1].error == pytest.approx(0.10)  # measured wins over counted
    with pytest.raises(AssertionError, match="b: predicted 100, counted 90"):
        check_exact(rows)
    check_exact([rows[0], rows[2]])
    text = table(rows, "MB", "t")
    assert "| b | 0.0001 MB | 0.00009 MB | 0.00011 MB | +10.00% |" in text
    assert "| c | — |" in text


def test_gpu_bookkeeping_files_each_allocation_under_its_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GPU mode's arithmetic, with ``memory_allocated`` replaced by a scripted allocator.

    The script is what an ideal allocator reports at each mark of ``one_step`` (in order: start,
    parameters, wrapped, master, backward, momentum, variance, step), from the counted parts.
    """
    import labkit.states as states

    cfg = GPTConfig(vocab=96, context=32, hidden=32, layers=1, heads=2)
    psi = parameter_count(cfg)
    start = 10_000  # tokens, targets and cuBLAS workspaces, allocated before counting
    steps = [0, 2 * psi, 0, 4 * psi, 2 * psi, 4 * psi, 4 * psi, 0]
    readings = iter([start + sum(steps[: i + 1]) for i in range(len(steps))])
    monkeypatch.setattr(states, "allocated", lambda device: next(readings))
    monkeypatch.setattr(states, "peak_allocated", lambda device: start + 16 * psi + 12_345)
    step = states.one_step(cfg, CPU, torch.bfloat16, seq=8, batch=2)
    assert step.measured == step.counted  # every delta landed under the right part
    assert step.measured_total == 16 * psi and step.peak == 16 * psi + 12_345


def test_gpu_activation_measurement_covers_the_layers(monkeypatch: pytest.MonkeyPatch) -> None:
    """``measure`` on a scripted allocator: the layers' bytes are after − before + input − output.

    The script reports, after the last layer, exactly the counted bytes of the layers plus the
    stack's output (2sbh), and nothing for the stack's input (allocated before the first layer).
    """
    import labkit.activation_memory as am

    cfg = GPTConfig(vocab=64, context=32, hidden=32, layers=2, heads=2)
    model = GPT(cfg).to(torch.bfloat16)
    s, b = 8, 2
    expected = activations(hidden=32, layers=2, seq=s, batch=b, heads=2, method="korthikanti")
    ln_stats = 2 * 2 * (2 * s * b)  # bf16 mean and rstd of two LayerNorms per layer (CPU)
    kept = int(expected.total) + 2 * ln_stats
    io = 2 * s * b * 32
    # start, before the first layer, after the last: new tensors (all kept but the input) + output
    readings = iter([5_000, 7_000, 7_000 + (kept - io) + io])
    monkeypatch.setattr(am, "allocated", lambda device: next(readings))
    monkeypatch.setattr(am, "peak_allocated", lambda device: 99_000)
    got = am.measure(model, s, b, CPU)
    assert got.in_formula == dict(expected.parts)
    assert got.measured_layers == kept == sum(got.per_layer) + 2 * ln_stats
    assert got.peak == 99_000 - 5_000

"""The SVG stacked bar: a pure function, one bar per configuration, accessible, unit explicit."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from grader.memory import model_states, stacked_bar_svg

NS = {"svg": "http://www.w3.org/2000/svg"}


def figure_1_bars() -> dict:
    """ZeRO paper Figure 1: 7.5B parameters, N_d = 64, stages 0-3."""
    return {f"ZeRO stage {z}": model_states(7.5e9, dp=64, zero=z) for z in range(4)}


def test_svg_is_well_formed_and_accessible() -> None:
    svg = stacked_bar_svg(figure_1_bars(), capacity="32 GB", title="ZeRO Figure 1")
    root = ET.fromstring(svg)
    assert root.get("role") == "img"
    title_id, desc_id = root.get("aria-labelledby").split()
    title = root.find("svg:title", NS)
    desc = root.find("svg:desc", NS)
    assert title.get("id") == title_id and desc.get("id") == desc_id
    assert title.text == "ZeRO Figure 1 (GB)"
    assert "ZeRO stage 1: total 31.4 GB" in desc.text
    assert "device memory: 32 GB" in desc.text


def test_one_bar_per_configuration_with_labelled_parts() -> None:
    bars = figure_1_bars()
    root = ET.fromstring(stacked_bar_svg(bars))
    groups = root.findall("svg:g[@class='bar']", NS)
    assert len(groups) == 4
    for group, breakdown in zip(groups, bars.values(), strict=True):
        rects = group.findall("svg:rect", NS)
        assert [r.get("data-part") for r in rects] == list(breakdown.parts)
        assert sum(float(r.get("data-bytes")) for r in rects) == pytest.approx(breakdown.total)
        for rect in rects:
            assert rect.find("svg:title", NS).text.endswith("GB")
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "fp32 momentum" in texts  # legend
    assert "GB per device (1 GB = 10**9 bytes)" in texts


def test_gib_axis_says_gib() -> None:
    svg = stacked_bar_svg([model_states(1.5e9)], unit="GiB")
    assert "1 GiB = 2**30 bytes" in svg
    assert "22.4 GiB" in svg  # 24e9 bytes / 2**30
    assert " GB" not in svg.replace("GiB", "")


def test_pure_and_escaped() -> None:
    bars = [("<script>alert(1)</script>", model_states(1e9))]
    first = stacked_bar_svg(bars)
    assert first == stacked_bar_svg(bars)
    assert "<script>" not in first and "&lt;script&gt;" in first
    ET.fromstring(first)


def test_bad_input() -> None:
    with pytest.raises(ValueError):
        stacked_bar_svg([])
    with pytest.raises(ValueError):
        stacked_bar_svg([42])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="bits"):
        stacked_bar_svg([model_states(1e9)], unit="Gb")

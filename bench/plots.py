"""PNG plots of a benchmark run: latency distributions, cost vs home size, cost vs prompt length."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib as mpl

mpl.use("Agg")
import matplotlib.pyplot as plt


def draw(results: dict[str, Any], folder: Path, stamp: str) -> list[Path]:
    """Every plot the results allow; returns the files written."""
    written = []
    for name, painter in (
        ("latency", _latency),
        ("home-size", _home_size),
        ("prompt-length", _prompt),
    ):
        figure = painter(results)
        if figure is None:
            continue
        path = folder / f"{stamp}-{name}.png"
        figure.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(figure)
        written.append(path)
    return written


def _latency(results: dict[str, Any]) -> Any:
    series: dict[str, list[float]] = {}
    load = results.get("load", {}).get("samples_ms", {})
    if load.get("fast_path"):
        series["fast path under load\n(whole stack, ms)"] = load["fast_path"]
    if load.get("model"):
        series["model path under load\n(tiny stand-in, ms)"] = load["model"]
    fast = results.get("fast_path", {}).get("family_home_38_entities", {}).get("samples_ms")
    if fast:
        series["fast path alone\n(recognise+authorise, ms)"] = fast
    if not series:
        return None
    figure, axes = plt.subplots(1, len(series), figsize=(4.2 * len(series), 3.4))
    axes = [axes] if len(series) == 1 else list(axes)
    for axis, (label, values) in zip(axes, series.items(), strict=True):
        axis.hist(values, bins=40, color="#3a7bd5")
        axis.set_title(label, fontsize=9)
        axis.set_xlabel("ms")
        axis.set_ylabel("requests")
    figure.suptitle("Latency distributions")
    return figure


def _home_size(results: dict[str, Any]) -> Any:
    rows = results.get("scaling", {}).get("home_size")
    if not rows:
        return None
    sizes = [r["entities"] for r in rows]
    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    for key, label in (
        ("index_build_ms", "index build"),
        ("offer_ms", "scope + offer"),
        ("grammar_ms", "grammar"),
    ):
        left.plot(sizes, [r[key] for r in rows], marker="o", label=label)
    left.set_xlabel("entities")
    left.set_ylabel("ms")
    left.set_title("Cost vs home size")
    left.legend(fontsize=8)
    right.plot(sizes, [r["prefix_tokens_estimate"] for r in rows], marker="o", color="#d5573a")
    right.set_xlabel("entities")
    right.set_ylabel("tokens (estimate)")
    right.set_title("Prompt prefix (admin, every exposed entity)")
    return figure


def _prompt(results: dict[str, Any]) -> Any:
    models = results.get("scaling", {}).get("prompt_length")
    if not models:
        return None
    figure, axis = plt.subplots(figsize=(5.5, 3.6))
    for label, rows in models.items():
        axis.plot(
            [r["tokens"] for r in rows], [r["seconds"] for r in rows], marker="o", label=label
        )
    axis.set_xscale("log", base=2)
    axis.set_yscale("log")
    axis.set_xlabel("prompt tokens (evaluated fresh)")
    axis.set_ylabel("seconds")
    axis.set_title("Cost vs prompt length (cold prefix)")
    axis.legend(fontsize=8)
    return figure

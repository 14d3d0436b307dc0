"""The soak's report: is memory flat, and the numbers as JSON, markdown and a PNG plot.

`make soak` (script/soak) runs tests/soak/test_soak.py, which measures and then calls
`write_report`; the files land in bench/results/soak-<date>.{json,md,png}.
"""

from __future__ import annotations

from collections.abc import Sequence
import json
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
WARMUP_FRACTION = 0.2
MIN_WARMUP_S = 30.0
WINDOW_FRACTION = 0.15


def memory_trend(samples: Sequence[tuple[float, float]]) -> dict[str, Any]:
    """From (seconds since start, RSS MiB) samples: the trend after warm-up (model load,
    prefix snapshots). Flat means the last window is no higher than the first after warm-up,
    give or take noise. The app's bounded caches (1024 outcomes, 1000 executions, 500
    conversations) fill during the first minutes of load, so the second half of a long run
    is the cleanest view: there, growth is a leak."""
    if len(samples) < 4:
        return {"samples": len(samples), "flat": None}
    duration = samples[-1][0]
    warmup = min(max(MIN_WARMUP_S, duration * WARMUP_FRACTION), duration / 2)
    steady = [(t, m) for t, m in samples if t >= warmup]
    window = max(2, int(len(steady) * WINDOW_FRACTION))
    first = sum(m for _, m in steady[:window]) / window
    last = sum(m for _, m in steady[-window:]) / window
    slope = _slope(steady) * 3600
    growth = last - first
    half = [m for t, m in samples if t >= duration / 2]
    return {
        "samples": len(samples),
        "warmup_s": round(warmup, 1),
        "start_mib": round(samples[0][1], 1),
        "after_warmup_mib": round(first, 1),
        "end_mib": round(last, 1),
        "max_mib": round(max(m for _, m in samples), 1),
        "growth_after_warmup_mib": round(growth, 2),
        "slope_mib_per_hour": round(slope, 2),
        "second_half_growth_mib": round(half[-1] - half[0], 2),
        "flat": bool(growth < max(8.0, first * 0.03)),
    }


def _slope(points: Sequence[tuple[float, float]]) -> float:
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_m = sum(m for _, m in points) / n
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    if spread == 0:
        return 0.0
    return sum((t - mean_t) * (m - mean_m) for t, m in points) / spread


def write_report(result: dict[str, Any], stamp: str, folder: Path = RESULTS) -> list[Path]:
    """`soak-<stamp>.json`, `.md` and `.png` in `folder`; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    base = folder / f"soak-{stamp}"
    json_path, md_path, png_path = (base.with_suffix(s) for s in (".json", ".md", ".png"))
    json_path.write_text(json.dumps(result, indent=2) + "\n")
    _plot(result, png_path)
    md_path.write_text(_markdown(result, png_path.name))
    return [json_path, md_path, png_path]


def _plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    series = result["series"]
    minutes = [t / 60 for t in series["t_s"]]
    figure, (memory, load) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    memory.plot(minutes, series["app_rss_mib"], color="tab:blue", label="app RSS")
    warmup = result["memory"].get("warmup_s")
    if warmup:
        memory.axvspan(0, warmup / 60, color="0.9", label="warm-up")
    memory.set_ylabel("MiB")
    memory.set_title(f"BotPsy soak, {result['duration_s'] / 60:.0f} min: app memory")
    memory.legend(loc="lower right")
    memory.grid(alpha=0.3)
    load.plot(minutes, series["answered_per_s"], color="tab:green", label="answers/s")
    load.plot(minutes, series["in_flight"], color="tab:red", label="in flight (stats)")
    load.set_xlabel("minutes")
    load.legend(loc="upper right")
    load.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def _markdown(result: dict[str, Any], plot: str) -> str:
    counts, memory = result["counts"], result["memory"]
    lines = [
        f"# Soak, {result['started'][:10]}",
        "",
        f"{result['duration_s'] / 60:.1f} minutes of mixed requests from {result['clients']} "
        f"MQTT clients (named principals) on loopback against the app process "
        f"(model: {result['model']}), real HA and Mosquitto. "
        f"Machine: {result['machine']['cpu_model']}, {result['machine']['logical_cpus']} CPUs.",
        "",
        f"![memory over time]({plot})",
        "",
        "| | value |",
        "|---|---|",
        f"| requests sent | {counts['requests']} |",
        f"| responses received | {counts['responses']} |",
        f"| lost (never answered) | {counts['lost']} |",
        f"| duplicated answers | {counts['duplicates']} |",
        f"| answers to unknown ids | {counts['unexpected_ids']} |",
        f"| max in flight (stats topic) | {result['max_in_flight']} |",
        f"| app RSS after warm-up → end | {memory.get('after_warmup_mib')} → "
        f"{memory.get('end_mib')} MiB |",
        f"| growth after warm-up | {memory.get('growth_after_warmup_mib')} MiB "
        f"(slope {memory.get('slope_mib_per_hour')} MiB/h) |",
        f"| growth over the second half | {memory.get('second_half_growth_mib')} MiB |",
        f"| memory flat | {memory.get('flat')} |",
        f"| app log errors | {result['app_log_errors']} |",
        "",
        "| path | requests | answered | p50 ms | p95 ms | p99 ms | statuses | error codes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for kind, data in counts["by_kind"].items():
        latency = data["latency_ms"]
        lines.append(
            f"| {kind} | {data['requests']} | {data['answered']} | {latency['p50']} | "
            f"{latency['p95']} | {latency['p99']} | {_inline(data['statuses'])} | "
            f"{_inline(data['error_codes'])} |"
        )
    lines += ["", "Settings: `" + json.dumps(result["settings"]) + "`", ""]
    return "\n".join(lines)


def _inline(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=str)) or "none"


def rewrite(json_path: Path) -> list[Path]:
    """Recompute the summary of a stored run from its samples (after this module changed)."""
    result = json.loads(json_path.read_text())
    samples = list(zip(result["series"]["t_s"], result["series"]["app_rss_mib"], strict=True))
    result["memory"] = memory_trend(samples)
    stamp = json_path.stem.removeprefix("soak-")
    return write_report(result, stamp, json_path.parent)


if __name__ == "__main__":
    import sys

    for name in sys.argv[1:]:
        print(*rewrite(Path(name)), sep="\n")

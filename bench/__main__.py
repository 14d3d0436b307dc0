"""Run every benchmark and write bench/results/<date>.json plus a markdown summary.

Usage: python -m bench [--only NAME ...]
       python -m bench --server [ARGS]   local model vs. llama-server (bench/server.py)
       python -m bench --peer [ARGS]     HA's own LLM stack vs. BotPsy (bench/peer.py)
       python -m bench --speed [ARGS]    the model path's speed figures (bench/speed.py)
       python -m bench --turns [ARGS]    whole model-path turns, the eval's cases (bench/turns.py)
       python -m bench --fast-path [ARGS]  fast-path coverage and speed against HA's agent,
                                           en/ko/id (bench/fast_path_coverage.py)
       python -m bench --homes [ARGS]    homes of 250 and 1,000 entities (bench/homes.py)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import UTC, datetime
import json
from pathlib import Path
import sys
from typing import Any

from bench import (
    fast_path,
    fast_path_coverage,
    grounding,
    ha_index,
    homes,
    llm_model,
    load,
    machine,
    mqtt_roundtrip,
    peer,
    plots,
    policy,
    prompt_budget,
    scaling,
    server,
    speed,
    turns,
)

RESULTS = Path(__file__).parent / "results"
BENCHMARKS: dict[str, Callable[[], dict[str, Any]]] = {
    "policy": policy.run,
    "grounding": grounding.run,
    "ha_index": ha_index.run,
    "fast_path": fast_path.run,
    "prompt_budget": prompt_budget.run,
    "llm_model": llm_model.run,
    "mqtt_roundtrip": mqtt_roundtrip.run,
    "scaling": scaling.run,
    "load": load.run,
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    own_reports = {  # each writes its own report under bench/results/
        "--server": server.main,
        "--peer": peer.main,
        "--speed": speed.main,
        "--turns": turns.main,
        "--fast-path": fast_path_coverage.main,
        "--homes": homes.main,
    }
    if argv[:1] and argv[0] in own_reports:
        return own_reports[argv[0]](argv[1:])
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", choices=sorted(BENCHMARKS), help="run only these")
    args = parser.parse_args(argv)
    host = machine.describe()
    cpus, memory = host["logical_cpus"], host["memory_gib"]
    print(f"[bench] machine: {host['cpu_model']}, {cpus} CPUs, {memory} GiB")
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    out = RESULTS / f"{stamp}.json"
    # `--only` refreshes some sections of today's results and keeps the others.
    results: dict[str, Any] = json.loads(out.read_text()) if args.only and out.exists() else {}
    results.update({"machine": host, "started": datetime.now(UTC).isoformat()})
    for name in args.only or BENCHMARKS:
        print(f"[bench] {name} …", flush=True)
        results[name] = BENCHMARKS[name]()
        print(f"[bench] {name}: {json.dumps(results[name])}")
    RESULTS.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    pictures = plots.draw(results, RESULTS, stamp)
    summary = RESULTS / f"{stamp}.md"
    summary.write_text(_summary(results, pictures))
    (RESULTS / "latest.md").write_text(_summary(results, pictures))
    print(f"[bench] wrote {out}, {summary} and {len(pictures)} plots")
    return 0


def _summary(results: dict[str, Any], pictures: list[Path]) -> str:
    host = results["machine"]
    lines = [
        f"# Benchmarks, {results['started'][:10]}",
        "",
        f"Machine: {host['cpu_model']}, {host['logical_cpus']} logical CPUs, "
        f"{host['memory_gib']} GiB, Python {host['python']}. Raw numbers: the JSON file of the "
        "same date; each section below is one benchmark program in bench/.",
        "",
        "## Headline",
        "",
        "| measure | value |",
        "| --- | --- |",
    ]
    lines += [f"| {label} | {value} |" for label, value in _headline(results)]
    lines += ["", *[f"![{p.stem}]({p.name})" for p in pictures], ""]
    for name, value in results.items():
        if name in {"machine", "started"}:
            continue
        lines += [f"## {name}", "", "```json", json.dumps(_trimmed(value), indent=2), "```", ""]
    return "\n".join(lines)


def _get(results: dict[str, Any], *path: str | int) -> Any:
    node: Any = results
    for key in path:
        try:
            node = node[key]
        except KeyError, IndexError, TypeError:
            return "-"
    return node


MQTT = ("mqtt_roundtrip", "broker_tcp_nodelay")


def _headline(results: dict[str, Any]) -> list[tuple[str, Any]]:
    shaped = ("llm_model", "qwen35_0_8b_shaped_q8_0")
    return [
        (
            "fast path p50 / p95 (recognise + resolve + authorise, 38-entity home)",
            f"{_get(results, 'fast_path', 'family_home_38_entities', 'p50_ms')} / "
            f"{_get(results, 'fast_path', 'family_home_38_entities', 'p95_ms')} ms",
        ),
        (
            "grounding check p50 / p99 (500-entity home)",
            f"{_get(results, 'grounding', 'p50_ms')} / {_get(results, 'grounding', 'p99_ms')} ms",
        ),
        (
            "0.8B-shaped Q8_0: warm time to first tool call (snapshot)",
            f"{_get(results, *shaped, 'warm_first_call_s')} s",
        ),
        (
            "0.8B-shaped Q8_0: warm time to a trained model's one-call answer (teacher-forced)",
            f"{_get(results, *shaped, 'warm_typical_call_s')} s "
            f"({_get(results, *shaped, 'typical_call_tokens')} tokens)",
        ),
        (
            "0.8B-shaped Q8_0: cold time to first tool call (whole prompt)",
            f"{_get(results, *shaped, 'cold_first_call_s')} s",
        ),
        (
            "0.8B-shaped Q8_0: prompt / generation tokens per second",
            f"{_get(results, *shaped, 'prompt_tokens_per_s')} / "
            f"{_get(results, *shaped, 'generation_tokens_per_s')} "
            f"({_get(results, *shaped, 'generation_tokens_per_s_with_grammar')} with the grammar)",
        ),
        (
            "0.8B-shaped Q8_0: resident memory after load",
            f"{_get(results, *shaped, 'rss_mb_after_load')} MB",
        ),
        (
            "prompt prefix, real Qwen tokens (demo home / 250 / 1,000 entities)",
            " / ".join(
                str(_get(results, "prompt_budget", "real_tokenizer", "homes", h, "prefix_tokens"))
                for h in ("demo_home_38", "generated_250", "generated_1000")
            ),
        ),
        ("authorize p99 (500-entity home)", f"{_get(results, 'policy', 'authorize_p99_ms')} ms"),
        (
            "entity index build (2,000 entities)",
            f"{_get(results, 'ha_index', 'build_ms_median')} ms",
        ),
        (
            "MQTT round trip, no-op agent, broker with TCP_NODELAY (p50 / p95)",
            f"{_get(results, *MQTT, 'latency', 'round_trip_ms', 'p50')} / "
            f"{_get(results, *MQTT, 'latency', 'round_trip_ms', 'p95')} ms",
        ),
        (
            "MQTT sustained, no-op agent",
            f"{_get(results, *MQTT, 'throughput', 'requests_per_s')} requests/s",
        ),
        (
            "whole stack under load (4 MQTT clients): requests per minute",
            _get(results, "load", "requests_per_minute"),
        ),
    ]


def _trimmed(value: Any) -> Any:
    """Sample lists are for the plots; the summary shows their size only."""
    if isinstance(value, dict):
        return {
            k: (
                f"{len(v)} samples"
                if k.startswith("samples") and isinstance(v, list | dict)
                else _trimmed(v)
            )
            for k, v in value.items()
        }
    return value


if __name__ == "__main__":
    sys.exit(main())

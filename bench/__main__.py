"""Run every benchmark and write bench/results/<date>.json plus a markdown summary.

Usage: python -m bench [--only NAME ...]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import UTC, datetime
import json
from pathlib import Path
import sys
from typing import Any

from bench import fast_path, ha_index, llm_model, machine, mqtt_roundtrip, policy

RESULTS = Path(__file__).parent / "results"
BENCHMARKS: dict[str, Callable[[], dict[str, Any]]] = {
    "policy": policy.run,
    "ha_index": ha_index.run,
    "fast_path": fast_path.run,
    "llm_model": llm_model.run,
    "mqtt_roundtrip": mqtt_roundtrip.run,
}


def main(argv: list[str] | None = None) -> int:
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
    summary = RESULTS / f"{stamp}.md"
    summary.write_text(_summary(results))
    (RESULTS / "latest.md").write_text(_summary(results))
    print(f"[bench] wrote {out} and {summary}")
    return 0


def _summary(results: dict[str, Any]) -> str:
    host = results["machine"]
    lines = [
        f"# Benchmarks, {results['started'][:10]}",
        "",
        f"Machine: {host['cpu_model']}, {host['logical_cpus']} logical CPUs, "
        f"{host['memory_gib']} GiB, Python {host['python']}.",
        "",
    ]
    for name, value in results.items():
        if name in {"machine", "started"}:
            continue
        lines += [f"## {name}", "", "```json", json.dumps(value, indent=2), "```", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

"""Whole model-path turns as the app runs them: the evaluation's model-path cases through the
demo stack (a real HA, the app over MQTT, the agent's narrowed grammar, every step, HA's
execution), with each answer's own time breakdown (`timings`, docs/mqtt-api.md).

Usage: make bench ARGS="--turns [--model NAME|PATH] [--set dev|heldout] [--only ID|CATEGORY ...]
                               [--per-category N] [--name NAME]"

Writes bench/results/turns-<model>-<date>[-<name>].json and .md: whole-turn p50/p95 as the
requester waited (request sent to answer read, the eval's own figure), the median of each
part of a turn and of each model step, the cases passed (HA-judged, as in the eval), and the
machine's load before and after. The first turn of the run is reported apart (it may build
the prefix); a `warming_up` wait is not a turn.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
import json
import os
from pathlib import Path
import re
import statistics
import time
from typing import Any

from bench import machine
from bench.peer import pick
from demo.client import AgentClient
from demo.home_setup import ha_client
from demo.stack import INSTANCE, DemoStack, stop_cleanly_on_sigterm
from tests.eval.cases import DEV, HELDOUT, Case, load_cases
from tests.eval.heldout import RENAMED_HOME, heldout_cases
from tests.eval.home import Home
from tests.eval.run import Evaluation, resolve_model

RESULTS = Path(__file__).parent / "results"
TURN_PARTS = ("queue_ms", "fast_path_ms", "model_ms", "checks_ms", "ha_ms")
STEP_PARTS = (
    "total_ms",
    "wait_ms",
    "render_ms",
    "grammar_ms",
    "prompt_ms",
    "restore_ms",
    "build_ms",
    "generation_ms",
    "evaluated_tokens",
    "sampled_tokens",
    "forced_tokens",
    "decode_steps",
    "ms_per_token",
)


class RecordingClient:
    """The eval's client, keeping every answer with the time the requester waited for it."""

    def __init__(self, client: AgentClient) -> None:
        self._client = client
        self.answers: list[tuple[float, dict[str, Any]]] = []

    async def ask_when_warm(
        self,
        text: str,
        user_id: str,
        *,
        conversation_id: str | None = None,
        on_wait: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]:
        started = [time.monotonic()]

        def warming(answer: dict[str, Any]) -> None:
            started[0] = time.monotonic()  # the wait for a prefix build is not the turn
            if on_wait is not None:
                on_wait(answer)

        answer = await self._client.ask_when_warm(
            text, user_id, conversation_id=conversation_id, on_wait=warming
        )
        self.answers.append(((time.monotonic() - started[0]) * 1000, answer))
        return answer


def model_path_cases(split: str, only: set[str], per_category: int | None) -> list[Case]:
    """The split's cases that reach the model (not answered by the fast path alone)."""
    dev = load_cases()
    cases = dev if split == DEV else heldout_cases(dev)
    return pick([c for c in cases if not c.deterministic], only, per_category)


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[max(0, min(len(ordered) - 1, round(q * (len(ordered) - 1))))], 1)


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 1) if values else 0.0


def summarize(answers: list[tuple[float, dict[str, Any]]]) -> dict[str, Any]:
    """Whole-turn quantiles and the median of every part, over the model-path turns."""
    turns = [(ms, a) for ms, a in answers if a.get("path") == "model" and a["timings"]["steps"]]
    if not turns:
        return {"turns": 0}
    first, rest = turns[0], turns[1:] or turns
    waited = [ms for ms, _ in rest]
    steps = [s for _, a in rest for s in a["timings"]["steps"]]
    return {
        "turns": len(rest),
        "first_turn_ms": round(first[0], 1),
        "first_turn_prefix_source": first[1]["timings"]["steps"][0]["prefix_source"],
        "whole_turn_p50_ms": _quantile(waited, 0.5),
        "whole_turn_p95_ms": _quantile(waited, 0.95),
        "whole_turn_max_ms": round(max(waited), 1),
        "steps_per_turn": round(len(steps) / len(rest), 2),
        "turns_by_steps": {
            str(n): sum(1 for _, a in rest if len(a["timings"]["steps"]) == n)
            for n in sorted({len(a["timings"]["steps"]) for _, a in rest})
        },
        "turn_median": {p: _median([a["timings"][p] for _, a in rest]) for p in TURN_PARTS},
        "step_median": {p: _median([s[p] for s in steps]) for p in STEP_PARTS},
        "step_sum": {p: round(sum(s[p] for s in steps), 1) for p in STEP_PARTS},
        "prefix_sources": {
            source: sum(1 for s in steps if s["prefix_source"] == source)
            for source in sorted({s["prefix_source"] for s in steps})
        },
    }


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    cases = model_path_cases(args.set, set(args.only or ()), args.per_category)
    if not cases:
        raise SystemExit("[bench] no model-path case matches")
    model, label = await resolve_model(args.model, stand_in=False)

    def say(line: str) -> None:
        print(f"[bench] {line}", flush=True)

    say(f"{len(cases)} model-path cases of the {args.set} set, model {label}")
    load = [round(os.getloadavg()[0], 2)]
    passed: dict[str, bool] = {}
    async with DemoStack(model, say) as stack:
        assert stack.accounts is not None and stack.app is not None
        app = stack.app
        mqtt = AgentClient(stack.broker.host, stack.broker.port, INSTANCE, stack.secret)
        await mqtt.connect()
        client = RecordingClient(mqtt)
        try:
            async with ha_client(stack.ha_url, stack.accounts.token) as ha:

                def names_seen(entity_id: str, name: str) -> bool:
                    entity = app.index.home.entities.get(entity_id)
                    return entity is not None and entity.name == name

                def area_seen(area_id: str, name: str) -> bool:
                    area = app.index.home.areas.get(area_id)
                    return area is not None and area.name == name

                home = Home(ha, names_seen=names_seen, area_seen=area_seen)
                await home.start()
                if args.set == HELDOUT:
                    await home.rename(RENAMED_HOME)
                evaluation = Evaluation(stack, client, home)
                for index, case in enumerate(cases, 1):
                    outcome = await evaluation.run_case(case)
                    passed[case.id] = outcome.passed
                    ms = [f"{m:.0f}" for m in outcome.latencies_ms]
                    mark = "ok  " if outcome.passed else "miss"
                    say(f"{index:3}/{len(cases)} {mark} {case.id}: {', '.join(ms)} ms")
                if args.set == HELDOUT:
                    await home.rename(RENAMED_HOME, back=True)
            model_line = stack.model_line()
        finally:
            await mqtt.close()
    load.append(round(os.getloadavg()[0], 2))
    return {
        "model": label,
        "set": args.set,
        "started": datetime.now(UTC).isoformat(),
        "machine": machine.describe(),
        "load_average": load,
        "engine": model_line,
        "cases": len(cases),
        "passed": sorted(c for c, ok in passed.items() if ok),
        "failed": sorted(c for c, ok in passed.items() if not ok),
        "summary": summarize(client.answers),
        "answers": [
            {"waited_ms": round(ms, 1), "path": a.get("path"), "timings": a.get("timings")}
            for ms, a in client.answers
        ],
    }


def markdown(report: dict[str, Any]) -> str:
    summary = report["summary"]
    load = report["load_average"]
    lines = [
        f"# Whole model-path turns, {report['model']}, {report['started'][:10]}",
        "",
        f"The {report['set']} set's {report['cases']} model-path cases through the demo stack "
        "(HA, the app over MQTT, the agent's narrowed grammar, every step, HA's execution). "
        f"Load average {load[0]} before, {load[-1]} after, on {report['machine']['logical_cpus']} "
        f"CPUs. Cases passed (HA-judged): {len(report['passed'])} of {report['cases']}.",
        f"{report['engine'] or ''}",
        "",
    ]
    if not summary["turns"]:
        return "\n".join([*lines, "No model-path turn was answered.", ""])
    lines += [
        "| measure | value |",
        "| --- | --- |",
        f"| model-path turns (after the first) | {summary['turns']} |",
        f"| whole turn p50 / p95 / max | {summary['whole_turn_p50_ms']:.0f} / "
        f"{summary['whole_turn_p95_ms']:.0f} / {summary['whole_turn_max_ms']:.0f} ms |",
        f"| first turn of the run | {summary['first_turn_ms']:.0f} ms "
        f"({summary['first_turn_prefix_source']}) |",
        f"| model steps per turn | {summary['steps_per_turn']} {summary['turns_by_steps']} |",
        "",
        "Median per turn (ms): "
        + ", ".join(f"{k.removesuffix('_ms')} {v:.0f}" for k, v in summary["turn_median"].items()),
        "",
        "| per model step | median | sum over the run |",
        "| --- | --- | --- |",
        *[
            f"| {part} | {summary['step_median'][part]} | {summary['step_sum'][part]} |"
            for part in STEP_PARTS
        ],
        "",
        f"Where the steps started: {summary['prefix_sources']}.",
        "",
        f"Failed cases: {', '.join(report['failed']) or 'none'}.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog='make bench ARGS="--turns"', description=__doc__)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b", help="a test-bed name or a path")
    parser.add_argument("--set", choices=(DEV, HELDOUT), default=HELDOUT)
    parser.add_argument("--only", nargs="*", help="case ids or categories")
    parser.add_argument("--per-category", type=int, default=None)
    parser.add_argument("--name", help="appended to the result file's name")
    args = parser.parse_args(argv)
    stop_cleanly_on_sigterm()
    report = asyncio.run(measure(args))
    short = re.sub(r"[^A-Za-z0-9._-]+", "-", report["model"].split(" ", 1)[0])
    stem = f"turns-{short}-{report['started'][:10]}" + (f"-{args.name}" if args.name else "")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / f"{stem}.md").write_text(markdown(report))
    print(markdown(report))
    print(f"[bench] written: {RESULTS / stem}.json and .md")
    return 0

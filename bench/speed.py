"""The model path's speed acceptance figures (issue 15) with a real model on the family home.

Through the model worker and the planner's prompt and grammar, as the app runs them, with
the app's data folder (a temporary one) holding the prefix snapshots:

* cold: load, then the first answer with no snapshot anywhere (the prefix build's seconds);
* warm: one-call answers over the varied requests, p50 / p95, with the tokens of each call
  split into sampled (a decode step each) and grammar-forced (jump-forward, in one batch),
  and (each request asked again right after, step by step) whether the call is the same
  and how long step-by-step decoding took;
* a second principal of a narrower scope (a child): what its first answer costs on top of
  the shared system+tools snapshot (tokens evaluated, seconds), and the RSS with both warm;
* the snapshot files on disk with their sizes;
* restart: a new worker and engine on the same data folder, start to its first answer
  (the snapshot read from disk, not evaluated again).

Writes bench/results/speed-<model>-<date>.json and .md. With `--cold-sweep 128,256,512`
it only times, for each batch size (n_batch = n_ubatch) and flash attention on and off, the
cold prefix build and then a short and a long request and the generated tokens on that
snapshot, and writes bench/results/cold-prefix-<model>-<date>.{json,md}.
Usage: python -m bench.speed [--model NAME] [--threads N] [--batch N] [--no-compare]
       python -m bench.speed --cold-sweep 128,256,512 [--model NAME]
       make bench ARGS="--speed [--model NAME]"
"""

from __future__ import annotations

import argparse
import asyncio
from datetime import UTC, datetime
import json
import os
from pathlib import Path
import statistics
import tempfile
import time
from typing import Any

from bench import machine
from bench.model_requests import (
    CHILD,
    CHILD_REQUESTS,
    MAX_TOKENS,
    NOW,
    REQUESTS,
    Answer,
    ask_all,
    home_offer,
    rss_mb,
)
from bench.stats import percentile
from botpsy_agent.llm.engine import Engine
from botpsy_agent.llm.llama_cpp import EngineSettings, LlamaEngine
from botpsy_agent.llm.prompt import (
    RenderedPrompt,
    build_prefix,
    prefix_tokens,
    render_prompt,
    request_context,
)
from botpsy_agent.llm.worker import ModelWorker
from devkit.real_models import DEFAULT_MODEL, fetch

RESULTS = Path(__file__).parent / "results"
BARS = {"cold_prefix_s": 20.0, "restart_first_answer_s": 5.0, "warm_p50_s": 1.5}
BARS_MORE = {"warm_p95_s": 3.0, "rss_two_principals_mb": 1200.0}


def start_worker(settings: EngineSettings) -> ModelWorker:
    worker = ModelWorker(lambda: LlamaEngine(settings), build_wait_s=600)
    worker.start()
    return worker


def local_engine(worker: ModelWorker) -> LlamaEngine:
    engine = worker.local
    if engine is None:
        raise RuntimeError("the local model did not load")
    return engine


async def set_jump_forward(worker: ModelWorker, on: bool) -> None:
    """On the worker's thread, between jobs, like every engine change."""

    def job(engine: Engine, _cancel: object) -> None:
        assert isinstance(engine, LlamaEngine)
        engine.jump_forward = on

    await worker.run(job, timeout_s=60)  # type: ignore[arg-type]


async def warm_requests(
    worker: ModelWorker, compare: bool
) -> tuple[list[Answer], list[Answer | None]]:
    """Each request with jump-forward, then (with `compare`) step by step right after it:
    pairs a moment apart, so a machine whose load drifts slows both alike."""
    warm: list[Answer] = []
    stepwise: list[Answer | None] = []
    for text in REQUESTS:
        warm += await ask_all(worker, (text,))
        if not compare:
            stepwise.append(None)
            continue
        await set_jump_forward(worker, False)
        stepwise += await ask_all(worker, (text,))
        await set_jump_forward(worker, True)
    return warm, stepwise


def call_row(answer: Answer, stepwise: Answer | None) -> dict[str, Any]:
    completion = answer.completion
    return {
        "request": answer.text,
        "wall_s": round(answer.wall_s, 2),
        "tokens": len(completion.tokens),
        "forced": completion.forced_tokens,
        "sampled": len(completion.tokens) - completion.forced_tokens,
        "decode_steps": completion.decode_steps,
        "prompt_ms": round(completion.prompt_ms),
        "generation_ms": round(completion.generation_ms),
        "same_as_stepwise": None
        if stepwise is None
        else stepwise.completion.text == completion.text,
        "stepwise_wall_s": None if stepwise is None else round(stepwise.wall_s, 2),
        "text": completion.text,
        "stepwise_text": None if stepwise is None else stepwise.completion.text,
    }


async def first_run(settings: EngineSettings, compare: bool) -> dict[str, Any]:
    """Cold start, warm requests, the second principal; the worker stops at the end."""
    started = time.perf_counter()
    worker = start_worker(settings)
    try:
        await worker.wait_loaded()
        engine = local_engine(worker)
        load_s = time.perf_counter() - started
        rss_loaded = rss_mb()
        (cold,) = await ask_all(worker, REQUESTS[:1])
        cold_prefix_s = engine.build_seconds()
        warm, stepwise = await warm_requests(worker, compare)
        rss_one = rss_mb()
        child = await ask_all(worker, CHILD_REQUESTS, home_offer(CHILD))
        again = await ask_all(worker, REQUESTS[:2])  # the admin's snapshot still serves
        rss_two = rss_mb()
        store = engine.prefixes.store
        walls = [a.wall_s for a in warm]
        rows = [call_row(a, s) for a, s in zip(warm, stepwise, strict=True)]
        step_walls = [s.wall_s for s in stepwise if s is not None]
        return {
            "load_s": round(load_s, 2),
            "prompt_tokens": cold.completion.prompt_tokens,
            "cold_prefix_s": round(cold_prefix_s, 2),
            "cold_first_answer_s": round(load_s + cold.wall_s, 2),
            "cold_source": cold.completion.prefix_source,
            "warm_requests": len(warm),
            "warm_p50_s": round(percentile(walls, 0.5), 2),
            "warm_p95_s": round(percentile(walls, 0.95), 2),
            "stepwise_p50_s": round(percentile(step_walls, 0.5), 2) if step_walls else None,
            "stepwise_p95_s": round(percentile(step_walls, 0.95), 2) if step_walls else None,
            "calls_same_as_stepwise": (
                sum(bool(r["same_as_stepwise"]) for r in rows) if compare else None
            ),
            "tokens_per_call_p50": percentile([r["tokens"] for r in rows], 0.5),
            "forced_tokens_total": sum(r["forced"] for r in rows),
            "sampled_tokens_total": sum(r["sampled"] for r in rows),
            "second_principal": {
                "first_source": child[0].completion.prefix_source,
                "first_evaluated_tokens": child[0].completion.evaluated_tokens,
                "first_prompt_s": round(child[0].completion.prompt_ms / 1000, 2),
                "first_wall_s": round(child[0].wall_s, 2),
                "warm_wall_s": [round(a.wall_s, 2) for a in child[1:]],
                "admin_after_sources": [a.completion.prefix_source for a in again],
            },
            "rss_mb": {"loaded": rss_loaded, "one_principal": rss_one, "two_principals": rss_two},
            "snapshot_memory_mb": round(engine.prefixes.used / 1e6, 1),
            "snapshot_files": [] if store is None else [[n, s] for n, s in store.files()],
            "calls": rows,
        }
    finally:
        await asyncio.to_thread(worker.stop)


async def restart(settings: EngineSettings) -> dict[str, Any]:
    """A new worker and engine on the same data folder: start to its first answer."""
    started = time.perf_counter()
    worker = start_worker(settings)
    try:
        await worker.wait_loaded()
        load_s = time.perf_counter() - started
        (first,) = await ask_all(worker, REQUESTS[1:2])
        return {
            "load_s": round(load_s, 2),
            "first_answer_s": round(time.perf_counter() - started, 2),
            "source": first.completion.prefix_source,
            "evaluated_tokens": first.completion.evaluated_tokens,
            "prefix_built_s": round(local_engine(worker).build_seconds(), 2),
        }
    finally:
        await asyncio.to_thread(worker.stop)


LONG_TAIL = json.dumps(
    [
        {"summary": f"Event {n}", "start": f"2026-12-{n + 1:02d}T18:00:00+01:00", "uid": f"u{n}"}
        for n in range(10)
    ]
)
"""About 300 tokens after the request, as a step that follows a calendar read has them."""


def cold_sweep(model: Path, threads: int, sizes: list[int]) -> list[dict[str, Any]]:
    """Per batch size and flash attention setting: the prefix build from nothing, then what
    a turn pays on top of its snapshot: a short request's and a long one's tokens evaluated
    at the prefix's end (restore included), and the time of each generated token there."""
    rows = []
    listing = home_offer().listing
    for flash in (True, False):
        for size in sizes:
            settings = EngineSettings(
                model, threads=threads, batch_size=size, flash_attention=flash
            )
            engine = LlamaEngine(settings)
            try:
                prefix = build_prefix(listing)
                built = prefix_tokens(engine.template, engine.tokenize, prefix)
                started = time.perf_counter()
                engine.warm(built.tokens, cuts=built.cuts)
                seconds = time.perf_counter() - started
                after = {
                    kind: _after_prefix(
                        engine,
                        render_prompt(
                            engine.template,
                            engine.tokenize,
                            prefix,
                            [{"role": "user", "content": text}],
                        ),
                    )
                    for kind, text in (
                        ("short", f"{request_context(NOW)} {REQUESTS[0]}"),
                        ("long", f"{request_context(NOW)} {REQUESTS[0]} {LONG_TAIL}"),
                    )
                }
            finally:
                engine.close()
            row: dict[str, Any] = {
                "batch": size,
                "flash_attention": flash,
                "tokens": len(built.tokens),
            }
            row |= {"seconds": round(seconds, 2), "after_prefix": after}
            row["load_now"] = round(os.getloadavg()[0], 2)
            print(f"[speed] cold sweep: {json.dumps(row)}", flush=True)
            rows.append(row)
    return rows


def _after_prefix(engine: LlamaEngine, prompt: RenderedPrompt, repeats: int = 3) -> dict[str, Any]:
    """Median over `repeats` of a request's prompt (restore and its own tokens) and of the
    milliseconds per generated token (16, no grammar: one decode step each)."""
    runs = [engine.complete(prompt.tokens, prompt.cuts, None, 16) for _ in range(repeats)]
    return {
        "tokens": runs[0].evaluated_tokens,
        "prompt_ms": round(statistics.median(r.prompt_ms for r in runs)),
        "ms_per_generated_token": round(
            statistics.median(r.generation_ms / max(1, len(r.tokens)) for r in runs), 1
        ),
    }


def sweep_report(model: str, stamp: str, rows: list[dict[str, Any]]) -> str:
    host = machine.describe()
    lines = [
        f"# Cold prefix build by batch size, {model}, {stamp}",
        "",
        f"`python -m bench.speed --cold-sweep` on {host['cpu_model']} "
        f"({host['logical_cpus']} logical CPUs, shared): the family home's admin prefix "
        "evaluated from nothing in a fresh engine (n_batch = n_ubatch), one after the other.",
        "",
        "Then, on the snapshot just built, what every turn pays on top of it (medians of "
        "three): a short request's tokens and a long one's (a step after a calendar read) "
        "evaluated at the prefix's end, restore included; and each generated token there.",
        "",
        "| n_batch | flash attention | prefix tokens | cold s | tokens/s | short request "
        "| long request | ms a generated token | load average then |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *[
            f"| {r['batch']} | {r['flash_attention']} | {r['tokens']} | {r['seconds']} | "
            f"{r['tokens'] / r['seconds']:.0f} | {_after(r, 'short')} | {_after(r, 'long')} | "
            f"{r['after_prefix']['short']['ms_per_generated_token']} | {r['load_now']} |"
            for r in rows
        ],
        "",
    ]
    return "\n".join(lines)


def _after(row: dict[str, Any], kind: str) -> str:
    after = row["after_prefix"][kind]
    return f"{after['tokens']} tokens, {after['prompt_ms']} ms"


def headline(result: dict[str, Any]) -> dict[str, Any]:
    first, again = result["first"], result["restart"]
    return {
        "cold_prefix_s": first["cold_prefix_s"],
        "restart_first_answer_s": again["first_answer_s"],
        "warm_p50_s": first["warm_p50_s"],
        "warm_p95_s": first["warm_p95_s"],
        "rss_two_principals_mb": first["rss_mb"]["two_principals"],
    }


def report(results: dict[str, Any]) -> str:
    first, again, host = results["first"], results["restart"], results["machine"]
    child = first["second_principal"]
    bars = {**BARS, **BARS_MORE}
    lines = [
        f"# Model-path speed, {results['model']}, {results['date']}",
        "",
        f"`python -m bench.speed` (bench/speed.py): {results['model']} in this process, "
        f"{results['threads']} threads, n_batch {results['batch']}, on {host['cpu_model']} "
        f"({host['logical_cpus']} logical CPUs, shared). Family home, the planner's prompt "
        f"({first['prompt_tokens']} tokens for the first request) and grammar (REQUIRED), at "
        f"most {MAX_TOKENS} tokens, through the model worker; snapshots in a fresh data "
        f"folder. Load average before / after: {results['load_before']} / "
        f"{results['load_after']}.",
        "",
        "| measure | value | bar (issue 15, 0.5B) |",
        "| --- | --- | --- |",
    ]
    for key, value in headline(results).items():
        lines.append(f"| {key} | {value} | ≤ {bars[key]} |")
    lines += [
        f"| load (model file to ready) | {first['load_s']} s | |",
        f"| cold: start to first answer | {first['cold_first_answer_s']} s | |",
        f"| restart: source / tokens evaluated / prefix built | {again['source']} / "
        f"{again['evaluated_tokens']} / {again['prefix_built_s']} s | |",
        f"| step-by-step decoding p50 / p95 (same requests) | {first['stepwise_p50_s']} / "
        f"{first['stepwise_p95_s']} s | |",
        f"| calls identical to step-by-step | {first['calls_same_as_stepwise']} of "
        f"{first['warm_requests']} | |",
        f"| tokens per call (p50) | {first['tokens_per_call_p50']} | |",
        f"| sampled / grammar-forced tokens (all warm calls) | {first['sampled_tokens_total']} / "
        f"{first['forced_tokens_total']} | |",
        f"| second principal (child): first answer | {child['first_wall_s']} s, "
        f"{child['first_evaluated_tokens']} tokens evaluated on the "
        f"{child['first_source']} snapshot ({child['first_prompt_s']} s of prompt) | |",
        f"| second principal: warm answers | {child['warm_wall_s']} s | |",
        f"| admin after the child (snapshot source) | {child['admin_after_sources']} | |",
        f"| RSS loaded / one warm / two warm principals | {first['rss_mb']['loaded']} / "
        f"{first['rss_mb']['one_principal']} / {first['rss_mb']['two_principals']} MB | |",
        f"| snapshots in memory | {first['snapshot_memory_mb']} MB | |",
        "",
        "Snapshot files on disk:",
        "",
        "| file | bytes |",
        "| --- | --- |",
        *[f"| {name} | {size:,} |" for name, size in first["snapshot_files"]],
        "",
        "Warm calls (tokens: all generated; forced: fed in a batch by jump-forward; "
        "decode steps: model evaluations):",
        "",
        "| request | s | step-by-step s | tokens | forced | decode steps | same |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *[
            f"| {r['request']} | {r['wall_s']} | {r['stepwise_wall_s']} | {r['tokens']} | "
            f"{r['forced']} | {r['decode_steps']} | {r['same_as_stepwise']} |"
            for r in first["calls"]
        ],
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=EngineSettings.batch_size)
    parser.add_argument("--no-compare", action="store_true", help="skip step-by-step runs")
    parser.add_argument("--cold-sweep", help="only time cold builds at these batch sizes")
    args = parser.parse_args(argv)
    model = fetch(args.model)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    if args.cold_sweep:
        sizes = [int(size) for size in args.cold_sweep.split(",")]
        rows = cold_sweep(model, args.threads, sizes)
        name = f"cold-prefix-{args.model}-{stamp}"
        (RESULTS / f"{name}.json").write_text(json.dumps(rows, indent=2) + "\n")
        (RESULTS / f"{name}.md").write_text(sweep_report(args.model, stamp, rows))
        print(f"[speed] wrote bench/results/{name}.md")
        return 0
    load_before = [round(x, 2) for x in os.getloadavg()]
    print(f"[speed] {args.model}: cold, {len(REQUESTS)} warm, child, restart", flush=True)
    with tempfile.TemporaryDirectory(dir=Path.cwd() / ".scratch") as data:
        settings = EngineSettings(
            model,
            threads=args.threads,
            batch_size=args.batch,
            snapshot_dir=Path(data) / "snapshots",
        )
        first = asyncio.run(first_run(settings, not args.no_compare))
        print(f"[speed] first run: cold prefix {first['cold_prefix_s']} s", flush=True)
        again = asyncio.run(restart(settings))
        print(f"[speed] restart: {json.dumps(again)}", flush=True)
    results = {
        "date": stamp,
        "model": args.model,
        "threads": args.threads,
        "batch": args.batch,
        "machine": machine.describe(),
        "load_before": load_before,
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "first": first,
        "restart": again,
    }
    RESULTS.mkdir(exist_ok=True)
    name = f"speed-{args.model}-{stamp}"
    (RESULTS / f"{name}.json").write_text(json.dumps(results, indent=2) + "\n")
    (RESULTS / f"{name}.md").write_text(report(results))
    print(f"[speed] {json.dumps(headline(results))}")
    print(f"[speed] wrote bench/results/{name}.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The model in this process against the same model file behind `llama-server`.

Same real GGUF (Qwen2.5-Coder-0.5B by default), same home, same requests, one after the
other through the model worker and the planner's prompt and grammar, each backend alone on
the machine (the server is stopped before the local model loads):

* cold: from nothing to the first answer (the local model loads and builds its prefix
  snapshot; the server process starts, loads and evaluates the prefix in its slot);
* warm: every later request, end to end through the worker (p50 / p95);
* prompt tokens evaluated per request (after the prefix reuse) and generated tokens per
  second, from each backend's own figures (the server's `timings`).

Writes bench/results/server-<date>.json and .md.
Usage: python -m bench.server [--model NAME] [--requests N] [--threads N]
       make bench ARGS="--server [--requests N]"
"""

from __future__ import annotations

import argparse
import asyncio
from datetime import UTC, datetime
import json
import os
from pathlib import Path
import tempfile
import time
from typing import Any

from bench import machine
from bench.model_requests import MAX_TOKENS, REQUESTS, Answer, ask_all
from bench.stats import percentile
from botpsy_agent.llm.llama_cpp import EngineSettings, LlamaEngine
from botpsy_agent.llm.llama_server import ServerSettings
from botpsy_agent.llm.worker import ModelWorker
from devkit.llama_server import LlamaServer
from devkit.real_models import DEFAULT_MODEL, fetch

RESULTS = Path(__file__).parent / "results"


def summary(started: float, ready_s: float, answers: list[Answer]) -> dict[str, Any]:
    first, warm = answers[0], answers[1:]
    walls = [a.wall_s for a in warm]
    tokens = sum(len(a.completion.tokens) for a in warm)
    generation_s = sum(a.completion.generation_ms for a in warm) / 1000
    return {
        "ready_s": round(ready_s, 2),
        "cold_first_answer_s": round(ready_s + first.wall_s, 2),
        "cold_prompt_tokens_evaluated": first.completion.evaluated_tokens,
        "prompt_tokens": first.completion.prompt_tokens,
        "warm_requests": len(warm),
        "warm_p50_s": round(percentile(walls, 0.5), 2),
        "warm_p95_s": round(percentile(walls, 0.95), 2),
        "warm_prompt_tokens_evaluated_p50": percentile(
            [a.completion.evaluated_tokens for a in warm], 0.5
        ),
        "generated_tokens": tokens,
        "generated_tokens_per_s": round(tokens / generation_s, 1) if generation_s else None,
        "finish_reasons": sorted({a.completion.finish_reason for a in answers}),
        "total_s": round(time.perf_counter() - started, 1),
    }


async def run_local(model: Path, threads: int, texts: tuple[str, ...]) -> dict[str, Any]:
    started = time.perf_counter()
    settings = EngineSettings(model, context_length=8192, threads=threads)
    worker = ModelWorker(lambda: LlamaEngine(settings), build_wait_s=600)
    worker.start()
    try:
        await worker.wait_loaded()
        ready_s = time.perf_counter() - started
        return summary(started, ready_s, await ask_all(worker, texts))
    finally:
        await asyncio.to_thread(worker.stop)


async def run_server(model: Path, threads: int, texts: tuple[str, ...]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        server = LlamaServer(
            model, Path(folder) / "server.log", context_length=8192, threads=threads
        ).start()
        worker = ModelWorker(None, server=ServerSettings(server.url, timeout_s=600))
        worker.start()
        try:
            await worker.wait_loaded()
            ready_s = time.perf_counter() - started
            result = summary(started, ready_s, await ask_all(worker, texts))
            result["served"] = dict(worker.served)
            return result
        finally:
            await asyncio.to_thread(worker.stop)
            server.stop()


def report(results: dict[str, Any]) -> str:
    local, server = results["local"], results["server"]
    rows = [
        ("ready (loaded / process up and healthy)", "ready_s", "s"),
        ("cold: start to first answer", "cold_first_answer_s", "s"),
        ("prompt tokens evaluated, first request", "cold_prompt_tokens_evaluated", ""),
        ("warm answer p50", "warm_p50_s", "s"),
        ("warm answer p95", "warm_p95_s", "s"),
        ("prompt tokens evaluated per warm request (p50)", "warm_prompt_tokens_evaluated_p50", ""),
        ("generated tokens per second (warm)", "generated_tokens_per_s", ""),
    ]
    host = results["machine"]
    lines = [
        f"# Local model vs. llama-server, {results['date']}",
        "",
        f"`python -m bench.server` (bench/server.py): {results['model']} in this process "
        f"(llama-cpp-python) and behind llama-server (built from the same vendored llama.cpp), "
        f"{results['threads']} threads each, one after the other on {host['cpu_model']} "
        f"({host['logical_cpus']} logical CPUs). {results['requests']} requests on the family "
        f"home, each through the model worker with the planner's prompt (the first "
        f"request's: {local['prompt_tokens']} tokens, the fixed prefix included) and grammar, "
        f"at most {MAX_TOKENS} tokens. Load average before: {results['load_before']}.",
        "",
        "| measure | local | server |",
        "| --- | --- | --- |",
    ]
    for label, key, unit in rows:
        lines.append(f"| {label} | {local[key]} {unit} | {server[key]} {unit} |")
    lines += [
        "",
        "Both keep the fixed prefix: the local engine restores its snapshot, the server its "
        "slot's cache (cache_prompt). Here both run on the same 2 cores, so the comparison is "
        "the overhead of HTTP and the server's scheduling; on a stronger machine the server's "
        "speed is that machine's.",
        "",
        "```json",
        json.dumps({k: results[k] for k in ("local", "server")}, indent=2),
        "```",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--requests", type=int, default=len(REQUESTS), choices=range(2, 21))
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    model = fetch(args.model)
    texts = REQUESTS[: args.requests]
    load_before = [round(x, 2) for x in os.getloadavg()]
    print(f"[server-bench] {args.model}: {len(texts)} requests, local then server", flush=True)
    local = asyncio.run(run_local(model, args.threads, texts))
    print(f"[server-bench] local: {json.dumps(local)}", flush=True)
    server = asyncio.run(run_server(model, args.threads, texts))
    print(f"[server-bench] server: {json.dumps(server)}", flush=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    results = {
        "date": stamp,
        "model": args.model,
        "threads": args.threads,
        "requests": len(texts),
        "machine": machine.describe(),
        "load_before": load_before,
        "local": local,
        "server": server,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"server-{stamp}.json").write_text(json.dumps(results, indent=2) + "\n")
    (RESULTS / f"server-{stamp}.md").write_text(report(results))
    print(f"[server-bench] wrote bench/results/server-{stamp}.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

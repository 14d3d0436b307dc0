"""Sustained load on the whole stack: several MQTT clients asking the demo home at once.

The demo stack (Mosquitto, a real HA process, the app with the tiny stand-in model) serves
four clients that each keep one request outstanding for the duration: fast-path commands,
with one request in ten going to the model. Requests per minute, latency percentiles and the
latency distribution (for the plots) come out.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import statistics
import time
from typing import Any

from bench.stats import percentile
from demo.client import AgentClient
from demo.stack import INSTANCE, DemoStack, ModelChoice
from devkit.tiny_gguf import TINY_QWEN35, cached_model

CLIENTS = 4
SECONDS = float(os.environ.get("BOTPSY_BENCH_LOAD_SECONDS", "60"))
FAST = (
    "turn on the kitchen light",
    "turn off the kitchen light",
    "turn on the hall light",
    "turn off the hall light",
    "set the bedroom light to 40%",
    "is the front door locked",
    "pause the living room tv",
    "set the kids room fan to 30%",
    "turn on the fairy lights",
)
MODEL = "could you make it cosy in the living room"


async def _client(stack: DemoStack, number: int, deadline: float) -> list[tuple[str, float, str]]:
    assert stack.accounts is not None
    client = AgentClient(stack.broker.host, stack.broker.port, INSTANCE, stack.secret)
    await client.connect()
    results = []
    try:
        for turn in itertools.count():
            if time.monotonic() > deadline:
                break
            text = MODEL if (turn + number) % 10 == 0 else FAST[(turn + number) % len(FAST)]
            started = time.monotonic()
            answer = await client.ask(text, stack.accounts.admin_id, timeout_s=120)
            results.append(
                (answer.get("path", "none"), (time.monotonic() - started) * 1000, answer["status"])
            )
    finally:
        await client.close()
    return results


async def _run() -> dict[str, Any]:
    model = ModelChoice(cached_model(TINY_QWEN35, "tiny-qwen35"), stand_in=True)
    async with DemoStack(model, lambda line: print(f"[bench] load: {line}", flush=True)) as stack:
        deadline = time.monotonic() + SECONDS
        started = time.monotonic()
        batches = await asyncio.gather(*(_client(stack, n, deadline) for n in range(CLIENTS)))
        elapsed = time.monotonic() - started
    answers = [a for batch in batches for a in batch]
    fast = sorted(ms for path, ms, _ in answers if path == "fast_path")
    model_ms = sorted(ms for path, ms, _ in answers if path == "model")

    def pct(values: list[float], q: float) -> float | None:
        return round(percentile(values, q), 1) if values else None

    return {
        "clients": CLIENTS,
        "seconds": round(elapsed, 1),
        "requests": len(answers),
        "requests_per_minute": round(len(answers) / elapsed * 60, 1),
        "statuses": {
            s: sum(1 for *_, st in answers if st == s) for s in {st for *_, st in answers}
        },
        "fast_path": {
            "count": len(fast),
            "p50_ms": round(statistics.median(fast), 1) if fast else None,
            "p95_ms": pct(fast, 0.95),
        },
        "model_path": {
            "count": len(model_ms),
            "p50_ms": round(statistics.median(model_ms), 1) if model_ms else None,
            "p95_ms": pct(model_ms, 0.95),
        },
        "samples_ms": {"fast_path": fast[:: max(1, len(fast) // 400)], "model": model_ms},
    }


def run() -> dict[str, Any]:
    return asyncio.run(_run())

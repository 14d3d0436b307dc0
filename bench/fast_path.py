"""Fast-path latency: recognise, resolve and authorise common commands (no HA call, no model).

The sentences are those of the fast-path tests, on the family home (devkit.homes), and on a
generated 500-entity home to show how the cost grows with the number of names.
"""

from __future__ import annotations

from datetime import UTC, datetime
import statistics
import time
from typing import Any

from bench.stats import percentile
from botpsy_agent.home.model import Home
from botpsy_agent.home.resolve import ResolutionError, resolve_call
from botpsy_agent.policy import Principal, authorize, parse_policy, usable_filter
from botpsy_agent.words.recognizer import FastPath
from devkit.homes import family_home, generated_home
from tool_schemas.base import MappingContext

SENTENCES = (
    "turn on the kitchen light",
    "turn off the lights in the kitchen",
    "set the kitchen light to 30%",
    "turn off the lights upstairs",
    "set the living room thermostat to 21 degrees",
    "pause the living room tv",
    "open the living room blinds",
    "add milk to my shopping list",
    "is the front door locked",
    "activate movie night",
)
POLICY = "version: 1\ngroups: {admin: {ignore_exposure: true, rules: [{allow: [read, control]}]}}\n"
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(percentile(ordered, 0.95), 3),
        "max_ms": round(ordered[-1], 3),
    }


def _measure(home: Home, sentences: tuple[str, ...], rounds: int) -> dict[str, Any]:
    fast = FastPath()
    policy = parse_policy(POLICY, "bench")
    admin = Principal.user("a" * 32, is_admin=True)
    fast.recognize(sentences[0], "en", home)  # loads the intents and builds the name lists once
    samples, recognised = [], 0
    for _ in range(rounds):
        for sentence in sentences:
            started = time.perf_counter()
            result = fast.recognize(sentence, "en", home)
            if result is not None:
                for call in result.calls:
                    try:
                        resolved = resolve_call(
                            home, call, MappingContext(NOW), usable_filter(policy, admin, call, NOW)
                        )
                    except ResolutionError:
                        continue
                    authorize(policy, admin, resolved, NOW)
            samples.append((time.perf_counter() - started) * 1000)
            recognised += result is not None
    return {
        "sentences": len(sentences),
        "recognised_share": round(recognised / len(samples), 2),
        **_percentiles(samples),
    }


def run() -> dict[str, Any]:
    started = time.perf_counter()
    first = FastPath()
    first.recognize("turn on the kitchen light", "en", family_home())
    cold_ms = (time.perf_counter() - started) * 1000
    big = generated_home(500, seed=2)
    names = [e.name.lower() for e in list(big.entities.values())[:10]]
    return {
        "first_call_ms_including_intent_load": round(cold_ms, 1),
        "family_home_38_entities": _measure(family_home(), SENTENCES, rounds=20),
        "generated_home_500_entities": _measure(
            big, tuple(f"turn on {n}" for n in names), rounds=10
        ),
    }

"""The grounding check's cost (words/grounding.py; target: p99 <= 5 ms a call).

Resolved calls on a generated 500-entity home against request texts that ground them, that
name other things, and that name nothing of the home (the dearest case: the whole home's
names are searched before "no tool fits").
"""

from __future__ import annotations

from datetime import UTC, datetime
import random
import time
from typing import Any

from bench.stats import percentile
from botpsy_agent.home.resolve import ResolutionError, resolve_call
from botpsy_agent.words import grounding
from devkit.homes import generated_home
from tool_schemas.base import MappingContext
from tool_schemas.catalog import parse_tool_call

TEXTS = (
    "turn on the {name}",
    "it's too dark in {area}, brighter please",
    "turn off all the lights in the house",
    "what is the capital of France?",
    "write me a poem about autumn",
)


def run() -> dict[str, Any]:
    rng = random.Random(11)
    home = generated_home(500, seed=3)
    context = MappingContext(datetime(2026, 11, 30, 12, tzinfo=UTC))
    lights = sorted(e for e in home.entities if e.startswith(("light.", "switch.")))
    started = time.thread_time_ns()
    grounding.has_home_intent(grounding.Request("hello", "en"), home)  # builds the vocabulary
    vocabulary_ms = (time.thread_time_ns() - started) / 1e6
    samples: dict[str, list[float]] = {}
    for _ in range(400):
        entity = home.entities[rng.choice(lights)]
        call = parse_tool_call("turn_on", {"entity_id": [entity.entity_id]})
        try:
            resolved = resolve_call(home, call, context)
        except ResolutionError:
            continue
        area = home.areas[entity.area_id].name if entity.area_id in home.areas else "the hall"
        for template in TEXTS:
            text = template.format(name=entity.name, area=area)
            started = time.thread_time_ns()
            grounding.check(resolved, grounding.Request(text, "en"), home)
            samples.setdefault(template, []).append((time.thread_time_ns() - started) / 1e6)
    every = sorted(s for values in samples.values() for s in values)
    return {
        "home_entities": len(home.entities),
        "checks": len(every),
        "vocabulary_build_ms": round(vocabulary_ms, 2),
        "p50_ms": round(percentile(every, 0.5), 3),
        "p99_ms": round(percentile(every, 0.99), 3),
        "max_ms": round(every[-1], 3),
        "p99_ms_by_text": {t: round(percentile(sorted(v), 0.99), 3) for t, v in samples.items()},
    }

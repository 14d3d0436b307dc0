"""`authorize` latency on a generated 500-entity home (target: p99 < 1 ms).

Calls are resolved once up front; only the decision is timed, as the agent calls it.
"""

from __future__ import annotations

from datetime import UTC, datetime
import random
import statistics
import time
from typing import Any

from bench.stats import percentile
from botpsy_agent.home.resolve import ResolutionError, ResolvedCall, resolve_call
from botpsy_agent.policy import Principal, authorize, scope
from botpsy_agent.policy.loader import parse_policy
from devkit.homes import generated_home
from tool_schemas.base import MappingContext
from tool_schemas.catalog import parse_tool_call

USER = "d" * 32
POLICY = f"""
version: 1
household: ["notify.*"]
groups:
  admin: {{ignore_exposure: true, rules: [{{allow: [read, control]}}]}}
  users: {{rules: [{{allow: [read, control]}}]}}
users:
  - id: {USER}
    inherit: false
    rules:
      - {{allow: [read, control], areas: [area_0, area_1, area_2, area_3, area_4, area_5]}}
      - {{allow: read}}
      - {{deny: control, domains: [lock]}}
      - {{deny: [read, control], labels: [label_3]}}
      - {{limit: {{temperature: {{min: 18, max: 24}}, volume_pct: {{max: 60}}}}}}
      - {{deny: control, domains: [media_player], when: {{after: "21:00", before: "07:00"}}}}
      - {{confirm: control, domains: [cover]}}
"""


def _calls(n: int, home_ids: list[str], areas: list[str], rng: random.Random) -> list[Any]:
    calls = []
    for _ in range(n):
        kind = rng.random()
        if kind < 0.6:
            ids = rng.sample(
                [i for i in home_ids if i.split(".")[0] in {"light", "switch", "fan"}], 3
            )
            calls.append(parse_tool_call("turn_on", {"entity_id": ids}))
        elif kind < 0.9:
            calls.append(parse_tool_call("turn_off", {"area_id": [rng.choice(areas)]}))
        else:
            calls.append(parse_tool_call("get_state", {"floor_id": ["floor_1"]}))
    return calls


def run() -> dict[str, Any]:
    rng = random.Random(7)
    home = generated_home(500, seed=3)
    policy = parse_policy(POLICY, "bench.yaml")
    now = datetime(2026, 11, 30, 12, tzinfo=UTC)
    context = MappingContext(now)
    principals = [Principal.user(USER), Principal.user("e" * 32, is_admin=True)]
    resolved: list[ResolvedCall] = []
    for call in _calls(3000, sorted(home.entities), sorted(home.areas), rng):
        try:
            resolved.append(resolve_call(home, call, context))
        except ResolutionError:
            continue
    samples = []
    for i, item in enumerate(resolved):
        principal = principals[i % 2]
        started = time.perf_counter_ns()
        authorize(policy, principal, item, now)
        samples.append((time.perf_counter_ns() - started) / 1e6)
    samples.sort()
    started = time.perf_counter()
    scope(policy, principals[0], home, now)
    scope_ms = (time.perf_counter() - started) * 1000
    return {
        "home_entities": len(home.entities),
        "decisions": len(samples),
        "mean_targets_per_call": round(statistics.mean(len(r.targets) for r in resolved), 1),
        "authorize_p50_ms": round(samples[len(samples) // 2], 4),
        "authorize_p99_ms": round(percentile(samples, 0.99), 4),
        "authorize_max_ms": round(samples[-1], 4),
        "scope_build_ms": round(scope_ms, 1),
    }

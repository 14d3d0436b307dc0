"""The planner's first step against a real model, as the model benches send it.

Shared by bench/server.py (this process vs. llama-server) and bench/speed.py (the speed
acceptance figures): the family home, a policy with two principals of different scope, the
varied requests, and a job that renders the planner's prompt and grammar and keeps the
engine's own figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
import threading
import time

from botpsy_agent.agent.offer import build_offer
from botpsy_agent.llm.engine import Completion, Engine
from botpsy_agent.llm.grammar import Mode, build_grammar
from botpsy_agent.llm.planning import Offer
from botpsy_agent.llm.prompt import build_prefix, render_prompt, request_context
from botpsy_agent.llm.worker import ModelWorker
from botpsy_agent.policy import Principal, parse_policy, scope
from devkit.homes import family_home

NOW = datetime(2026, 11, 30, 18, 30, tzinfo=UTC)
ADMIN = Principal.user("a" * 32, is_admin=True)
CHILD = Principal.user("c" * 32)
POLICY = f"""\
version: 1
groups: {{admin: {{ignore_exposure: true, rules: [{{allow: [read, control]}}]}}}}
users:
  - id: {CHILD.id}
    name: Sam
    inherit: false
    rules:
      - allow: [read, control]
        areas: [kids_room, living_room]
        domains: [light, media_player, climate, fan, cover]
"""
REQUESTS = (
    "turn on the kitchen light",
    "switch the coffee machine on",
    "turn the hall light off",
    "dim the reading lamp to 30 percent",
    "is the hall window open?",
    "close the kitchen window",
    "set the living room to 21 degrees",
    "what is the temperature in the living room?",
    "turn off all the lights in the kitchen",
    "add milk to the shopping list",
    "tell Min-ji dinner is ready",
    "put a dentist appointment on the calendar tomorrow at 3 pm",
    "open the garage door",
    "lock the front door",
    "turn on the fan in the bedroom",
    "is the coffee machine on?",
    "turn the reading lamp off",
    "what's on the calendar tomorrow?",
    "switch off the living room light",
    "start the robot vacuum",
)
CHILD_REQUESTS = (
    "turn on the light in my room",
    "dim the living room light to 40 percent",
    "is the fan in my room on?",
)
MAX_TOKENS = 96


@dataclass(frozen=True)
class Answer:
    text: str
    """The request."""
    wall_s: float
    """Submitted to answered, through the model worker."""
    completion: Completion


def home_offer(principal: Principal = ADMIN) -> Offer:
    home = family_home()
    return build_offer(scope(parse_policy(POLICY, "bench"), principal, home, NOW), home)


def plan_job(offer: Offer, text: str) -> Callable[[Engine, threading.Event], Completion]:
    """What the planner does for a first step, keeping the engine's own figures."""

    def job(engine: Engine, cancel: threading.Event) -> Completion:
        user = {"role": "user", "content": f"{request_context(NOW)} {text}"}
        prompt = render_prompt(
            engine.template, engine.tokenize, build_prefix(offer.listing), [user]
        )
        grammar = build_grammar(offer.schemas, engine.info.tool_format, Mode.REQUIRED)
        return engine.complete(prompt.tokens, prompt.cuts, grammar, MAX_TOKENS, cancel=cancel)

    return job


async def ask_all(
    worker: ModelWorker, texts: tuple[str, ...], offer: Offer | None = None
) -> list[Answer]:
    """Each request in turn, end to end through the worker."""
    offer = offer or home_offer()
    answers = []
    for text in texts:
        started = time.perf_counter()
        completion = await worker.run(plan_job(offer, text), timeout_s=600)
        answers.append(Answer(text, wall := time.perf_counter() - started, completion))
        print(f"[bench]   {wall:5.2f} s, {len(completion.tokens)} tokens: {text}", flush=True)
    return answers


def rss_mb() -> float:
    """This process's resident memory now (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError("no VmRSS in /proc/self/status")

"""The model planner on real llama.cpp: grammars checked at start, thinking on or off."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from botpsy_agent.agent.offer import build_offer
from botpsy_agent.llm.llama_cpp import EngineSettings, LlamaEngine
from botpsy_agent.llm.llm_planner import LlmPlanner
from botpsy_agent.llm.planning import PlanRequest
from botpsy_agent.llm.worker import ModelWorker
from botpsy_agent.policy import scope
from devkit.homes import family_home
from tests.policy.policies import child, family_policy
from tool_schemas.catalog import TOOLS

NOON = datetime(2026, 11, 30, 12, tzinfo=UTC)


@pytest.fixture
async def worker(tiny_qwen35_gguf: Path) -> AsyncIterator[ModelWorker]:
    worker = ModelWorker(  # these tests want answers: wait out any prefix build
        lambda: LlamaEngine(EngineSettings(tiny_qwen35_gguf, context_length=16384)),
        build_wait_s=600,
    )
    worker.start()
    await worker.wait_loaded()
    yield worker
    worker.stop()


async def test_every_grammar_compiles_in_the_models_format(worker: ModelWorker) -> None:
    assert await LlmPlanner(worker).check_grammars() == len(TOOLS) + 2  # both step modes


@pytest.mark.parametrize("thinking_budget", [0, 24])
async def test_a_plan_is_calls_or_text_with_thinking_on_or_off(
    worker: ModelWorker, thinking_budget: int
) -> None:
    home = family_home()
    offer = build_offer(scope(family_policy(), child, home, NOON), home)
    planner = LlmPlanner(worker, max_tokens=200, thinking_budget=thinking_budget)
    messages = ({"role": "user", "content": "turn on my light"},)
    turn = await planner.plan(PlanRequest(offer, messages, "en", "r1", 0))
    # A first step is calls only (the grammar admits no text), each a tool of the offer;
    # only output cut off at max_tokens may hold none.
    assert turn.model_ms > 0
    assert turn.text == "", turn
    assert turn.calls or turn.truncated, turn
    assert {call.name for call in turn.calls} <= set(offer.tool_names), turn
    if not turn.truncated:
        assert turn.problems == (), turn
    # A later step may answer in text; a thought never shows in it.
    later = await planner.plan(PlanRequest(offer, messages, "en", "r1", 1, calls_only=False))
    assert later.calls or later.text or later.truncated, later
    assert {call.name for call in later.calls} <= set(offer.tool_names), later
    assert "<think>" not in later.text and "</think>" not in later.text, later
    assert all(call.name in offer.tool_names for call in turn.calls)
    assert turn.model_ms > 0


async def test_each_step_says_where_its_time_went(worker: ModelWorker) -> None:
    """The step's figures come from the engine that ran it: a cold step builds its prefix,
    the next one restores it and evaluates only its own tokens."""
    home = family_home()
    offer = build_offer(scope(family_policy(), child, home, NOON), home)
    planner = LlmPlanner(worker, max_tokens=64)
    messages = ({"role": "user", "content": "turn on my light"},)
    cold = await planner.plan(PlanRequest(offer, messages, "en", "r1", 0))
    warm = await planner.plan(PlanRequest(offer, messages, "en", "r2", 1, calls_only=False))
    for turn, step in ((cold, 0), (warm, 1)):
        timings = turn.timings
        assert timings.step == step
        assert timings.total_ms == turn.model_ms > 0
        parts = (
            timings.wait_ms,
            timings.render_ms,
            timings.grammar_ms,
            timings.prompt_ms,
            timings.generation_ms,
        )
        assert all(part >= 0 for part in parts) and sum(parts) <= timings.total_ms, timings
        assert timings.restore_ms + timings.build_ms <= timings.prompt_ms, timings
        assert timings.prompt_tokens >= timings.evaluated_tokens > 0, timings
        assert timings.sampled_tokens + timings.forced_tokens > 0, timings
        assert timings.ms_per_token > 0 and timings.grammar_ms > 0, timings
    assert cold.timings.build_ms > 0 and cold.timings.evaluated_tokens == cold.timings.prompt_tokens
    assert warm.timings.prefix_source == "snapshot" and warm.timings.build_ms == 0
    assert warm.timings.evaluated_tokens < warm.timings.prompt_tokens // 2

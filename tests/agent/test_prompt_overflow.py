"""A home whose prompt does not fit the model's context gets a clear error, never `internal`
(real HA test home, real llama.cpp with a tiny GGUF and a context too small for its prompt)."""

from __future__ import annotations

from collections.abc import AsyncIterator
import logging
from pathlib import Path

from homeassistant.util import dt as dt_util
import pytest

from botpsy_agent.agent.offer import build_offer
from botpsy_agent.agent.protocol import Status
from botpsy_agent.llm.llama_cpp import EngineSettings, LlamaEngine
from botpsy_agent.llm.llm_planner import LlmPlanner
from botpsy_agent.llm.worker import ModelWorker
from botpsy_agent.policy import scope
from tests.agent.support import admin, ask, home_policy, make_agent
from tests.ha_bridge import HaBridge, wait_until


@pytest.fixture
async def small_context_worker(tiny_qwen35_gguf: Path) -> AsyncIterator[ModelWorker]:
    worker = ModelWorker(lambda: LlamaEngine(EngineSettings(tiny_qwen35_gguf, context_length=1024)))
    worker.start()
    await worker.wait_loaded()
    yield worker
    worker.stop()


async def test_a_prompt_beyond_the_context_is_a_clear_error(
    ha_bridge: HaBridge, small_context_worker: ModelWorker
) -> None:
    agent = make_agent(ha_bridge, LlmPlanner(small_context_worker))
    response = await agent.handle(ask("what would be a nice dinner tonight", admin(ha_bridge)))
    assert response.status is Status.ERROR
    assert response.error is not None
    assert response.error.code == "prompt_too_long"
    assert "context_length" in response.error.message


async def test_warming_says_when_the_prompt_cannot_fit(
    ha_bridge: HaBridge, small_context_worker: ModelWorker, caplog: pytest.LogCaptureFixture
) -> None:
    planner = LlmPlanner(small_context_worker)
    home = ha_bridge.index.home
    offer = build_offer(scope(home_policy(), admin(ha_bridge), home, dt_util.now()), home)
    with caplog.at_level(logging.INFO, logger="botpsy_agent.llm.llm_planner"):
        planner.prepare(offer)
        await wait_until(lambda: "context_length is 1024" in caplog.text, timeout_s=60)
    assert "raise it in the app's options" in caplog.text

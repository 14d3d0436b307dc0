"""A home whose prompt does not fit the model's context gets a clear error, never `internal`
(real HA test home, real llama.cpp with a tiny GGUF and a context too small for its prompt)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from botpsy_agent.agent.planner import LlmPlanner
from botpsy_agent.llm.engine import EngineSettings, LlamaEngine
from botpsy_agent.llm.worker import ModelWorker
from botpsy_agent.protocol import Status
from tests.agent.support import admin, ask, make_agent
from tests.ha_bridge import HaBridge


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

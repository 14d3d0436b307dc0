"""A loaded tiny model per session (the engine is reused; tests do not depend on its state)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from botpsy_agent.llm.llama_cpp import EngineSettings, LlamaEngine


@pytest.fixture(scope="session")
def qwen35_engine(tiny_qwen35_gguf: Path) -> Iterator[LlamaEngine]:
    engine = LlamaEngine(EngineSettings(tiny_qwen35_gguf, context_length=16384, batch_size=512))
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def qwen3_engine(tiny_qwen3_gguf: Path) -> Iterator[LlamaEngine]:
    engine = LlamaEngine(EngineSettings(tiny_qwen3_gguf, context_length=16384, batch_size=512))
    yield engine
    engine.close()

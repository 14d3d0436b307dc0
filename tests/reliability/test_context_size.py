"""The app sizes the model's context from the prompt it builds (D79), on the whole app: a real
HA test home with a generated home of 1,000 entities beside it, the real broker, real
llama.cpp with the tiny GGUF, the options' defaults. The tiny model's words are random:
these tests look at what was chosen, what was said, and that requests are answered."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
import logging
from pathlib import Path
import re

from homeassistant.core import HomeAssistant
import pytest

from botpsy_agent.agent.offer import exposed_ids
from botpsy_agent.app.config import DEFAULT_OPTIONS
from botpsy_agent.app.runtime import App, RuntimeConfig
from botpsy_agent.llm.context import MIN_CONTEXT
from devkit.homes import realistic_home
from devkit.mosquitto import MosquittoBroker
from tests.ha_bridge import wait_until
from tests.ha_home import HaHome, add_generated_home
from tests.ha_server import HomeAssistantApiServer
from tests.mqtt.client import ApiClient, subscribed_client
from tests.reliability.harness import app_config, model_ready, running_app
from tests.reliability.test_model_turns import RESPONSE, ask_when_warm

LARGE = 1000
GROWN = 500
"""Entities added to a running app's home (more at once overflow HA's WebSocket queue for
the test's connection, which then reconnects: slower, and not what is tested here)."""
CONTEXT_LINE = re.compile(
    r"Context: ([\d,]+) tokens \((automatic|the context_length option)[^)]*\); the prompt prefix "
    r"with all ([\d,]+) entities exposed to Assist is ([\d,]+) tokens"
)


@pytest.fixture
async def client(mosquitto: MosquittoBroker) -> AsyncIterator[ApiClient]:
    async with subscribed_client(mosquitto, f"{RESPONSE}/#") as api_client:
        api_client.patience_s = 120
        yield api_client


def default_config(
    ha_api: HomeAssistantApiServer, broker: MosquittoBroker, folder: Path, model: Path
) -> RuntimeConfig:
    """The app with the tiny model and the options' default `context_length`."""
    config = app_config(ha_api, broker, folder, model=model)
    assert config.model is not None
    engine = replace(config.model, context_length=DEFAULT_OPTIONS["context_length"])
    return replace(config, model=engine, model_timeout_s=120.0)


def chosen(text: str) -> list[tuple[int, str, int, int]]:
    """Every context the log says was chosen: (tokens, why, entities, prefix tokens)."""
    return [
        (int(t.replace(",", "")), why, int(e.replace(",", "")), int(p.replace(",", "")))
        for t, why, e, p in CONTEXT_LINE.findall(text)
    ]


async def test_a_home_of_1000_entities_is_answered_with_the_default_options(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    client: ApiClient,
    tiny_qwen35_gguf: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    added = add_generated_home(hass, realistic_home(LARGE))
    await hass.async_block_till_done()
    config = default_config(ha_api, mosquitto, tmp_path, tiny_qwen35_gguf)
    with caplog.at_level(logging.INFO, logger="botpsy_agent"):
        async with running_app(config) as app:
            await model_ready(app, timeout_s=60)
            assert app.context is not None and app.worker is not None
            engine = app.worker.local
            assert engine is not None
            context, trained = engine.context_length, engine.info.context_length
            exposed = exposed_ids(app.index.home)
            assert set(added) <= exposed
            answer = await ask_when_warm(client, ha_home.users["Daniel"], "big")
    # The start-up said what it chose, and why: the whole home's prefix, automatically.
    [(tokens, why, entities, prefix)] = chosen(caplog.text)
    assert why == "automatic"
    assert entities == len(exposed) > LARGE
    assert tokens == context == app.context.tokens > MIN_CONTEXT
    assert prefix + app.context.room <= tokens <= trained
    # The request was the model's, with the whole listing in its prompt: not prompt_too_long.
    assert answer["status"] != "error" or answer["error"]["code"] != "prompt_too_long", answer
    assert answer["path"] == "model", answer
    step = answer["timings"]["steps"][0]
    assert prefix < step["prompt_tokens"] <= tokens, (prefix, step)
    assert "prompt_too_long" not in caplog.text


async def test_a_home_that_outgrows_its_context_gets_a_larger_one(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    client: ApiClient,
    tiny_qwen35_gguf: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = default_config(ha_api, mosquitto, tmp_path, tiny_qwen35_gguf)
    with caplog.at_level(logging.INFO, logger="botpsy_agent"):
        async with running_app(config) as app:
            await model_ready(app)
            assert app.context is not None and app.context.tokens == MIN_CONTEXT
            first = app.worker
            # Five hundred new devices: the whole home's prompt no longer fits.
            add_generated_home(hass, realistic_home(GROWN))
            await wait_until(lambda: app.worker is not first, timeout_s=60)
            await model_ready(app, timeout_s=60)
            await wait_until(lambda: app.context is not None, timeout_s=5)
            grown = app.context
            assert grown is not None and grown.tokens > MIN_CONTEXT
            assert grown.fits(grown.prefix_tokens)
            answer = await ask_when_warm(client, ha_home.users["Daniel"], "grown")
            await asyncio.sleep(0)
    assert "Loading the model again with a context of" in caplog.text
    sizes = [tokens for tokens, *_ in chosen(caplog.text)]
    assert sizes[0] == MIN_CONTEXT and sizes[-1] == grown.tokens, sizes
    assert answer["path"] == "model", answer
    assert answer["timings"]["steps"][0]["prompt_tokens"] > grown.prefix_tokens


async def test_a_context_length_option_too_small_for_the_home_is_said_at_start(
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    tiny_qwen35_gguf: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = app_config(ha_api, mosquitto, tmp_path, model=tiny_qwen35_gguf)
    assert config.model is not None
    config = replace(config, model=replace(config.model, context_length=1024))
    with caplog.at_level(logging.INFO, logger="botpsy_agent"):
        async with running_app(config) as app:
            await model_ready(app)
            await wait_until(lambda: "context:" in app.health.snapshot.detail, timeout_s=5)
            detail = app.health.snapshot.detail
    [(tokens, why, _entities, prefix)] = chosen(caplog.text)
    assert (tokens, why) == (1024, "the context_length option")
    assert isinstance(app, App)
    warning = next(r for r in caplog.records if "prompt_too_long" in r.getMessage())
    assert warning.levelno == logging.WARNING
    assert "context_length 1,024 is too small" in warning.getMessage()
    assert "set it to 0 (automatic)" in warning.getMessage()
    assert f"context_length 1,024 is too small for this home's prompt ({prefix + 768:,}" in detail

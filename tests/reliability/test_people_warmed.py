"""The app prepares its people's prompts as soon as its model is ready (issue 28): a
person's first request evaluates no prefix in its turn (11-12 s with the real 0.5B on 2
cores, in the eval's first model turn). The whole app: a real HA test home, the real broker,
real llama.cpp with the tiny GGUF, whose words are random (only the timings are looked at)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

from homeassistant.core import HomeAssistant
import pytest

from devkit.mosquitto import MosquittoBroker
from tests.ha_bridge import wait_until
from tests.ha_home import HaHome
from tests.ha_server import HomeAssistantApiServer
from tests.mqtt.client import ApiClient, subscribed_client
from tests.reliability.harness import app_config, model_ready, running_app
from tests.reliability.test_model_turns import RESPONSE, ask_when_warm


@pytest.fixture
async def client(mosquitto: MosquittoBroker) -> AsyncIterator[ApiClient]:
    async with subscribed_client(mosquitto, f"{RESPONSE}/#") as api_client:
        api_client.patience_s = 60
        yield api_client


async def test_a_persons_first_request_finds_its_prompt_ready(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    client: ApiClient,
    tiny_qwen35_gguf: Path,
    tmp_path: Path,
) -> None:
    config = app_config(ha_api, mosquitto, tmp_path, model=tiny_qwen35_gguf)
    async with running_app(config) as app:
        await model_ready(app, timeout_s=60)
        worker = app.worker
        assert worker is not None and worker.local is not None
        engine = worker.local
        # Nobody has asked anything: the builds are the app's own, for its people.
        await wait_until(lambda: worker.idle and engine.builds > 0, timeout_s=60)
        built = engine.builds
        answer = await ask_when_warm(client, ha_home.users["Daniel"], "first")
        assert engine.builds == built
    assert answer["path"] == "model", answer
    first_step = answer["timings"]["steps"][0]
    assert first_step["build_ms"] == 0, first_step

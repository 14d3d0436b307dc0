"""The first start (issue 30, item 1): the app connects to HA and MQTT first, then
downloads the model, and a real HA shows it: the model-state sensor reads `downloading N %`
with the size and the time left, a notification says when it starts and ends, the health
check passes meanwhile (the Supervisor's start does not wait), and the model then loads.

Real parts: HA (with its own MQTT integration), Mosquitto, the real `App`, the tiny GGUF
served by the stand-in for Hugging Face over https (the internet is not reachable)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
import json
from pathlib import Path
import ssl
from typing import Any

import aiohttp
from homeassistant.components import persistent_notification
from homeassistant.components.mqtt import client as mqtt_client
from homeassistant.core import HomeAssistant, callback
from homeassistant.setup import async_setup_component
import pytest

from botpsy_agent.app.config import DEFAULT_OPTIONS, parse_options
from botpsy_agent.app.health import check_health
from botpsy_agent.app.model_fetch import ModelFetch
from botpsy_agent.app.runtime import App
from botpsy_agent.llm.llama_cpp import EngineSettings
from botpsy_agent.mqtt.settings import ApiSettings
from botpsy_agent.weights.store import plan_model
from devkit.model_host import ModelHostStandIn
from devkit.mosquitto import MosquittoBroker
from tests.app_runtime import runtime_config, write_app_files
from tests.ha_home import HaHome
from tests.ha_mqtt import set_up_ha_mqtt, wait_for
from tests.ha_server import HomeAssistantApiServer
from tests.mqtt.pki import ThrowawayPki
from tests.weights.model_host import NAME

INSTANCE = "first"
SENSOR = f"sensor.botpsy_{INSTANCE}_model_state"
POLICY = "version: 1\n"
SECONDS_OF_DOWNLOAD = 4


@pytest.fixture
async def slow_host(
    tiny_qwen35_gguf: Path, pki: ThrowawayPki, socket_enabled: None
) -> AsyncIterator[ModelHostStandIn]:
    """The tiny model, served over https slowly enough that its progress can be watched."""
    body = await asyncio.to_thread(tiny_qwen35_gguf.read_bytes)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(pki.server_cert, pki.server_key)
    host = ModelHostStandIn(
        files={NAME: body}, tls=tls, bytes_per_s=len(body) // SECONDS_OF_DOWNLOAD
    )
    await host.start()
    yield host
    await host.stop()


def notifications(hass: HomeAssistant) -> list[dict[str, Any]]:
    """Every notification HA shows, as its frontend receives them, in order of change."""
    seen: list[dict[str, Any]] = []

    @callback
    def changed(
        update: persistent_notification.UpdateType,
        items: dict[str, persistent_notification.Notification],
    ) -> None:
        if update is not persistent_notification.UpdateType.REMOVED:
            seen.extend(dict(item) for item in items.values())

    persistent_notification.async_register_callback(hass, changed)
    return seen


def trusting(pki: ThrowawayPki) -> Callable[[], aiohttp.ClientSession]:
    trust = ssl.create_default_context(cafile=pki.ca_cert)
    return lambda: aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=trust))


async def test_the_first_start_connects_first_and_ha_shows_the_download(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    slow_host: ModelHostStandIn,
    pki: ThrowawayPki,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mqtt_client, "DISCOVERY_COOLDOWN", 0.2)
    assert await async_setup_component(hass, "api", {})  # the REST API the app notifies by
    assert await async_setup_component(hass, "persistent_notification", {})
    shown = notifications(hass)
    await set_up_ha_mqtt(hass, mosquitto)
    write_app_files(tmp_path, policy=POLICY, secret=None)
    options = parse_options(
        json.loads(json.dumps(DEFAULT_OPTIONS)) | {"model_mirror": slow_host.url()}
    )
    plan = plan_model(options.model, tmp_path / "models", tmp_path / "data")
    assert not plan.path.parent.exists()  # an empty models folder: a first start
    config = runtime_config(
        ha_api,
        mosquitto,
        tmp_path,
        api=ApiSettings(instance=INSTANCE),
        model=EngineSettings(plan.path, context_length=2048),
        model_fetch=ModelFetch(plan, offline=False, session=trusting(pki), progress_interval_s=0.5),
    )
    app = App(config)
    try:
        await app.start()  # returns with HA and MQTT up, long before the download ends
        assert not plan.path.exists()
        assert app.mqtt is not None and app.mqtt.online
        verdict = check_health(config.health_file)  # type: ignore[arg-type]
        assert verdict.healthy, verdict.line()
        assert verdict.reason.startswith("model downloading, MQTT connected")

        # HA's own MQTT integration found the app's sensor; it shows how far the download is.
        # (Before the server answers, the size is the catalogue's; then the file's own.)
        size_mb = round(len(slow_host.files[NAME]) / 1e6, 1)

        def downloading() -> bool:
            state = hass.states.get(SENSOR)
            return (
                state is not None
                and state.state.startswith("downloading ")
                and state.attributes.get("size_mb") == size_mb
                and state.attributes.get("eta_s") is not None
            )

        await wait_for(downloading, "the model-state sensor showing the download", 30)
        state = hass.states.get(SENSOR)
        assert state is not None
        percent = int(state.state.removeprefix("downloading ").removesuffix(" %"))
        assert 0 <= percent < 100
        assert 0 <= state.attributes["downloaded_mb"] < size_mb
        assert 0 < state.attributes["eta_s"] <= SECONDS_OF_DOWNLOAD * 3
        assert [n["title"] for n in shown] == ["BotPsy is downloading its model"]
        assert shown[0]["notification_id"] == f"botpsy_{INSTANCE}_model_download"
        assert "Model state" in shown[0]["message"]
        detail = json.loads(config.health_file.read_text())["detail"]  # type: ignore[union-attr]
        assert f"downloading {NAME}: " in detail  # the health file is written throughout

        # The download ends, the model loads and gets ready; HA hears each step.
        await wait_for(lambda: app.worker is not None, "the model worker", 30)
        assert app.worker is not None
        await app.worker.wait_loaded()
        await wait_for(
            lambda: getattr(hass.states.get(SENSOR), "state", None) == "ready",
            "the model-state sensor saying ready",
            60,
        )
        assert plan.path.read_bytes() == slow_host.files[NAME]
        assert [n["title"] for n in shown][-1] == "BotPsy downloaded its model"
        health_file = config.health_file
        assert health_file is not None
        await wait_for(lambda: check_health(health_file).healthy, "healthy, model loaded", 60)
        assert check_health(health_file).reason.startswith("model loaded")
        assert [r.path for r in slow_host.requests] == [NAME]  # downloaded once
    finally:
        await app.stop()


async def test_a_first_download_that_cannot_fit_is_said_in_ha_with_its_code(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    pki: ThrowawayPki,
    tmp_path: Path,
    socket_enabled: None,
) -> None:
    assert await async_setup_component(hass, "api", {})
    assert await async_setup_component(hass, "persistent_notification", {})
    shown = notifications(hass)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(pki.server_cert, pki.server_key)
    host = ModelHostStandIn(announce={NAME: 10**15}, tls=tls)  # a petabyte: no disk has it
    await host.start()
    write_app_files(tmp_path, policy=POLICY, secret=None)
    options = parse_options(json.loads(json.dumps(DEFAULT_OPTIONS)) | {"model_mirror": host.url()})
    plan = plan_model(options.model, tmp_path / "models", tmp_path / "data")
    config = runtime_config(
        ha_api,
        mosquitto,
        tmp_path,
        api=ApiSettings(instance=INSTANCE),
        model=EngineSettings(plan.path, context_length=2048),
        model_fetch=ModelFetch(plan, offline=False, session=trusting(pki), attempts=1),
    )
    app = App(config)
    try:
        await app.start()
        await wait_for(
            lambda: any("could not download" in n["title"] for n in shown), "the failure", 30
        )
        failed = shown[-1]
        assert failed["title"] == "BotPsy could not download its model"
        assert "(not_enough_disk)" in failed["message"]
        assert failed["notification_id"] == f"botpsy_{INSTANCE}_model_download"
        health_file = config.health_file
        assert health_file is not None
        await wait_for(lambda: not check_health(health_file).healthy, "unhealthy")
        verdict = check_health(health_file)
        assert "model not loaded" in verdict.reason and "not_enough_disk" in verdict.reason
        assert app.worker is None and not plan.path.exists()
    finally:
        await app.stop()
        await host.stop()

"""The real entry point, as the Supervisor starts it: options.json, the Supervisor's MQTT
service (a stand-in: the real Supervisor cannot run here), a real Mosquitto, a real HA on
loopback and the tiny GGUF. It gets ready, answers a request end to end, and stops on SIGTERM."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
import signal

from homeassistant.core import HomeAssistant

from botpsy_agent.app.health import check_health
from devkit.mosquitto import MosquittoBroker
from tests.app_process import app_options, app_process
from tests.ha_bridge import wait_until
from tests.ha_home import HaHome
from tests.ha_server import HomeAssistantApiServer
from tests.mqtt_probe import MqttProbe

POLICY = """
version: 1
mqtt:
  test-panel:
    rules:
      - allow: [read, control]
        areas: [kitchen]
"""


async def test_the_app_starts_serves_and_stops(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    tiny_qwen35_gguf: Path,
    tmp_path: Path,
) -> None:
    probe = MqttProbe(mosquitto.host, mosquitto.port)
    async with app_process(
        tmp_path,
        options=app_options("test"),
        policy=POLICY,
        gguf=tiny_qwen35_gguf,
        ha_api=ha_api,
        mosquitto=mosquitto,
    ) as app:
        try:
            # The app reports readiness only through its status file, as the HEALTHCHECK
            # reads it.
            await wait_until(lambda: check_health(app.health_file).healthy, timeout_s=90)
            text = app.log()
            assert "Ready (instance test)" in text
            assert "grammars checked" in text  # every grammar compiled by llama.cpp at start
            assert app.supervisor.requests[0] == "GET /services/mqtt"

            await asyncio.to_thread(probe.connect)
            await asyncio.to_thread(probe.subscribe, "botpsy/test/#")
            await asyncio.to_thread(
                probe.publish,
                "botpsy/test/request/test-panel",
                json.dumps({"id": "start-1", "text": "turn off the kitchen lights"}),
            )
            reply = await asyncio.to_thread(probe.expect, "botpsy/test/response/test-panel", 30)
            answer = json.loads(reply.payload)
            assert answer["id"] == "start-1"
            assert answer["status"] == "done", answer
            kitchen = hass.states.get("light.kitchen_lights")
            assert kitchen is not None and kitchen.state == "off"

            app.process.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(app.process.wait(), 30) == 0
            offline = await asyncio.to_thread(probe.expect, "botpsy/test/status", 10)
            while json.loads(offline.payload).get("state") != "offline":
                offline = await asyncio.to_thread(probe.expect, "botpsy/test/status", 10)
            assert "Stopped" in app.log()
        finally:
            await asyncio.to_thread(probe.close)

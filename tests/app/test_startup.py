"""The real entry point, as the Supervisor starts it: options.json, the Supervisor's MQTT
service (a stand-in: the real Supervisor cannot run here), a real Mosquitto, a real HA on
loopback and the tiny GGUF. It gets ready, answers a request end to end, and stops on SIGTERM."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
import shutil
import signal
import sys

from homeassistant.core import HomeAssistant

from botpsy_agent.config import ModelChoice
from botpsy_agent.health import check_health
from botpsy_agent.models.catalog import CATALOG
from devkit.mosquitto import MosquittoBroker
from devkit.supervisor import MqttServiceData, SupervisorStandIn
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
    config_dir, data_dir, run_dir = tmp_path / "config", tmp_path / "data", tmp_path / "run"
    for folder in (config_dir / "models", data_dir, run_dir):
        folder.mkdir(parents=True)
    # The Q4_K_M file "already downloaded" (offline): the real model-store path, a tiny model.
    shutil.copy(tiny_qwen35_gguf, config_dir / "models" / CATALOG[ModelChoice.Q4_K_M].file_name)
    (config_dir / "policy.yaml").write_text(POLICY)
    options = data_dir / "options.json"
    options.write_text(
        json.dumps(
            {
                "model": "Q4_K_M",
                "offline": True,
                "threads": 2,
                "context_length": 16384,
                "thinking_budget": 0,
                "languages": ["en"],
                "policy_file": "policy.yaml",
                "instance": "test",
                "log_level": "info",
                "audit_message_bodies": False,
                "rate_limits": {"per_principal": 20, "global": 60},
                "mqtt": {},
            }
        )
    )
    supervisor = SupervisorStandIn(mqtt=MqttServiceData(mosquitto.host, mosquitto.port))
    await supervisor.start()
    env = {
        **os.environ,
        "SUPERVISOR_TOKEN": supervisor.token,
        "BOTPSY_SUPERVISOR_URL": supervisor.url,
        "BOTPSY_HA_URL": ha_api.url,
        "BOTPSY_HA_TOKEN": ha_api.token,
        "BOTPSY_CONFIG_DIR": str(config_dir),
        "BOTPSY_DATA_DIR": str(data_dir),
        "BOTPSY_RUN_DIR": str(run_dir),
    }
    log = (tmp_path / "app.log").open("wb")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "botpsy_agent",
        "serve",
        "--options",
        str(options),
        env=env,
        stdout=log,
        stderr=log,
    )
    probe = MqttProbe(mosquitto.host, mosquitto.port)
    try:
        health = run_dir / "health.json"
        # The app reports readiness only through its status file, as the HEALTHCHECK reads it.
        await wait_until(lambda: check_health(health).healthy, timeout_s=90)
        text = (tmp_path / "app.log").read_text()
        assert "Ready (instance test)" in text
        assert "grammars checked" in text  # every grammar compiled by llama.cpp at start-up
        assert supervisor.requests[0] == "GET /services/mqtt"

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
        assert hass.states.get("light.kitchen_lights").state == "off"  # type: ignore[union-attr]

        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 30) == 0
        offline = await asyncio.to_thread(probe.expect, "botpsy/test/status", 10)
        while offline.payload != b"offline":
            offline = await asyncio.to_thread(probe.expect, "botpsy/test/status", 10)
        assert "Stopped" in (tmp_path / "app.log").read_text()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        log.close()
        await asyncio.to_thread(probe.close)
        await supervisor.stop()

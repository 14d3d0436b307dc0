"""`botpsy-agent doctor` on a healthy and on a broken set-up: one line per check, a fix for
each problem. Real broker, real HA on loopback, the Supervisor played by a stand-in."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
import shutil
import sys

from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from botpsy_agent.weights.catalog import CATALOG
from botpsy_agent.weights.options import ModelChoice
from devkit.mosquitto import MosquittoBroker, free_port
from devkit.supervisor import MqttServiceData, SupervisorStandIn
from tests.ha_server import HomeAssistantApiServer

OPTIONS = {
    "model": "Q4_K_M",
    "offline": True,
    "threads": 2,
    "context_length": 8192,
    "thinking_budget": 0,
    "languages": ["en"],
    "policy_file": "policy.yaml",
    "instance": "home",
    "log_level": "info",
    "audit_message_bodies": False,
    "rate_limits": {"per_principal": 20, "global": 60},
    "mqtt": {},
}


async def run_doctor(
    options: dict[str, object], env: dict[str, str], folder: Path
) -> tuple[int, str]:
    path = folder / "options.json"
    path.write_text(json.dumps(options))
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "botpsy_agent",
        "doctor",
        "--options",
        str(path),
        env={**os.environ, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode or 0, out.decode()


async def test_doctor_on_a_healthy_setup(
    hass: HomeAssistant,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    tiny_qwen35_gguf: Path,
    tmp_path: Path,
) -> None:
    assert await async_setup_component(hass, "api", {})  # HA's REST API, as in every HA
    config = tmp_path / "config"
    (config / "models").mkdir(parents=True)
    shutil.copy(tiny_qwen35_gguf, config / "models" / CATALOG[ModelChoice.Q4_K_M].file_name)
    (config / "policy.yaml").write_text("version: 1\n")
    supervisor = SupervisorStandIn(mqtt=MqttServiceData(mosquitto.host, mosquitto.port))
    await supervisor.start()
    try:
        code, out = await run_doctor(
            OPTIONS,
            {
                "SUPERVISOR_TOKEN": supervisor.token,
                "BOTPSY_SUPERVISOR_URL": supervisor.url,
                "BOTPSY_HA_URL": ha_api.url,
                "BOTPSY_HA_TOKEN": ha_api.token,
                "BOTPSY_CONFIG_DIR": str(config),
                "BOTPSY_DATA_DIR": str(tmp_path),
            },
            tmp_path,
        )
    finally:
        await supervisor.stop()
    print(out)
    assert code == 0, out
    assert out.count("[ok  ]") == 7
    assert f"[ok  ] MQTT: connected to {mosquitto.host}:{mosquitto.port}" in out
    assert "[ok  ] Home Assistant:" in out and "2026.10" in out
    assert "[ok  ] model: BotPsy-0.8B-Q4_K_M.gguf: qwen35" in out
    assert out.strip().endswith("all good")


async def test_doctor_on_a_broken_setup(ha_api: HomeAssistantApiServer, tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "policy.yaml").write_text("version: 1\ngroups: {grownups: {rules: []}}\n")
    closed_port = free_port()
    options = {**OPTIONS, "model": "Q8_0", "mqtt": {"host": "127.0.0.1", "port": closed_port}}
    code, out = await run_doctor(
        options,
        {
            "BOTPSY_HA_URL": ha_api.url,
            "BOTPSY_HA_TOKEN": "not-a-token",
            "BOTPSY_CONFIG_DIR": str(config),
            "BOTPSY_DATA_DIR": str(tmp_path),
        },
        tmp_path,
    )
    print(out)
    assert code == 1
    assert f"[FAIL] MQTT: 127.0.0.1:{closed_port}: cannot connect" in out
    assert "[FAIL] Home Assistant:" in out
    assert "[FAIL] model:" in out and "BotPsy-0.8B-Q8_0.gguf is missing" in out
    assert "[FAIL] policy:" in out and "policy.yaml:2: groups.grownups" in out
    assert out.count("fix:") == 4
    assert "not-a-token" not in out  # never print a token
    assert out.strip().endswith("4 problem(s) to fix")

"""The app as a real process, started from options.json as the Supervisor starts it: the
Supervisor's MQTT service (a stand-in: the real Supervisor cannot run here), a real broker,
a real HA on loopback and a GGUF already in the model store (offline)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
import contextlib
from dataclasses import dataclass
import json
import os
from pathlib import Path
import shutil
import signal
import sys
from typing import Any

from botpsy_agent.weights.catalog import CATALOG
from botpsy_agent.weights.options import ModelChoice
from devkit.mosquitto import MosquittoBroker
from devkit.supervisor import MqttServiceData, SupervisorStandIn
from tests.ha_server import HomeAssistantApiServer


def app_options(instance: str, **changes: Any) -> dict[str, Any]:
    """Options as the Supervisor writes them, for the Q4_K_M file in the store."""
    return {
        "model": "Q4_K_M",
        "offline": True,
        "threads": 2,
        "context_length": 16384,
        "thinking_budget": 0,
        "languages": ["en"],
        "policy_file": "policy.yaml",
        "instance": instance,
        "log_level": "info",
        "audit_message_bodies": False,
        "rate_limits": {"per_principal": 20, "global": 60},
        "mqtt": {},
        **changes,
    }


@dataclass
class AppProcess:
    process: asyncio.subprocess.Process
    supervisor: SupervisorStandIn
    log_path: Path
    health_file: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextlib.asynccontextmanager
async def app_process(
    folder: Path,
    *,
    options: dict[str, Any],
    policy: str,
    gguf: Path,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    secret: str | None = None,
) -> AsyncIterator[AppProcess]:
    """Start `python -m botpsy_agent serve`; on the way out, SIGTERM (then kill) it.
    `secret`: a shared secret the app holds already (as after pairing)."""
    config_dir, data_dir, run_dir = folder / "config", folder / "data", folder / "run"
    for path in (config_dir / "models", data_dir, run_dir):
        path.mkdir(parents=True)
    shutil.copy(gguf, config_dir / "models" / CATALOG[ModelChoice(options["model"])].file_name)
    (config_dir / "policy.yaml").write_text(policy)
    (data_dir / "options.json").write_text(json.dumps(options))
    if secret is not None:
        (data_dir / "integration_secrets").write_text(f"{secret}  # test\n")
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
    log_path = folder / "app.log"
    with log_path.open("wb") as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "botpsy_agent",
            "serve",
            "--options",
            str(data_dir / "options.json"),
            env=env,
            stdout=log,
            stderr=log,
        )
    try:
        yield AppProcess(process, supervisor, log_path, run_dir / "health.json")
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                process.kill()
                await process.wait()
        await supervisor.stop()

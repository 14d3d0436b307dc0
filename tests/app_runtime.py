"""The app's `RuntimeConfig` for tests that run the real `App` in their own process (the
integration tests' `AppRunner`, the reliability harness): on the test's HA and broker, with
its policy, secrets and health file under one folder. (`tests/app_process.py` starts the
app as a process instead, from an options file.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from botpsy_agent.app.runtime import RuntimeConfig
from botpsy_agent.ha.client import HaEndpoint
from botpsy_agent.link.pairing import SECRETS_FILE
from botpsy_agent.mqtt.settings import BrokerSettings
from devkit.mosquitto import MosquittoBroker
from tests.ha_server import HomeAssistantApiServer


def write_app_files(folder: Path, *, policy: str, secret: str | None, label: str = "test") -> None:
    """The policy file (unless the test wrote one already) and the paired secret, if any."""
    data_dir = folder / "data"
    data_dir.mkdir(parents=True, exist_ok=True)
    policy_file = folder / "policy.yaml"
    if not policy_file.exists():
        policy_file.write_text(policy)
    if secret is not None:
        (data_dir / SECRETS_FILE).write_text(f"{secret}  # {label}\n")


def runtime_config(
    ha_api: HomeAssistantApiServer,
    broker: MosquittoBroker,
    folder: Path,
    *,
    broker_settings: BrokerSettings | None = None,
    **fields: Any,
) -> RuntimeConfig:
    """The app on this HA and broker, its files under `folder`; `fields` are the rest of
    `RuntimeConfig` (`api` and `model` at least)."""
    fields.setdefault("health_file", folder / "run" / "health.json")
    return RuntimeConfig(
        ha=HaEndpoint.from_base_url(ha_api.url, ha_api.token),
        broker=broker_settings or BrokerSettings(host=broker.host, port=broker.port),
        policy_file=folder / "policy.yaml",
        data_dir=folder / "data",
        **fields,
    )

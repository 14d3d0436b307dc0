"""The app's options reach the parts of this issue: `rate_limits` the front door, and
`audit_message_bodies` the audit log."""

from __future__ import annotations

from pathlib import Path
import shutil

from botpsy_agent.app.config import parse_options
from botpsy_agent.app.startup import build_config
from botpsy_agent.weights.catalog import CATALOG
from botpsy_agent.weights.options import ModelChoice
from devkit.supervisor import MqttServiceData, SupervisorStandIn


async def test_rate_limits_and_the_privacy_option_are_wired(
    tmp_path: Path, tiny_qwen35_gguf: Path, socket_enabled: None
) -> None:
    config_dir = tmp_path / "config"
    (config_dir / "models").mkdir(parents=True)
    shutil.copy(tiny_qwen35_gguf, config_dir / "models" / CATALOG[ModelChoice.Q4_K_M].file_name)
    settings = parse_options(
        {
            "model": "Q4_K_M",
            "offline": True,
            "rate_limits": {"per_principal": 7, "global": 30},
            "audit_message_bodies": True,
        },
        config_dir=config_dir,
        data_dir=tmp_path / "data",
    )
    supervisor = SupervisorStandIn(mqtt=MqttServiceData("127.0.0.1", 1883))
    await supervisor.start()
    try:
        config = await build_config(
            settings,
            {
                "SUPERVISOR_TOKEN": supervisor.token,
                "BOTPSY_SUPERVISOR_URL": supervisor.url,
                "BOTPSY_HA_URL": "http://127.0.0.1:8123",
                "BOTPSY_HA_TOKEN": "token",
            },
        )
    finally:
        await supervisor.stop()
    assert (config.api.rate_per_principal, config.api.rate_global) == (7, 30)
    assert config.audit_message_bodies is True

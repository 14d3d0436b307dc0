"""Long runs live: the demo's Home Assistant stays up past the five minutes in which HA 2026.10
reverts unconfirmed http settings (the stack confirms them), and when HA exits asking for a
restart (code 100) the stack starts it again and the app acts in it once more. While HA is
still starting (its devices not set up yet), the app says so instead of acting: a call then
would name entities HA does not have yet, and "done" would be a guess.

HA's revert delay is shortened inside the HA process (`BOTPSY_DEMO_HTTP_REVERT_S`), not on
the test's clock. No model: the fast path is enough to prove HA and the app talk again.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest

from botpsy_agent.ha.errors import HaError
from demo.client import AgentClient
from demo.config.custom_components.demo_home import SLOW_START_ENV
from demo.home_setup import ha_client
from demo.stack import INSTANCE, REVERT_DELAY_ENV, DemoStack, ModelChoice
from tests.ha_bridge import wait_until

REVERT_S = 8.0
SLOW_START_S = 20.0

pytestmark = [pytest.mark.usefixtures("socket_enabled"), pytest.mark.timeout(300)]


def _stack(run_dir: Path, lines: list[str]) -> DemoStack:
    return DemoStack(ModelChoice(None, stand_in=False), lines.append, run_dir=run_dir)


async def _ask_kitchen_light_on(stack: DemoStack) -> dict[str, Any]:
    """Ask the app over MQTT, as the demo does."""
    assert stack.accounts is not None
    client = AgentClient(stack.broker.host, stack.broker.port, INSTANCE, stack.secret)
    await client.connect()
    try:
        return await client.ask("turn on the kitchen light", stack.accounts.admin_id)
    finally:
        await client.close()


async def _kitchen_light_on(stack: DemoStack) -> dict[str, str]:
    """The states HA reported after the app turned the light on."""
    answer = await _ask_kitchen_light_on(stack)
    assert answer["status"] == "done", answer
    (action,) = answer["actions"]
    return {s["entity_id"]: s["state"] for a in action["result"]["actions"] for s in a["states"]}


async def test_home_assistant_stays_up_past_the_http_revert_delay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(REVERT_DELAY_ENV, str(REVERT_S))
    lines: list[str] = []
    async with _stack(tmp_path / "run", lines) as stack:
        assert stack.ha_process is not None and stack.accounts is not None
        pid = stack.ha_process.pid
        await asyncio.sleep(REVERT_S * 2.5)  # HA would have reverted and restarted by now
        assert stack.ha_process.pid == pid and stack.ha_process.returncode is None
        assert stack.ha_restarts == 0
        async with ha_client(stack.ha_url, stack.accounts.token) as client:
            config = await client.call({"type": "http/config"})
        assert config["pending"] is None and config["revert_at"] is None
        assert config["stable"]["server_port"] == stack.ha_port
        assert await _kitchen_light_on(stack) == {"light.kitchen": "on"}
    assert any("confirmed HA's http settings" in line for line in lines)
    log = (tmp_path / "run" / "home-assistant.log").read_text()
    assert "was not confirmed" not in log


async def test_the_stack_brings_home_assistant_back_after_it_asks_for_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines: list[str] = []
    async with _stack(tmp_path / "run", lines) as stack:
        assert stack.ha_process is not None and stack.accounts is not None
        first = stack.ha_process.pid
        # The HA started next holds back its devices for a while, as a slow integration would.
        monkeypatch.setenv(SLOW_START_ENV, str(SLOW_START_S))
        async with ha_client(stack.ha_url, stack.accounts.token) as client:
            with contextlib.suppress(HaError):  # HA may stop before it answers
                await client.call(
                    {"type": "call_service", "domain": "homeassistant", "service": "restart"}
                )
        await wait_until(lambda: stack.ha_restarts > 0, timeout_s=60)
        assert stack.ha_restarts == 1, lines
        await wait_until(lambda: "Home Assistant is back" in lines, timeout_s=120)
        assert stack.app is not None
        await wait_until(lambda: stack.app is not None and stack.app.index.ha_starting, 30)
        starting = await _ask_kitchen_light_on(stack)
        assert starting["status"] == "error" and starting["actions"] == [], starting
        assert starting["error"]["code"] == "ha_starting", starting
        await stack.wait_ready()
        assert stack.ha_process.pid != first and stack.ha_process.returncode is None
        assert await _kitchen_light_on(stack) == {"light.kitchen": "on"}

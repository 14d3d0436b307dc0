"""Issue 25, finding 3: a broker without an ACL is an HA repair issue. The app finds it out
from the Supervisor (the Mosquitto app's `customize` option and its `/share` folder) and
says so in its signed `info`; the integration raises `broker_without_acl` from that, and
drops it once the app finds the ACL. On the old code nothing noticed: no field, no issue.

On real parts: HA's MQTT integration and the real app runtime on a real Mosquitto, the
real integration; only the Supervisor is a stand-in (`devkit/supervisor.py`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from homeassistant.components import mqtt
from homeassistant.components.mqtt import client as mqtt_client
from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
import pytest

from botpsy_agent.contract import sign_app_message
from botpsy_agent.ha.supervisor import SupervisorAccess
from custom_components.botpsy.const import DOMAIN
from custom_components.botpsy.link import AgentLink
from devkit.supervisor import MqttServiceData, SupervisorStandIn
from tests.app.test_broker_acl import LOGIN_PASSWORD, mosquitto_options, write_acl
from tests.ha_mqtt import wait_for
from tests.integration.conftest import INSTANCE, AppRunner, SetupEntry

ISSUE = "broker_without_acl"


async def test_a_broker_without_an_acl_is_a_repair_issue_until_the_acl_is_on(
    hass: HomeAssistant,
    app_runner: AppRunner,
    setup_entry: SetupEntry,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mqtt_client, "RECONNECT_INTERVAL_SECONDS", 0.2)  # HA's: 10 s
    share = tmp_path / "share"
    share.mkdir()
    broker = app_runner.broker
    supervisor = SupervisorStandIn(
        mqtt=MqttServiceData(host=broker.host, port=broker.port),
        apps={"core_mosquitto": mosquitto_options(active=False)},
    )
    await supervisor.start()
    try:
        await app_runner.start(
            model=False,
            supervisor=SupervisorAccess(supervisor.url, supervisor.token),
            broker_from_supervisor=True,
            share_dir=share,
        )
        entry = await setup_entry()
        link: AgentLink = entry.runtime_data
        registry = ir.async_get(hass)
        issue_id = f"{ISSUE}_{entry.entry_id}"
        await wait_for(lambda: registry.async_get_issue(DOMAIN, issue_id), "the repair issue")
        issue = registry.async_get_issue(DOMAIN, issue_id)
        assert issue is not None
        assert (issue.translation_key, issue.severity) == (ISSUE, ir.IssueSeverity.WARNING)
        assert issue.translation_placeholders == {"instance": INSTANCE}
        assert link.broker_acl == "off"
        assert LOGIN_PASSWORD not in caplog.text  # the Mosquitto app's logins stay unread

        # A login without the secret claims an ACL: unsigned, or signed with another secret.
        assert link.info is not None
        info = dict(link.info.document)
        for forged in (
            json.dumps({**info, "broker_acl": "on"}),
            json.dumps(sign_app_message({**info, "broker_acl": "on"}, ["not-our-secret-" * 3])),
        ):
            await mqtt.async_publish(hass, f"botpsy/{INSTANCE}/info", forged, 1)
        await mqtt.async_publish(hass, f"botpsy/{INSTANCE}/events", "{}", 1)  # after them
        await hass.async_block_till_done()
        await asyncio.sleep(0.2)
        assert link.broker_acl == "off"
        assert registry.async_get_issue(DOMAIN, issue_id) is not None

        # The admin does what the issue says, and restarts the Mosquitto app: the app checks
        # again when it reconnects, and the issue goes.
        supervisor.apps["core_mosquitto"] = mosquitto_options(active=True)
        write_acl(share)
        await asyncio.to_thread(broker.restart)
        await wait_for(lambda: link.broker_acl == "on", "info saying the ACL is on")
        await wait_for(lambda: registry.async_get_issue(DOMAIN, issue_id) is None, "no issue")
    finally:
        await supervisor.stop()


async def test_without_the_supervisors_broker_the_acl_is_unknown_and_no_issue(
    hass: HomeAssistant, app_runner: AppRunner, setup_entry: SetupEntry
) -> None:
    """The options' own broker (or no Supervisor): the app does not guess."""
    await app_runner.start(model=False)
    entry = await setup_entry()
    link: AgentLink = entry.runtime_data
    assert link.broker_acl == "unknown"
    assert ir.async_get(hass).async_get_issue(DOMAIN, f"{ISSUE}_{entry.entry_id}") is None

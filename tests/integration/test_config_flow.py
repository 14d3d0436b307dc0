"""Config flow on real parts: the app found on the broker, paired by a code the flow makes
and the app fetches from HA over its admin connection, tested with a signed request; the
Supervisor's discovery; reconfiguring; and every way it can go wrong."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from homeassistant import config_entries
from homeassistant.auth.models import User
from homeassistant.config_entries import ConfigFlowResult
from homeassistant.core import Context, HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers.service_info.hassio import HassioServiceInfo
from homeassistant.helpers.service_info.mqtt import MqttServiceInfo
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
import yaml

from botpsy_agent.contract import fingerprint
from botpsy_agent.ha.supervisor import SupervisorAccess
from botpsy_agent.mqtt.signing import SecretFile
from custom_components.botpsy.const import (
    CONF_APP_SLUG,
    CONF_INSTANCE,
    CONF_SECRET,
    DOMAIN,
)
from custom_components.botpsy.link import AgentLink
from devkit.mosquitto import MosquittoBroker
from devkit.supervisor import SupervisorStandIn
from tests.ha_mqtt import wait_for
from tests.integration.conftest import INSTANCE, SECRET, AppRunner, add_ha_mqtt, unload


@pytest.fixture(autouse=True)
def _app_log(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="botpsy_agent")


async def start_user_flow(hass: HomeAssistant) -> ConfigFlowResult:
    return await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )


async def configure(hass: HomeAssistant, flow_id: str, data: dict[str, Any]) -> ConfigFlowResult:
    return await hass.config_entries.flow.async_configure(flow_id, data)


async def mqtt_discovery(hass: HomeAssistant, topic: str, payload: str) -> ConfigFlowResult:
    """The flow HA's MQTT integration starts for a retained message on `botpsy/+/info`."""
    info = MqttServiceInfo(
        topic=topic,
        payload=payload,
        qos=1,
        retain=True,
        subscribed_topic="botpsy/+/info",
        timestamp=0.0,
    )
    return await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_MQTT}, data=info
    )


async def test_pick_a_found_app_pair_with_its_code_and_use_it(
    hass: HomeAssistant,
    mqtt_entry: MockConfigEntry,
    app_runner: AppRunner,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await app_runner.start(model=False, secret=None)
    result = await start_user_flow(hass)
    assert result["type"] is FlowResultType.FORM and result["step_id"] == "user"
    assert result["description_placeholders"] == {"found": "1"}
    # Choosing the app pairs with it: the app fetches the flow's code from HA. Voice
    # satellites and automations get what the user chose (issue 30, item 4: it was nothing).
    result = await configure(
        hass, result["flow_id"], {CONF_INSTANCE: INSTANCE, "voice_access": "read"}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    await wait_for(
        lambda: "ui-allow" in app_runner.policy_file.read_text(), "the satellites' rules"
    )
    own = yaml.safe_load(app_runner.policy_file.read_text())["mqtt"]["homeassistant"]["rules"]
    assert own[-1] == {"id": "ui-allow", "allow": ["read"]}
    entry = result["result"]
    assert (entry.unique_id, entry.title) == (INSTANCE, f"BotPsy ({INSTANCE})")
    secret = entry.data[CONF_SECRET]
    assert len(secret) == 64
    assert secret in (app_runner.data_dir / "integration_secrets").read_text()
    assert secret not in caplog.text  # neither side ever logs it
    # The entry works: the conversation agent answers through the app with that secret.
    await hass.async_block_till_done()
    link: AgentLink = entry.runtime_data
    await wait_for(lambda: link.online, "the app online")
    # The app's discovery flow for the same instance ended with the entry.
    assert not hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    await unload(hass, entry)


async def test_mqtt_discovery_offers_the_running_app(
    hass: HomeAssistant,
    mqtt_entry: MockConfigEntry,
    app_runner: AppRunner,
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = await app_runner.start(model=False, secret=None)
    # HA's MQTT integration saw the retained botpsy/test/info (manifest.json "mqtt").
    await wait_for(lambda: hass.config_entries.flow.async_progress_by_handler(DOMAIN), "a flow")
    (flow,) = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert flow["context"]["source"] == config_entries.SOURCE_MQTT
    assert flow["context"]["title_placeholders"] == {"instance": INSTANCE}
    # Discovered, not asked for: no pairing window opens until the user goes on.
    assert flow["step_id"] == "mqtt_confirm"
    await asyncio.sleep(0.3)
    assert not app.integration.pairing.is_open  # type: ignore[union-attr]
    result = await configure(hass, flow["flow_id"], {})
    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    await unload(hass, result["result"])


@pytest.mark.parametrize(
    ("topic", "payload"),
    [
        ("botpsy/test/info", "not json"),
        ("botpsy/test/info", ""),
        ("botpsy/test/info", '{"instance": "other"}'),
        ("botpsy/Not An Instance/info", '{"instance": "Not An Instance"}'),
    ],
)
async def test_unusable_mqtt_discovery_is_aborted(
    hass: HomeAssistant, mqtt_entry: MockConfigEntry, topic: str, payload: str
) -> None:
    result = await mqtt_discovery(hass, topic, payload)
    assert (result["type"], result["reason"]) == (FlowResultType.ABORT, "invalid_discovery_info")


async def test_manual_entry_errors_then_success(
    hass: HomeAssistant,
    mqtt_entry: MockConfigEntry,
    app_runner: AppRunner,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await app_runner.start(model=False, secret=None)
    flow_id = (await start_user_flow(hass))["flow_id"]
    result = await configure(hass, flow_id, {CONF_INSTANCE: "Not valid!"})
    assert result["errors"] == {CONF_INSTANCE: "invalid_instance"}
    # An instance no app runs as: unreachable.
    result = await configure(hass, flow_id, {CONF_INSTANCE: "elsewhere"})
    assert result["errors"] == {"base": "cannot_connect"}
    result = await configure(hass, flow_id, {CONF_INSTANCE: f" {INSTANCE.upper()} "})
    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    await unload(hass, result["result"])


async def test_pairing_with_an_app_that_stopped_or_refuses(
    hass: HomeAssistant,
    mqtt_entry: MockConfigEntry,
    app_runner: AppRunner,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("custom_components.botpsy.pairing.PAIRING_TIMEOUT_S", 0.5)
    monkeypatch.setattr("custom_components.botpsy.pairing.FETCH_TIMEOUT_S", 1.0)
    app = await app_runner.start(model=False, secret=None)
    # The app's pairing sessions expire at once: it answers the confirmation "unknown session".
    monkeypatch.setattr("botpsy_agent.link.pairing.SESSION_TTL_S", -1.0)
    flow_id = (await start_user_flow(hass))["flow_id"]
    result = await configure(hass, flow_id, {CONF_INSTANCE: INSTANCE})
    assert (result["step_id"], result["errors"]) == ("pair", {"base": "pairing_failed"})
    # The app stops: nobody fetches the code (nor would an app with pairing by code off).
    await app_runner.stop(app)
    result = await configure(hass, flow_id, {})
    assert result["errors"] == {"base": "pairing_unavailable"}
    # The form's submit tries again: the app is back and the pairing works.
    monkeypatch.setattr("botpsy_agent.link.pairing.SESSION_TTL_S", 120.0)
    await app_runner.start(model=False, secret=None)
    result = await configure(hass, flow_id, {})
    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    await unload(hass, result["result"])


async def test_an_app_already_set_up_is_not_added_twice(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry
) -> None:
    result = await start_user_flow(hass)
    result = await configure(hass, result["flow_id"], {CONF_INSTANCE: INSTANCE})
    assert (result["type"], result["reason"]) == (FlowResultType.ABORT, "already_configured")
    # The entry was added directly, not by a flow, so HA's own discovery flow from before it
    # is still open (a flow that creates the entry closes the others); close it.
    for flow in hass.config_entries.flow.async_progress_by_handler(DOMAIN):
        hass.config_entries.flow.async_abort(flow["flow_id"])
    result = await mqtt_discovery(hass, f"botpsy/{INSTANCE}/info", f'{{"instance": "{INSTANCE}"}}')
    assert result["reason"] == "already_configured"


async def test_without_mqtt_the_flow_says_what_to_set_up_first(hass: HomeAssistant) -> None:
    assert await async_setup_component(hass, "homeassistant", {})
    result = await start_user_flow(hass)
    assert (result["type"], result["reason"]) == (FlowResultType.ABORT, "mqtt_not_ready")


async def supervisor_discovery(app_runner: AppRunner) -> HassioServiceInfo:
    """What the Supervisor hands HA when the app (started here) announces itself."""
    supervisor = SupervisorStandIn()
    await supervisor.start()
    try:
        await app_runner.start(
            model=False, secret=None, supervisor=SupervisorAccess(supervisor.url, supervisor.token)
        )
    finally:
        await supervisor.stop()
    (offer,) = supervisor.discoveries
    return HassioServiceInfo(config=offer["config"], name="BotPsy", slug="botpsy", uuid="1234")


async def test_the_supervisor_discovery_confirmed_before_mqtt_waits_for_it(
    hass: HomeAssistant,
    mosquitto: MosquittoBroker,
    app_runner: AppRunner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 30, item 3: Mosquitto and BotPsy are discovered together and the BotPsy card
    is confirmed first. The flow says what to add and stays; it goes on once MQTT is there
    (it used to end in "Unknown error", then in "the app does not answer")."""
    assert await async_setup_component(hass, "homeassistant", {})
    discovery = await supervisor_discovery(app_runner)
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_HASSIO}, data=discovery
    )
    assert (result["step_id"], result["errors"]) == ("hassio_confirm", {"base": "mqtt_not_ready"})
    result = await configure(hass, result["flow_id"], {})
    assert result["type"] is FlowResultType.FORM
    assert (result["step_id"], result["errors"]) == ("hassio_confirm", {"base": "mqtt_not_ready"})

    mqtt_entry = await add_ha_mqtt(hass, mosquitto, monkeypatch)
    result = await configure(hass, result["flow_id"], {})
    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    entry = result["result"]
    await hass.async_block_till_done()
    link: AgentLink = entry.runtime_data
    await wait_for(lambda: link.online, "the app online")
    # The MQTT discovery of the same app, once MQTT was added, made no second card.
    assert not hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    await unload(hass, entry)
    await unload(hass, mqtt_entry)


async def test_one_card_per_app_when_both_discoveries_come(
    hass: HomeAssistant, mqtt_entry: MockConfigEntry, app_runner: AppRunner
) -> None:
    """Issue 30, item 6: HA's MQTT discovery and the Supervisor's both found the app, and
    two identical "BotPsy (test)" cards waited. The Supervisor's brings the secret: it is
    the one card left."""
    discovery = await supervisor_discovery(app_runner)
    await wait_for(lambda: hass.config_entries.flow.async_progress_by_handler(DOMAIN), "a flow")
    (found,) = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert found["context"]["source"] == config_entries.SOURCE_MQTT
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_HASSIO}, data=discovery
    )
    (card,) = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert (card["flow_id"], card["context"]["source"]) == (
        result["flow_id"],
        config_entries.SOURCE_HASSIO,
    )
    # The MQTT discovery seen again (HA restarts, the app reconnects) makes no second card.
    again = await mqtt_discovery(hass, f"botpsy/{INSTANCE}/info", f'{{"instance": "{INSTANCE}"}}')
    assert (again["type"], again["reason"]) == (FlowResultType.ABORT, "already_in_progress")
    assert len(hass.config_entries.flow.async_progress_by_handler(DOMAIN)) == 1
    result = await configure(hass, result["flow_id"], {})
    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    await unload(hass, result["result"])


async def test_the_supervisor_discovery_brings_the_secret(
    hass: HomeAssistant,
    mqtt_entry: MockConfigEntry,
    app_runner: AppRunner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("custom_components.botpsy.pairing.PROBE_TIMEOUT_S", 0.5)
    supervisor = SupervisorStandIn()
    await supervisor.start()
    try:
        await app_runner.start(
            model=False, secret=None, supervisor=SupervisorAccess(supervisor.url, supervisor.token)
        )
    finally:
        await supervisor.stop()
    (offer,) = supervisor.discoveries
    assert offer["service"] == DOMAIN
    config = offer["config"]
    assert config["instance"] == INSTANCE

    def discovery(config: dict[str, Any]) -> HassioServiceInfo:
        return HassioServiceInfo(config=config, name="BotPsy", slug="botpsy", uuid="1234")

    for unusable in ({"instance": INSTANCE}, {"instance": "No!", "secret": config["secret"]}):
        result = await hass.config_entries.flow.async_init(
            DOMAIN, context={"source": config_entries.SOURCE_HASSIO}, data=discovery(unusable)
        )
        assert result["reason"] == "invalid_discovery_info"
    # A secret the app does not hold is caught by the test request.
    forged = {**config, "secret": "f" * 64}
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_HASSIO}, data=discovery(forged)
    )
    assert result["step_id"] == "hassio_confirm"
    assert result["description_placeholders"] == {"instance": INSTANCE}
    result = await configure(hass, result["flow_id"], {})
    assert result["errors"] == {"base": "secret_rejected"}
    hass.config_entries.flow.async_abort(result["flow_id"])

    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_HASSIO}, data=discovery(config)
    )
    result = await configure(hass, result["flow_id"], {})
    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    entry = result["result"]
    # The slug gives the agent device a link to the app's page.
    assert entry.data == {
        CONF_INSTANCE: INSTANCE,
        CONF_SECRET: config["secret"],
        CONF_APP_SLUG: "botpsy",
    }
    await hass.async_block_till_done()
    device = dr.async_get(hass).async_get_device_by_identifier(
        (DOMAIN, entry.entry_id), entry.entry_id
    )
    assert device is not None
    assert device.configuration_url == "homeassistant://hassio/addon/botpsy/info"
    # The MQTT discovery of the same app (which would ask for a code) is closed with it.
    assert not hass.config_entries.flow.async_progress_by_handler(DOMAIN)

    # The Supervisor offers it again (the app restarted with a new secret): the entry follows.
    renewed = {**config, "secret": "e" * 64}
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_HASSIO}, data=discovery(renewed)
    )
    assert result["reason"] == "already_configured"
    assert entry.data[CONF_SECRET] == "e" * 64
    await hass.async_block_till_done()

    # An app that is gone does not answer the test request.
    await app_runner.stop(app_runner.running[0])
    await unload(hass, entry)
    result = await hass.config_entries.flow.async_init(
        DOMAIN,
        context={"source": config_entries.SOURCE_HASSIO},
        data=discovery({"instance": "gone", "secret": "d" * 64}),
    )
    result = await configure(hass, result["flow_id"], {})
    assert result["errors"] == {"base": "cannot_connect"}


async def test_reconfigure_pairs_again(
    hass: HomeAssistant,
    botpsy_entry: MockConfigEntry,
    app_runner: AppRunner,
    caplog: pytest.LogCaptureFixture,
) -> None:
    result = await botpsy_entry.start_reconfigure_flow(hass)
    assert result["step_id"] == "reconfigure"
    # Issue 30, item 8: the instance is the entry's identity, so the form cannot change it.
    assert result["data_schema"] is None
    assert result["description_placeholders"] == {"instance": INSTANCE}
    result = await configure(hass, result["flow_id"], {})
    assert (result["type"], result["reason"]) == (FlowResultType.ABORT, "reconfigure_successful")
    new_secret = botpsy_entry.data[CONF_SECRET]
    assert new_secret != SECRET
    await hass.async_block_till_done()
    link: AgentLink = botpsy_entry.runtime_data
    await wait_for(lambda: link.online, "the reloaded entry online")
    # The old secret is revoked in the app: only the new one signs.
    secrets = SecretFile(app_runner.data_dir / "integration_secrets")
    await wait_for(lambda: secrets.secrets() == (new_secret,), "the old secret revoked")


async def test_removing_the_integration_revokes_its_secret(
    hass: HomeAssistant,
    mqtt_entry: MockConfigEntry,
    app_runner: AppRunner,
    hass_admin_user: User,
) -> None:
    """Issue 18: a removed integration's secret (in HA's backups too) kept signing."""
    await app_runner.start(model=False, secret=None)
    result = await start_user_flow(hass)
    result = await configure(hass, result["flow_id"], {CONF_INSTANCE: INSTANCE})
    entry = result["result"]
    secrets = SecretFile(app_runner.data_dir / "integration_secrets")
    assert secrets.secrets() == (entry.data[CONF_SECRET],)
    await hass.async_block_till_done()
    # A pairing nobody in HA made is revoked from HA by an admin, by its id.
    rogue = "r" * 64
    with (app_runner.data_dir / "integration_secrets").open("a") as file:
        file.write(f"{rogue}  # paired by someone else\n")
    await hass.services.async_call(
        DOMAIN,
        "revoke_pairing",
        {"pairing_id": fingerprint(rogue)},
        blocking=True,
        context=Context(user_id=hass_admin_user.id),
    )
    await wait_for(lambda: secrets.secrets() == (entry.data[CONF_SECRET],), "the rogue revoked")
    assert await hass.config_entries.async_remove(entry.entry_id)
    await wait_for(lambda: secrets.secrets() == (), "the secret revoked")

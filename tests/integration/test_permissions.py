"""The permissions options flow: a person's rules edited in HA, written by the app into its
policy file (the one source of truth), obeyed by the next request; refusals and an app that
is away."""

from __future__ import annotations

from typing import Any

from homeassistant.config_entries import ConfigFlowResult
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
import yaml

from custom_components.botpsy.const import CONF_INSTANCE, CONF_SECRET, DOMAIN
from custom_components.botpsy.link import AgentLink
from tests.ha_home import HaHome
from tests.ha_mqtt import wait_for
from tests.integration.conftest import SECRET, AppRunner, SetupEntry
from tests.integration.test_ask import ask
from tests.integration.test_conversation import process, speech, state

EMPTY_FORM: dict[str, Any] = {
    "inherit": True,
    "allow": {},
    "deny": {},
    "confirm": {},
    "bounds": {},
}


async def open_rules(hass: HomeAssistant, entry: MockConfigEntry, user_id: str) -> ConfigFlowResult:
    """The rules form of one person."""
    result = await hass.config_entries.options.async_init(entry.entry_id)
    assert result["type"] is FlowResultType.MENU
    assert result["menu_options"] == ["person", "home_assistant", "confirmations"]
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {"next_step_id": "person"}
    )
    assert result["step_id"] == "person"
    result = await hass.config_entries.options.async_configure(result["flow_id"], {"user": user_id})
    assert result["step_id"] == "rules"
    return result


async def submit(hass: HomeAssistant, flow_id: str, form: dict[str, Any]) -> ConfigFlowResult:
    return await hass.config_entries.options.async_configure(flow_id, {**EMPTY_FORM, **form})


def policy(app_runner: AppRunner) -> dict[str, Any]:
    document = yaml.safe_load(app_runner.policy_file.read_text())
    assert isinstance(document, dict)
    return document


async def test_a_persons_rules_edited_in_ha_are_obeyed_by_the_next_request(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, app_runner: AppRunner, ha_home: HaHome
) -> None:
    minji = ha_home.users["Min-ji"]
    assert (await process(hass, "turn off the kitchen lights", minji))["response"][
        "response_type"
    ] == "action_done"
    await wait_for(lambda: state(hass, "light.kitchen_lights") == "off", "the light off")

    flow_id = (await open_rules(hass, botpsy_entry, minji))["flow_id"]
    result = await hass.config_entries.options.async_configure(
        flow_id,
        {
            **EMPTY_FORM,
            "deny": {"access": ["control"], "areas": ["kitchen"]},
            "confirm": {"domains": ["cover"]},
            "bounds": {"brightness_max": 60},
        },
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY, result

    # Written into the policy file: her hand-written rule and the file's comments stay.
    text = app_runner.policy_file.read_text()
    assert "# BotPsy permissions for the integration tests." in text
    assert "# Voice satellites and automations without a user." in text
    (entry,) = [u for u in policy(app_runner)["users"] if u["id"] == minji]
    assert [rule["id"] for rule in entry["rules"]] == [
        "not-the-office",
        "ui-deny-areas",
        "ui-confirm-domains",
        "ui-limit",
    ]
    assert entry["rules"][1] == {"id": "ui-deny-areas", "deny": ["control"], "areas": ["kitchen"]}
    assert entry["rules"][3] == {"id": "ui-limit", "limit": {"brightness_pct": {"max": 60.0}}}

    # The next request obeys them, and nothing changes.
    result = await process(hass, "turn on the kitchen lights", minji)
    assert result["response"]["response_type"] == "error", result
    assert "not allowed" in speech(result)
    assert state(hass, "light.kitchen_lights") == "off"

    # The form shows what the file now says.
    shown = await open_rules(hass, botpsy_entry, minji)
    placeholders = shown["description_placeholders"]
    assert placeholders == {"person": "Min-ji", "other_rules": "1", "problems": ""}
    assert shown["data_schema"] is not None
    schema = shown["data_schema"].schema
    suggested = {
        str(key): {
            str(inner): inner.description.get("suggested_value")
            for inner in value.schema.schema
            if inner.description
        }
        for key, value in schema.items()
        if hasattr(value, "schema")
    }
    assert suggested["deny"] == {"access": ["control"], "areas": ["kitchen"]}
    assert suggested["bounds"] == {"brightness_max": 60.0}
    hass.config_entries.options.async_abort(shown["flow_id"])


async def test_voice_satellites_and_automations_have_rules_of_their_own_in_the_ui(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, app_runner: AppRunner, ha_home: HaHome
) -> None:
    """Issue 30, item 4: Home Assistant's own principal (a satellite nobody is signed in to,
    an automation without a user) in the permissions form, not only in policy.yaml."""
    # The file's hand-written rule lets it control the kitchen.
    assert (await ask(hass, text="turn off the kitchen lights"))["status"] == "done"
    await wait_for(lambda: state(hass, "light.kitchen_lights") == "off", "the light off")

    result = await hass.config_entries.options.async_init(botpsy_entry.entry_id)
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {"next_step_id": "home_assistant"}
    )
    assert result["step_id"] == "home_assistant"
    assert result["description_placeholders"] == {"other_rules": "1", "problems": ""}
    assert result["data_schema"] is not None
    assert "inherit" not in {str(key) for key in result["data_schema"].schema}  # no group
    form = {key: value for key, value in EMPTY_FORM.items() if key != "inherit"}
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {**form, "deny": {"access": ["control"], "areas": ["kitchen"]}}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    rules = policy(app_runner)["mqtt"]["homeassistant"]["rules"]
    assert rules == [
        {"allow": ["read", "control"], "areas": ["kitchen"]},  # by hand: it stays
        {"id": "ui-deny-areas", "deny": ["control"], "areas": ["kitchen"]},
    ]
    link: AgentLink = botpsy_entry.runtime_data
    await wait_for(
        lambda: len(((link.policy_state or {}).get("homeassistant") or {}).get("rules", [])) == 2,
        "the state",
    )
    # The next automation's request obeys it; a person's does not change.
    refused = await ask(hass, text="turn on the kitchen lights")
    assert refused["status"] == "refused", refused
    assert state(hass, "light.kitchen_lights") == "off"
    response = await ask(hass, ha_home.users["Daniel"], text="turn on the kitchen lights")
    assert response["status"] == "done", response


async def test_bounds_that_contradict_and_rules_the_app_refuses(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, app_runner: AppRunner, ha_home: HaHome
) -> None:
    minji = ha_home.users["Min-ji"]
    flow_id = (await open_rules(hass, botpsy_entry, minji))["flow_id"]
    result = await submit(hass, flow_id, {"bounds": {"temperature_min": 24, "temperature_max": 18}})
    assert result["errors"] == {"base": "invalid_bounds"}
    hass.config_entries.options.async_abort(flow_id)
    # Daniel has no entry in the file yet: saving his rules adds one.
    daniel = ha_home.users["Daniel"]
    shown = await open_rules(hass, botpsy_entry, daniel)
    assert shown["description_placeholders"]["other_rules"] == "0"
    result = await submit(
        hass, shown["flow_id"], {"deny": {"access": ["read"], "labels": ["night"]}}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    (entry,) = [u for u in policy(app_runner)["users"] if u["id"] == daniel]
    assert entry == {
        "id": daniel,
        "name": "Daniel",
        "rules": [{"id": "ui-deny-labels", "deny": ["read"], "labels": ["night"]}],
    }
    # Someone broke the policy file by hand: the app refuses to build on it, and keeps it.
    flow_id = (await open_rules(hass, botpsy_entry, minji))["flow_id"]
    broken = app_runner.policy_file.read_text() + "anonymous: {rules: [{allow: [fly]}]}\n"
    app_runner.policy_file.write_text(broken)
    result = await submit(hass, flow_id, {"allow": {"access": ["read"]}})
    assert result["errors"] == {"base": "refused"}
    assert "anonymous" in result["description_placeholders"]["problems"]
    assert app_runner.policy_file.read_text() == broken


async def test_confirmation_classes_for_everyone(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, app_runner: AppRunner, ha_home: HaHome
) -> None:
    result = await hass.config_entries.options.async_init(botpsy_entry.entry_id)
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {"next_step_id": "confirmations"}
    )
    assert result["step_id"] == "confirmations"
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {"classes": ["alarm_panels"]}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    assert policy(app_runner)["confirm"] == ["alarm_panels"]
    link: AgentLink = botpsy_entry.runtime_data
    await wait_for(lambda: (link.policy_state or {}).get("confirm") == ["alarm_panels"], "state")
    # Locks no longer ask: an admin's unlock happens at once.
    await hass.services.async_call("lock", "lock", {"entity_id": "lock.back_door"}, blocking=True)
    response = await ask(hass, ha_home.users["Daniel"], text="unlock the back door")
    assert response["status"] == "done", response
    # The policy file is broken by hand: the app refuses to build on it.
    app_runner.policy_file.write_text(app_runner.policy_file.read_text() + "groups: []\n")
    result = await hass.config_entries.options.async_init(botpsy_entry.entry_id)
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {"next_step_id": "confirmations"}
    )
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {"classes": ["locks"]}
    )
    assert result["errors"] == {"base": "refused"}
    assert result["description_placeholders"]["problems"]
    hass.config_entries.options.async_abort(result["flow_id"])


async def test_rules_saved_while_the_app_is_away_apply_when_it_is_back(
    hass: HomeAssistant,
    app_runner: AppRunner,
    setup_entry: SetupEntry,
    ha_home: HaHome,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("custom_components.botpsy.options_flow.APPLY_TIMEOUT_S", 0.5)
    minji = ha_home.users["Min-ji"]
    app = await app_runner.start(model=False)
    entry = await setup_entry()
    flow_id = (await open_rules(hass, entry, minji))["flow_id"]
    await app_runner.stop(app)
    result = await submit(hass, flow_id, {"deny": {"access": ["control"], "domains": ["light"]}})
    assert (result["type"], result["reason"]) == (FlowResultType.ABORT, "not_applied_yet")
    # The update is retained on the broker: the app applies it when it starts again.
    await app_runner.start(model=False)
    link: AgentLink = entry.runtime_data
    await wait_for(lambda: link.online, "the app back")
    await wait_for(lambda: "ui-deny-domains" in app_runner.policy_file.read_text(), "the file")
    result = await process(hass, "turn off the kitchen lights", minji)
    assert result["response"]["response_type"] == "error"
    assert state(hass, "light.kitchen_lights") == "on"


async def test_the_flow_needs_the_app_and_a_running_entry(
    hass: HomeAssistant, setup_entry: SetupEntry, mqtt_entry: MockConfigEntry
) -> None:
    entry = await setup_entry(wait_online=False)  # no app: it never published its rules
    result = await hass.config_entries.options.async_init(entry.entry_id)
    assert (result["type"], result["reason"]) == (FlowResultType.ABORT, "policy_unknown")
    other = MockConfigEntry(
        domain=DOMAIN, unique_id="upstairs", data={CONF_INSTANCE: "upstairs", CONF_SECRET: SECRET}
    )
    other.add_to_hass(hass)
    result = await hass.config_entries.options.async_init(other.entry_id)
    assert (result["type"], result["reason"]) == (FlowResultType.ABORT, "not_loaded")

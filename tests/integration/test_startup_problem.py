"""A start-up problem is a repair issue for admins once the integration is set up (issue 30,
item 2; D85). The real entry point (`serve`) fails on a bad option and fires the event over
HA's REST API with the app's token; the entry of that instance raises the issue, takes away
the notification every user sees, stands it for the "offline" issue, and drops it when the
app is back."""

from __future__ import annotations

from pathlib import Path

from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component
import pytest

from botpsy_agent.app import startup
from custom_components.botpsy.const import DOMAIN
from custom_components.botpsy.contract import STARTUP_PROBLEM_EVENT
from custom_components.botpsy.link import AgentLink
from tests.app.test_startup_notices import environment, shown, write_options
from tests.ha_mqtt import wait_for
from tests.ha_server import HomeAssistantApiServer
from tests.integration.conftest import INSTANCE, AppRunner, SetupEntry


@pytest.fixture
async def rest_api(hass: HomeAssistant, ha_api: HomeAssistantApiServer) -> HomeAssistantApiServer:
    assert await async_setup_component(hass, "api", {})
    assert await async_setup_component(hass, "persistent_notification", {})
    return ha_api


async def test_a_start_up_problem_is_an_admin_repair_issue_until_the_app_is_back(
    hass: HomeAssistant,
    rest_api: HomeAssistantApiServer,
    app_runner: AppRunner,
    setup_entry: SetupEntry,
    issue_registry: ir.IssueRegistry,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setattr("custom_components.botpsy.issues.OFFLINE_ISSUE_DELAY_S", 0.0)
    app = await app_runner.start(model=False)
    entry = await setup_entry()
    link: AgentLink = entry.runtime_data
    offline_id, issue_id = (f"{k}_{entry.entry_id}" for k in ("agent_offline", "startup_problem"))
    await app_runner.stop(app)
    await wait_for(lambda: issue_registry.async_get_issue(DOMAIN, offline_id), "offline issue")

    options = write_options(tmp_path, instance=INSTANCE, threads="lots")
    assert await startup.serve(options, environment(rest_api, tmp_path)) == 1
    await hass.async_block_till_done()

    issue = issue_registry.async_get_issue(DOMAIN, issue_id)
    assert issue is not None
    assert (issue.translation_key, issue.severity) == ("startup_problem", ir.IssueSeverity.ERROR)
    assert issue.is_persistent  # HA restarting does not start the app
    placeholders = issue.translation_placeholders or {}
    assert placeholders["instance"] == INSTANCE
    assert placeholders["title"] == "BotPsy did not start: an option is not valid"
    assert "- options.json: threads: " in placeholders["message"]
    # Admins see the issue; the notification every user sees is gone, and so is "offline".
    assert f"botpsy_{INSTANCE}_startup" not in shown(hass)
    assert issue_registry.async_get_issue(DOMAIN, offline_id) is None

    await app_runner.start(model=False)
    await wait_for(lambda: link.online, "the app back")
    assert issue_registry.async_get_issue(DOMAIN, issue_id) is None


async def test_another_apps_problem_or_a_malformed_one_raises_no_issue(
    hass: HomeAssistant,
    rest_api: HomeAssistantApiServer,
    botpsy_entry: object,
    issue_registry: ir.IssueRegistry,
    tmp_path: Path,
) -> None:
    options = write_options(tmp_path, instance="other", threads="lots")
    assert await startup.serve(options, environment(rest_api, tmp_path)) == 1
    hass.bus.async_fire(STARTUP_PROBLEM_EVENT, {"instance": INSTANCE, "title": "no message"})
    hass.bus.async_fire(
        STARTUP_PROBLEM_EVENT,
        {
            "instance": INSTANCE,
            "title": "Dismiss another's notice",
            "message": "",
            "notification_id": "botpsy_other_startup",
        },
    )
    await hass.async_block_till_done()
    assert not [i for i in issue_registry.issues.values() if i.domain == DOMAIN]
    # With no entry of its own, the other app's notification stays for everyone to see.
    assert shown(hass)["botpsy_other_startup"]["title"] == (
        "BotPsy did not start: an option is not valid"
    )

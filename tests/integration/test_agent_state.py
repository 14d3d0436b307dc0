"""The app goes away and comes back, runs without its model, or hangs: repair issues follow,
and Assist and `botpsy.ask` say what is wrong in the user's language."""

from __future__ import annotations

import asyncio

from homeassistant.components import mqtt
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import issue_registry as ir
import pytest

from botpsy_agent.mqtt.announce import AnnouncedModel
from custom_components.botpsy.const import DOMAIN
from custom_components.botpsy.link import AgentLink
from tests.ha_home import HaHome
from tests.ha_mqtt import wait_for
from tests.integration.conftest import INSTANCE, AppRunner, SetupEntry, app_status
from tests.integration.test_conversation import process, speech

OFFLINE_EN = "The BotPsy assistant is offline. Check that the BotPsy app is running."
OFFLINE_KO = "BotPsy 어시스턴트가 오프라인입니다. BotPsy 앱이 실행 중인지 확인하세요."


async def test_offline_app_makes_a_repair_issue_and_assist_says_so(
    hass: HomeAssistant,
    app_runner: AppRunner,
    setup_entry: SetupEntry,
    ha_home: HaHome,
    issue_registry: ir.IssueRegistry,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("custom_components.botpsy.issues.OFFLINE_ISSUE_DELAY_S", 0.0)
    daniel = ha_home.users["Daniel"]
    app = await app_runner.start(model=False)
    entry = await setup_entry()
    link: AgentLink = entry.runtime_data
    issue_id = f"agent_offline_{entry.entry_id}"
    assert issue_registry.async_get_issue(DOMAIN, issue_id) is None

    await app_runner.stop(app)
    await wait_for(lambda: issue_registry.async_get_issue(DOMAIN, issue_id), "the repair issue")
    issue = issue_registry.async_get_issue(DOMAIN, issue_id)
    assert issue is not None
    assert (issue.translation_key, issue.severity) == ("agent_offline", ir.IssueSeverity.ERROR)
    assert issue.translation_placeholders == {"instance": INSTANCE}

    result = await process(hass, "turn off the kitchen lights", daniel)
    assert result["response"]["response_type"] == "error"
    assert speech(result) == OFFLINE_EN
    result = await process(hass, "주방 조명 꺼 줘", daniel, language="ko")
    assert speech(result) == OFFLINE_KO
    with pytest.raises(HomeAssistantError) as raised:
        await hass.services.async_call(
            DOMAIN, "ask", {"text": "hello"}, blocking=True, return_response=True
        )
    assert raised.value.translation_key == "agent_offline"

    await app_runner.start(model=False)
    await wait_for(lambda: link.online, "the app back")
    assert issue_registry.async_get_issue(DOMAIN, issue_id) is None
    result = await process(hass, "turn off the kitchen lights", daniel)
    assert result["response"]["response_type"] == "action_done"


async def test_an_app_without_a_model_is_a_repair_issue_until_it_has_one(
    hass: HomeAssistant,
    app_runner: AppRunner,
    setup_entry: SetupEntry,
    issue_registry: ir.IssueRegistry,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("custom_components.botpsy.issues.NO_MODEL_ISSUE_DELAY_S", 0.0)
    app = await app_runner.start(model=False)
    entry = await setup_entry()
    issue_id = f"no_model_{entry.entry_id}"
    await wait_for(lambda: issue_registry.async_get_issue(DOMAIN, issue_id), "the repair issue")
    issue = issue_registry.async_get_issue(DOMAIN, issue_id)
    assert issue is not None and issue.severity is ir.IssueSeverity.WARNING
    # The model loads (what the runtime does when its worker is ready).
    assert app.mqtt is not None
    app.mqtt.set_model(AnnouncedModel("BotPsy-0.8B-Q8_0.gguf", "Q8_0", "qwen35"))
    await wait_for(lambda: issue_registry.async_get_issue(DOMAIN, issue_id) is None, "no issue")
    assert entry.runtime_data.model == "BotPsy-0.8B-Q8_0.gguf"


async def test_an_app_that_says_online_but_does_not_answer(
    hass: HomeAssistant,
    app_runner: AppRunner,
    setup_entry: SetupEntry,
    ha_home: HaHome,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("custom_components.botpsy.link.REQUEST_TIMEOUT_S", 0.5)
    daniel = ha_home.users["Daniel"]
    app = await app_runner.start(model=False)
    entry = await setup_entry()
    link: AgentLink = entry.runtime_data
    await app_runner.stop(app)
    await wait_for(lambda: link.online is False, "offline")
    # A hung app whose status still says online (it signs, as a new connection).
    status = f"botpsy/{INSTANCE}/status"
    await mqtt.async_publish(hass, status, app_status("online", "hung"), qos=1, retain=True)
    await wait_for(lambda: link.online, "online again")
    result = await process(hass, "turn off the kitchen lights", daniel)
    assert speech(result) == "The BotPsy assistant did not answer in time."

    # Going offline while a request waits ends the wait at once.
    monkeypatch.setattr("custom_components.botpsy.link.REQUEST_TIMEOUT_S", 30.0)
    waiting = asyncio.create_task(process(hass, "turn off the kitchen lights", daniel))
    await wait_for(lambda: link._pending, "the request sent")
    await mqtt.async_publish(hass, status, app_status("offline", "hung"), qos=1, retain=True)
    result = await asyncio.wait_for(waiting, 5)
    assert speech(result) == OFFLINE_EN

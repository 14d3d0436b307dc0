"""Issue 30, item 5, on a real HA with real Assist pipelines: a pipeline that uses BotPsy with
"Prefer handling commands locally" on lets HA's own agent carry out commands before
BotPsy's permissions see them. It is a repair issue whose fix flow turns the setting off."""

from __future__ import annotations

from typing import Any

from homeassistant.components import assist_pipeline
from homeassistant.components.repairs import repairs_flow_manager
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_fire_time_changed
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from custom_components.botpsy.const import DOMAIN
from custom_components.botpsy.local_handling import CHECK_INTERVAL
from tests.integration.test_conversation import AGENT


def local_handling_issues(hass: HomeAssistant) -> dict[str, ir.IssueEntry]:
    return {
        issue_id: issue
        for (domain, issue_id), issue in ir.async_get(hass).issues.items()
        if domain == DOMAIN and issue_id.startswith("prefer_local_intents_")
    }


def pipeline(name: str, agent: str, prefer_local: bool) -> dict[str, Any]:
    """The fields of a text-only pipeline (no speech, no wake word)."""
    unused = ("stt_engine", "stt_language", "tts_engine", "tts_language", "tts_voice")
    return {
        "name": name,
        "conversation_engine": agent,
        "conversation_language": "en",
        "language": "en",
        "prefer_local_intents": prefer_local,
    } | dict.fromkeys((*unused, "wake_word_entity", "wake_word_id"))


def prefers_local(hass: HomeAssistant, pipeline_id: str) -> bool:
    (pipeline,) = [p for p in assist_pipeline.async_get_pipelines(hass) if p.id == pipeline_id]
    return pipeline.prefer_local_intents


async def test_a_pipeline_that_lets_ha_answer_first_is_fixed_in_one_step(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, hass_ws_client: WebSocketGenerator
) -> None:
    assert await async_setup_component(hass, "assist_pipeline", {})
    assert await async_setup_component(hass, "repairs", {})
    client = await hass_ws_client(hass)

    async def send(message: dict[str, Any]) -> dict[str, Any]:
        await client.send_json_auto_id(message)
        reply: dict[str, Any] = await client.receive_json()
        assert reply["success"], reply
        return reply

    async def create(name: str, agent: str, prefer_local: bool) -> str:
        """A pipeline made as the Voice assistants page makes it."""
        fields = pipeline(name, agent, prefer_local)
        reply = await send({"type": "assist_pipeline/pipeline/create", **fields})
        return str(reply["result"]["id"])

    kitchen = await create("Kitchen voice", AGENT, prefer_local=True)
    await create("BotPsy only", AGENT, prefer_local=False)
    await create("HA's own", "conversation.home_assistant", prefer_local=True)
    async_fire_time_changed(hass, dt_util.utcnow() + CHECK_INTERVAL)
    await hass.async_block_till_done()
    issue_id = f"prefer_local_intents_{botpsy_entry.entry_id}_{kitchen}"
    assert set(local_handling_issues(hass)) == {issue_id}
    issue = local_handling_issues(hass)[issue_id]
    assert issue.is_fixable and issue.severity is ir.IssueSeverity.WARNING
    assert issue.translation_placeholders == {"pipeline": "Kitchen voice"}

    flows = repairs_flow_manager(hass)
    assert flows is not None
    flow = await flows.async_init(DOMAIN, context={"issue_id": issue_id})
    assert flow.get("step_id") == "turn_off", flow
    assert flow.get("description_placeholders") == {"pipeline": "Kitchen voice"}
    done = await flows.async_configure(flow["flow_id"], {})
    assert done["type"] is FlowResultType.CREATE_ENTRY
    assert not prefers_local(hass, kitchen)
    assert local_handling_issues(hass) == {}

    # Turned on again on the Voice assistants page: the next check raises it again.
    fields = pipeline("Kitchen voice", AGENT, prefer_local=True)
    await send({"type": "assist_pipeline/pipeline/update", "pipeline_id": kitchen, **fields})
    async_fire_time_changed(hass, dt_util.utcnow() + 2 * CHECK_INTERVAL)
    await hass.async_block_till_done()
    assert set(local_handling_issues(hass)) == {issue_id}
    # The entry goes: so do its issues.
    assert await hass.config_entries.async_unload(botpsy_entry.entry_id)
    assert local_handling_issues(hass) == {}

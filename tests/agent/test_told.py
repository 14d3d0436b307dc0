"""What the model is told of a call that ran (agent/told.py), on the real HA test home: the
states and HA's answer it needs for its next step, not the executor's whole record."""

from __future__ import annotations

import json
from typing import Any

from homeassistant.core import HomeAssistant

from botpsy_agent.agent.core import AgentSettings
from botpsy_agent.agent.told import told_arguments, told_result
from botpsy_agent.llm.parse import RawCall
from botpsy_agent.llm.planning import PlanRequest
from tests.agent.support import ScriptedPlanner, admin, ask, call, make_agent, tool_results
from tests.ha_bridge import HaBridge


def _reading_then_done(first: RawCall) -> ScriptedPlanner:
    def choose(request: PlanRequest) -> list[RawCall] | str:
        return [first] if request.step == 0 else "Done."

    return ScriptedPlanner(choose)


async def test_a_state_read_tells_the_state_and_how_it_is_not_what_it_can_do(
    ha_bridge: HaBridge,
) -> None:
    planner = _reading_then_done(call("get_state", entity_id=["light.bed_light"]))
    agent = make_agent(ha_bridge, planner, settings=AgentSettings(max_steps=2))
    # An action on offer, so the read is followed by a second step that reads its result.
    response = await agent.handle(ask("turn on the bed light if it is off", admin(ha_bridge)))
    assert len(planner.requests) == 2
    (told,) = tool_results(planner.requests[1])
    (state,) = told["result"]["states"]
    recorded = response.actions[0].result["actions"][0]["states"][0]  # type: ignore[index]
    assert state["entity_id"] == "light.bed_light" and state["state"] == recorded["state"]
    assert "supported_color_modes" in recorded["attributes"]  # in the record, not told
    assert "supported_color_modes" not in state.get("attributes", {})
    assert "friendly_name" not in state.get("attributes", {})
    assert "action" not in told["result"] and "request_id" not in told["result"]


async def test_a_list_read_tells_the_items_and_is_much_shorter_than_the_record(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    await hass.services.async_call(
        "todo", "add_item", {"entity_id": "todo.shopping_list", "item": "milk"}, blocking=True
    )
    planner = _reading_then_done(call("list_todo_items", list_id="todo.shopping_list"))
    agent = make_agent(ha_bridge, planner, settings=AgentSettings(max_steps=2))
    response = await agent.handle(ask("tick milk off the shopping list", admin(ha_bridge)))
    assert len(planner.requests) == 2
    told = planner.requests[1].messages[-1]["content"]
    assert "milk" in str(told)
    # No uid: an item is ticked off by its words, and a uid was ~25 tokens an item.
    assert "uid" not in str(told)
    record = json.dumps(response.actions[0].result, ensure_ascii=False)
    assert len(str(told)) * 2 < len(record)


def test_a_calendar_answer_keeps_its_events_and_drops_the_blanks_but_not_an_empty_list() -> None:
    event: dict[str, Any] = {"summary": "Dentist", "start": "t", "uid": "u", "description": ""}
    execution = {
        "request_id": "r:0",
        "status": "done",
        "actions": [
            {
                "action": {"domain": "calendar", "service": "get_events"},
                "status": "done",
                "states": [{"entity_id": "calendar.family", "state": "off", "attributes": {}}],
                "response": {
                    "calendar.family": {"events": [event]},
                    "calendar.work": {"events": []},
                },
            }
        ],
    }
    assert told_result(execution) == {
        "response": {
            "calendar.family": {"events": [{"summary": "Dentist", "start": "t", "uid": "u"}]},
            "calendar.work": {"events": []},
        }
    }


def test_a_failure_and_what_else_changed_are_told() -> None:
    error = {"code": "ha_error", "message": "no such service"}
    changed = {"entity_id": "light.hall", "state": "on", "attributes": {"brightness": 10}}
    execution = {"actions": [{"status": "failed", "error": error, "changed": [changed]}]}
    assert told_result(execution) == {"changed": [changed], "error": error}
    assert told_result({"now": "2026-12-04T10:00"}) == {"now": "2026-12-04T10:00"}


def test_a_targets_new_state_is_told_once_and_other_changes_beside_it() -> None:
    kitchen = {"entity_id": "light.kitchen", "state": "on", "attributes": {"brightness": 51}}
    hall = {"entity_id": "light.hall", "state": "off"}
    execution = {
        "actions": [
            {
                "action": {"domain": "light", "service": "turn_on"},
                "status": "done",
                "states": [kitchen],
                "changed": [kitchen, hall],
            }
        ]
    }
    assert told_result(execution) == {"states": [kitchen], "changed": [hall]}


def test_a_calls_times_are_told_to_the_minute() -> None:
    told = told_arguments(
        call(
            "list_events",
            calendar_id=["calendar.family"],
            start="2026-12-07T00:00:00",
            end="2026-12-07T10:15:30",
            hours=24,
        )
    )
    assert told == {
        "calendar_id": ["calendar.family"],
        "start": "2026-12-07T00:00",
        "end": "2026-12-07T10:15:30",  # seconds that say something stay
        "hours": 24,
    }

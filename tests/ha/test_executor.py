"""Every tool of the catalogue performed end to end on a real HA, the result checked in HA."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any
from uuid import uuid4

from homeassistant.core import Event, HomeAssistant, ServiceCall as HaServiceCall
from homeassistant.exceptions import HomeAssistantError
from homeassistant.util import dt as dt_util
import pytest

from botpsy_agent.ha.client import ConnectionState
from botpsy_agent.ha.executor import (
    ActionStatus,
    Execution,
    ExecutionKey,
    Executor,
    already_as_asked,
)
from botpsy_agent.home.model import EntityState
from botpsy_agent.home.resolve import ResolvedCall, resolve_call
from tests.ha_bridge import HaBridge, wait_until
from tests.ha_server import HomeAssistantApiServer
from tool_schemas.actions import ServiceCall
from tool_schemas.base import MappingContext
from tool_schemas.catalog import TOOLS, parse_tool_call


def now() -> datetime:
    return datetime.now(dt_util.get_default_time_zone())


def resolved(bridge: HaBridge, tool: str, arguments: dict[str, Any]) -> ResolvedCall:
    call = parse_tool_call(tool, arguments)
    return resolve_call(bridge.index.home, call, MappingContext(now=now()))


async def run(
    bridge: HaBridge, tool: str, arguments: dict[str, Any], request_id: str | None = None
) -> Execution:
    return await bridge.executor.execute(
        ExecutionKey("user:test", request_id or uuid4().hex), resolved(bridge, tool, arguments)
    )


async def done(bridge: HaBridge, tool: str, arguments: dict[str, Any]) -> Execution:
    execution = await run(bridge, tool, arguments)
    assert execution.status is ActionStatus.DONE, execution.to_json()
    assert execution.error is None
    return execution


def ha_state(hass: HomeAssistant, entity_id: str) -> Any:
    state = hass.states.get(entity_id)
    assert state is not None
    return state


def reported(execution: Execution, entity_id: str) -> Any:
    """The target's state as the executor reported it after the call."""
    return next(s for o in execution.outcomes for s in o.states if s.entity_id == entity_id)


# Which test performs which tool: every tool of the catalogue is here.
COVERED = {
    "test_switching_and_lights": ("turn_on", "turn_off", "toggle", "set_light"),
    "test_climate_humidifier_fan": ("set_climate", "set_humidifier", "set_fan"),
    "test_covers_locks_vacuums": ("control_cover", "control_lock", "control_vacuum"),
    "test_media": ("control_media", "set_media"),
    "test_scenes_scripts_and_helpers": (
        "activate_scene",
        "run_script",
        "set_number",
        "select_option",
        "control_timer",
    ),
    "test_queries": ("get_state", "list_entities"),
    "test_calendar": (
        "create_event",
        "list_events",
        "check_free_busy",
        "update_event",
        "delete_event",
    ),
    "test_messages_and_todo": (
        "send_message",
        "create_notification",
        "add_todo_item",
        "complete_todo_item",
        "remove_todo_item",
        "list_todo_items",
    ),
    "test_conversation_tools_have_no_ha_action": ("ask_user", "no_tool_fits"),
}


def test_every_tool_of_the_catalogue_is_performed_by_a_test() -> None:
    covered = [tool for tools in COVERED.values() for tool in tools]
    assert sorted(covered) == sorted(TOOLS)
    assert all(name in globals() for name in COVERED)


async def test_switching_and_lights(hass: HomeAssistant, ha_bridge: HaBridge) -> None:
    execution = await done(ha_bridge, "turn_on", {"entity_id": ["light.bed_light"]})
    assert ha_state(hass, "light.bed_light").state == "on"
    assert reported(execution, "light.bed_light").state == "on"
    assert "light.bed_light" in {s.entity_id for s in execution.outcomes[0].changed}

    await done(ha_bridge, "turn_off", {"area_id": ["living_room"], "domain": ["light"]})
    for light in ("light.ceiling_lights", "light.living_room_rgbww_lights"):
        assert ha_state(hass, light).state == "off"
    assert ha_state(hass, "switch.decorative_lights").state == "on"  # not a light

    before = ha_state(hass, "input_boolean.guest_mode").state
    execution = await done(ha_bridge, "toggle", {"entity_id": ["input_boolean.guest_mode"]})
    after = ha_state(hass, "input_boolean.guest_mode").state
    assert after != before and reported(execution, "input_boolean.guest_mode").state == after

    execution = await done(
        ha_bridge, "set_light", {"entity_id": ["light.kitchen_lights"], "brightness_pct": 30}
    )
    brightness = ha_state(hass, "light.kitchen_lights").attributes["brightness"]
    assert brightness in {76, 77}
    assert reported(execution, "light.kitchen_lights").attributes["brightness"] == brightness
    await done(
        ha_bridge, "set_light", {"entity_id": ["light.office_rgbw_lights"], "color_name": "red"}
    )
    assert ha_state(hass, "light.office_rgbw_lights").attributes["rgb_color"][0] == 255


async def test_climate_humidifier_fan(hass: HomeAssistant, ha_bridge: HaBridge) -> None:
    execution = await done(
        ha_bridge, "set_climate", {"entity_id": ["climate.heatpump"], "temperature": 21}
    )
    assert ha_state(hass, "climate.heatpump").attributes["temperature"] == 21
    assert reported(execution, "climate.heatpump").attributes["temperature"] == 21
    await done(ha_bridge, "set_climate", {"entity_id": ["climate.hvac"], "hvac_mode": "off"})
    assert ha_state(hass, "climate.hvac").state == "off"

    await done(
        ha_bridge, "set_humidifier", {"entity_id": ["humidifier.humidifier"], "humidity": 45}
    )
    assert ha_state(hass, "humidifier.humidifier").attributes["humidity"] == 45

    execution = await done(
        ha_bridge, "set_fan", {"entity_id": ["fan.living_room_fan"], "percentage": 66}
    )
    fan = ha_state(hass, "fan.living_room_fan")
    assert fan.state == "on" and fan.attributes["percentage"] == 66
    assert reported(execution, "fan.living_room_fan").attributes["percentage"] == 66


async def test_covers_locks_vacuums(hass: HomeAssistant, ha_bridge: HaBridge) -> None:
    assert ha_state(hass, "cover.kitchen_window").state == "closed"
    execution = await done(
        ha_bridge, "control_cover", {"entity_id": ["cover.kitchen_window"], "action": "open"}
    )
    assert ha_state(hass, "cover.kitchen_window").state == "open"
    assert reported(execution, "cover.kitchen_window").state == "open"

    await done(ha_bridge, "control_lock", {"entity_id": ["lock.back_door"], "action": "lock"})
    await wait_until(lambda: ha_state(hass, "lock.back_door").state == "locked")
    await wait_until(lambda: ha_bridge.index.home.state_of("lock.back_door").state == "locked")

    robot = "vacuum.demo_vacuum_0_ground_floor"
    execution = await done(ha_bridge, "control_vacuum", {"entity_id": [robot], "action": "start"})
    assert ha_state(hass, robot).state == "cleaning"
    assert reported(execution, robot).state == "cleaning"


async def test_media(hass: HomeAssistant, ha_bridge: HaBridge) -> None:
    player = "media_player.walkman"
    execution = await done(ha_bridge, "control_media", {"entity_id": [player], "action": "pause"})
    assert ha_state(hass, player).state == "paused"
    assert reported(execution, player).state == "paused"
    await done(ha_bridge, "set_media", {"entity_id": [player], "volume_pct": 30, "mute": True})
    attributes = ha_state(hass, player).attributes
    assert attributes["volume_level"] == 0.3 and attributes["is_volume_muted"] is True


async def test_scenes_scripts_and_helpers(hass: HomeAssistant, ha_bridge: HaBridge) -> None:
    execution = await done(ha_bridge, "activate_scene", {"entity_id": ["scene.movie_night"]})
    assert ha_state(hass, "light.ceiling_lights").state == "off"
    assert ha_state(hass, "light.living_room_rgbww_lights").attributes["brightness"] == 60
    # The scene's lights changed under the call's own context.
    assert {"light.ceiling_lights", "light.living_room_rgbww_lights"} <= {
        s.entity_id for s in execution.outcomes[0].changed
    }

    await done(ha_bridge, "run_script", {"entity_id": ["script.good_night"]})
    await wait_until(lambda: ha_state(hass, "input_boolean.night_mode").state == "on")
    assert ha_state(hass, "light.kitchen_lights").state == "off"

    await done(ha_bridge, "set_number", {"entity_id": ["number.volume"], "value": 55})
    assert float(ha_state(hass, "number.volume").state) == 55

    await done(ha_bridge, "select_option", {"entity_id": ["select.speed"], "option": "light_speed"})
    assert ha_state(hass, "select.speed").state == "light_speed"

    timer = "timer.laundry"
    await done(
        ha_bridge,
        "control_timer",
        {"entity_id": [timer], "action": "start", "duration": "00:10:00"},
    )
    assert ha_state(hass, timer).state == "active"
    assert ha_state(hass, timer).attributes["duration"] == "0:10:00"
    await done(ha_bridge, "control_timer", {"entity_id": [timer], "action": "cancel"})
    assert ha_state(hass, timer).state == "idle"


async def test_queries(hass: HomeAssistant, ha_bridge: HaBridge) -> None:
    execution = await done(
        ha_bridge, "get_state", {"area_id": ["kitchen"], "domain": ["light", "sensor"]}
    )
    states = {s.entity_id: s.state for o in execution.outcomes for s in o.states}
    assert states == {
        "light.kitchen_lights": ha_state(hass, "light.kitchen_lights").state,
        "sensor.fridge_temperature": "4.5",
    }
    execution = await done(
        ha_bridge, "list_entities", {"floor_id": ["upstairs"], "domain": ["fan"]}
    )
    assert execution.outcomes[0].response == [
        {"entity_id": "fan.ceiling_fan", "name": "Ceiling Fan", "area": "bedroom"},
        {"entity_id": "fan.percentage_full_fan", "name": "Sam's fan", "area": "kids_room"},
    ]
    assert execution.outcomes[0].states == ()  # names only


async def test_calendar(hass: HomeAssistant, ha_bridge: HaBridge) -> None:
    calendar = ha_bridge.home.calendar
    tomorrow = (now() + timedelta(days=1)).date()
    ten = f"{tomorrow.isoformat()}T10:00:00"

    async def events(tool: str = "list_events") -> list[dict[str, Any]]:
        execution = await done(ha_bridge, tool, {"calendar_id": [calendar], "period": "tomorrow"})
        response = execution.outcomes[0].response
        return list(response[calendar]["events"])

    assert await events() == []
    await done(
        ha_bridge,
        "create_event",
        {"calendar_id": calendar, "summary": "Dentist", "start": ten, "minutes": 30},
    )
    (event,) = await events()
    assert event["summary"] == "Dentist"
    assert event["start"].startswith(ten) and event["end"].startswith(f"{tomorrow}T10:30")
    assert event["uid"]  # added by the executor: HA's get_events has none

    execution = await done(
        ha_bridge,
        "check_free_busy",
        {"calendar_id": [calendar], "start": f"{tomorrow}T09:00", "hours": 2},
    )
    assert [e["summary"] for e in execution.outcomes[0].response[calendar]["events"]] == ["Dentist"]

    await done(
        ha_bridge,
        "update_event",
        {
            "calendar_id": calendar,
            "uid": event["uid"],
            "summary": "Dentist (moved)",
            "start": f"{tomorrow}T11:00",
            "minutes": 45,
        },
    )
    (moved,) = await events()
    assert moved["summary"] == "Dentist (moved)"
    assert moved["start"].startswith(f"{tomorrow}T11:00") and moved["uid"] == event["uid"]

    await done(ha_bridge, "delete_event", {"calendar_id": calendar, "uid": event["uid"]})
    assert await events() == []


async def test_messages_and_todo(hass: HomeAssistant, ha_bridge: HaBridge) -> None:
    phone = ha_bridge.home.phones["Min-ji's phone"]
    await done(
        ha_bridge, "send_message", {"recipient": phone.recipient, "message": "Dinner is ready"}
    )
    assert phone.received == [{"message": "Dinner is ready"}]

    shown: list[dict[str, Any]] = []
    hass.bus.async_listen("notify", lambda event: shown.append(dict(event.data)))
    await done(ha_bridge, "send_message", {"recipient": "notify.notifier", "message": "Hello"})
    await wait_until(lambda: shown == [{"message": "Hello"}])

    await done(ha_bridge, "create_notification", {"message": "The washing is done"})
    notifications = await ha_bridge.client.call({"type": "persistent_notification/get"})
    assert "The washing is done" in [n["message"] for n in notifications]

    todo = ha_bridge.home.todo

    async def open_items() -> list[str]:
        execution = await done(ha_bridge, "list_todo_items", {"list_id": todo})
        return [item["summary"] for item in execution.outcomes[0].response[todo]["items"]]

    await done(ha_bridge, "add_todo_item", {"list_id": todo, "item": "milk"})
    await done(ha_bridge, "add_todo_item", {"list_id": todo, "item": "eggs"})
    assert await open_items() == ["milk", "eggs"]
    await done(ha_bridge, "complete_todo_item", {"list_id": todo, "item": "milk"})
    assert await open_items() == ["eggs"]
    await wait_until(lambda: ha_state(hass, todo).state == "1")  # HA counts open items
    await done(ha_bridge, "add_todo_item", {"list_id": todo, "item": "bread"})
    await done(ha_bridge, "remove_todo_item", {"list_id": todo, "item": "eggs"})
    assert await open_items() == ["bread"]


async def test_conversation_tools_have_no_ha_action(ha_bridge: HaBridge) -> None:
    for tool, arguments in (
        ("ask_user", {"missing": "target"}),
        ("no_tool_fits", {"reason": "I cannot order pizza"}),
    ):
        call = resolved(ha_bridge, tool, arguments)
        assert call.actions == () and call.targets == ()
        execution = await ha_bridge.executor.execute(ExecutionKey("user:test", uuid4().hex), call)
        assert execution.outcomes == () and execution.status is ActionStatus.DONE


# --- failures, repeats and lost connections ---------------------------------------------------


async def test_ha_refusing_an_action_reports_its_message(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    basic = "vacuum.demo_vacuum_4_fourth_floor"  # supports nothing
    with pytest.raises(HomeAssistantError) as direct:
        await hass.services.async_call("vacuum", "start", {"entity_id": basic}, blocking=True)
    execution = await run(ha_bridge, "control_vacuum", {"entity_id": [basic], "action": "start"})
    assert execution.status is ActionStatus.FAILED
    error = execution.error
    assert error is not None and error.code == "service_validation_error"
    assert str(direct.value) in error.message
    assert not error.outcome_unknown


async def test_a_repeated_request_returns_the_first_outcome_and_sends_once(
    ha_bridge: HaBridge,
) -> None:
    phone = ha_bridge.home.phones["Daniel's phone"]
    arguments = {"recipient": phone.recipient, "message": "Bring bread"}
    first, concurrent = await asyncio.gather(
        run(ha_bridge, "send_message", arguments, request_id="req-1"),
        run(ha_bridge, "send_message", arguments, request_id="req-1"),
    )
    again = await run(ha_bridge, "send_message", arguments, request_id="req-1")
    assert first is concurrent is again
    assert phone.received == [{"message": "Bring bread"}]
    await run(ha_bridge, "send_message", arguments, request_id="req-2")  # a new request
    assert len(phone.received) == 2


async def test_only_the_last_requests_are_remembered(ha_bridge: HaBridge) -> None:
    executor = Executor(ha_bridge.client, ha_bridge.index, remember=2)
    phone = ha_bridge.home.phones["Daniel's phone"]
    call = resolved(ha_bridge, "send_message", {"recipient": phone.recipient, "message": "x"})
    try:
        for request_id in ("a", "b", "b", "c", "c", "a"):
            await executor.execute(ExecutionKey("user:test", request_id), call)
    finally:
        await executor.close()
    # "b" and "c" repeated within the bound ran once; "a" was forgotten after two newer ones.
    assert len(phone.received) == 4


async def test_a_call_cut_off_mid_way_is_unknown_and_never_repeated(
    hass: HomeAssistant, ha_bridge: HaBridge, ha_api: HomeAssistantApiServer
) -> None:
    received: list[str] = []
    release = asyncio.Event()

    async def slow_phone(call: HaServiceCall) -> None:  # a phone app that hangs mid-delivery
        received.append(call.data["message"])
        await release.wait()

    hass.services.async_register("notify", "mobile_app_slow_phone", slow_phone)
    message = ServiceCall(
        "notify", "mobile_app_slow_phone", (), {"message": "hi"}, idempotent=False
    )
    after = ServiceCall("input_boolean", "turn_on", ("input_boolean.guest_mode",))
    call = ResolvedCall(parse_tool_call("ask_user", {"missing": "target"}), (), (message, after))

    running = asyncio.create_task(
        ha_bridge.executor.execute(ExecutionKey("user:test", "req-slow"), call)
    )
    await wait_until(lambda: received == ["hi"])
    await ha_api.stop()
    execution = await running
    assert [o.status for o in execution.outcomes] == [ActionStatus.UNKNOWN, ActionStatus.SKIPPED]
    error = execution.error
    assert error is not None and error.code == "connection_lost"
    assert error.outcome_unknown
    assert ha_state(hass, "input_boolean.guest_mode").state == "off"  # skipped, not run

    await ha_api.start()
    await ha_bridge.client.wait_connected(5)
    assert (
        await ha_bridge.executor.execute(ExecutionKey("user:test", "req-slow"), call) is execution
    )
    release.set()
    await hass.async_block_till_done()
    assert received == ["hi"]


async def test_nothing_is_sent_while_disconnected(
    hass: HomeAssistant, ha_bridge: HaBridge, ha_api: HomeAssistantApiServer
) -> None:
    fired: list[Event] = []
    hass.bus.async_listen("call_service", fired.append)
    await ha_api.stop()
    await wait_until(lambda: ha_bridge.client.state is ConnectionState.RECONNECTING)
    execution = await run(ha_bridge, "turn_on", {"entity_id": ["light.bed_light"]})
    assert execution.status is ActionStatus.FAILED
    assert execution.error is not None and execution.error.code == "not_connected"
    assert not execution.error.outcome_unknown  # never sent
    await ha_api.start()
    await ha_bridge.client.wait_connected(5)
    assert fired == []


async def test_a_call_that_changes_nothing_is_not_waited_for(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """A target already as the call leaves it (a light on and turned on, a cover open and
    opened, a red light at 40 % set to 40 % or to red) gets no new state from HA, so there
    is no echo to wait for: the executor reports it at once, changed by nothing. Before,
    every such call waited the whole settle time (issue 29: the fast path's p95 was it)."""
    await hass.services.async_call(
        "light",
        "turn_on",
        {"entity_id": "light.bed_light", "brightness": 102, "color_name": "red"},
        blocking=True,
    )
    await hass.services.async_call(
        "cover", "open_cover", {"entity_id": "cover.kitchen_window"}, blocking=True
    )
    await wait_until(lambda: ha_state(hass, "cover.kitchen_window").state == "open", 10)
    home = ha_bridge.index.home
    await wait_until(
        lambda: (
            ha_bridge.index.home.state_of("cover.kitchen_window").state == "open"
            and ha_bridge.index.home.state_of("light.bed_light").attributes.get("brightness") == 102
        )
    )
    patient = Executor(ha_bridge.client, ha_bridge.index, settle_s=60)
    try:
        for tool, arguments in (
            ("turn_on", {"entity_id": ["light.bed_light"]}),
            ("set_light", {"entity_id": ["light.bed_light"], "brightness_pct": 40}),
            ("set_light", {"entity_id": ["light.bed_light"], "color_name": "red"}),
            ("control_cover", {"entity_id": ["cover.kitchen_window"], "action": "open"}),
        ):
            home = ha_bridge.index.home
            call = resolve_call(home, parse_tool_call(tool, arguments), MappingContext(now()))
            async with asyncio.timeout(20):  # the old executor waited its 60 s here
                execution = await patient.execute(ExecutionKey("user:test", uuid4().hex), call)
            assert execution.status is ActionStatus.DONE, execution.to_json()
            assert all(o.changed == () for o in execution.outcomes), tool
        assert reported(execution, "cover.kitchen_window").state == "open"
    finally:
        await patient.close()


async def test_a_call_still_waits_for_a_device_that_answers_later(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """A lock that reports `locking` first and `locked` later is waited for: what the call
    asked is not there yet when HA answers."""
    await hass.services.async_call("lock", "unlock", {"entity_id": "lock.back_door"}, blocking=True)
    await wait_until(lambda: ha_state(hass, "lock.back_door").state == "unlocked", 10)
    await wait_until(
        lambda: ha_bridge.index.home.state_of("lock.back_door").state == "unlocked", 10
    )
    execution = await done(
        ha_bridge, "control_lock", {"entity_id": ["lock.back_door"], "action": "lock"}
    )
    assert "lock.back_door" in {s.entity_id for s in execution.outcomes[0].changed}


@pytest.mark.parametrize(
    ("service", "data", "state", "attributes", "already"),
    [
        ("turn_on", {}, "on", {}, True),
        ("turn_on", {}, "off", {}, False),
        ("turn_on", {"brightness_pct": 40}, "on", {"brightness": 102}, True),
        ("turn_on", {"brightness_pct": 40}, "on", {"brightness": 200}, False),
        ("turn_on", {"color_name": "red"}, "on", {"rgb_color": [255, 0, 0]}, True),
        ("turn_on", {"color_name": "red"}, "on", {"rgb_color": [0, 0, 255]}, False),
        ("turn_on", {"color_name": "green"}, "on", {"rgb_color": [0, 255, 0]}, False),
        ("turn_on", {"rgb_color": [9, 9, 9]}, "on", {"rgb_color": [9, 9, 9]}, False),
        ("lock", {}, "locked", {}, True),
        ("lock", {}, "locking", {}, False),
        ("set_temperature", {"temperature": 21}, "heat", {"temperature": 21}, True),
        ("toggle", {}, "on", {}, False),
    ],
)
def test_what_counts_as_already_done(
    service: str, data: dict[str, Any], state: str, attributes: dict[str, Any], already: bool
) -> None:
    domain = {"lock": "lock", "set_temperature": "climate"}.get(service, "light")
    entity_id = f"{domain}.x"
    action = ServiceCall(domain, service, (entity_id,), data)
    assert already_as_asked(action, EntityState(entity_id, state, attributes)) is already

"""A device the home does not have (issue 27): "turn on the sauna" is answered with that, in
the request's words, and the device the model put in its place is neither run nor asked
about. Both real models answered the dev set's sauna, washing machine, aquarium light,
electric blanket and garden fountain with "Did you want me to turn on <lights>?" (or the
fan, or another room's thermostat): a question that offers what was not asked.

A scripted planner makes such stand-in calls; the agent, policy, executor and HA (the test
home) are real, and HA's states must not change.
"""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest

from botpsy_agent.agent.protocol import Outcome, Status
from botpsy_agent.llm.parse import RawCall
from tests.agent.support import (
    ScriptedPlanner,
    admin,
    ask,
    call,
    make_agent,
    once,
    refused_leaving_states,
    states,
)
from tests.ha_bridge import HaBridge

STAND_INS = [
    ("turn on the sauna", call("turn_on", entity_id=["light.bed_light"]), "sauna"),
    (
        "start the washing machine",
        call("turn_on", entity_id=["light.kitchen_lights", "switch.decorative_lights"]),
        "washing machine",
    ),
    (
        "switch off the aquarium light",
        call("turn_off", entity_id=["light.kitchen_lights"]),
        "aquarium light",
    ),
    (
        "warm up the electric blanket in the bedroom",
        call("set_climate", entity_id=["climate.hvac"], temperature=24),
        "electric blanket",
    ),
]


@pytest.mark.parametrize(("text", "move", "device"), STAND_INS)
async def test_a_device_the_home_lacks_is_said_to_be_unknown_not_asked_about(
    hass: HomeAssistant, ha_bridge: HaBridge, text: str, move: RawCall, device: str
) -> None:
    agent = make_agent(ha_bridge, once(move))
    before = states(ha_bridge)

    answer = await refused_leaving_states(hass, ha_bridge, agent, text, "no_such_device")
    assert answer.speech == f"Sorry, I don't know any device called “{device}”.", answer

    # Nothing is waiting for a yes: the stand-in was not parked for confirmation.
    await agent.handle(ask("yes", admin(ha_bridge), conversation_id=answer.conversation_id))
    await hass.async_block_till_done()
    assert states(ha_bridge) == before


async def test_a_device_the_home_has_is_still_asked_about(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """The home has decorative lights: the model's stand-in for them is asked about, naming
    the stand-in, as before; the answer does not say the decorative lights are unknown."""
    agent = make_agent(ha_bridge, once(call("turn_on", entity_id=["light.bed_light"])))

    answer = await agent.handle(ask("start the decorative lights for the party", admin(ha_bridge)))

    assert answer.status is Status.NEEDS_CONFIRMATION, answer
    assert "Bed Light" in answer.speech, answer


async def test_a_question_about_a_thing_no_device_reads_is_said_to_be_unknown(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """Issue 27: a carbon-monoxide question was answered with the states the model read in
    its place ("Left Drape: open and Right Drape: closed."). The app says it has nothing
    that reads it, and reads out nothing. (This test home has a carbon dioxide sensor, so
    "carbon" is a word it knows: radon here.)"""
    agent = make_agent(ha_bridge, once(call("get_state", area_id=["kitchen"])))

    answer = await refused_leaving_states(
        hass, ha_bridge, agent, "is there radon in the kitchen", "no_such_device"
    )
    assert answer.speech == "Sorry, nothing in this home tells me about “radon”."


async def test_a_question_about_what_the_home_has_is_answered(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    agent = make_agent(ha_bridge, once(call("get_state", entity_id=["light.kitchen_lights"])))

    answer = await agent.handle(ask("are the kitchen lights on", admin(ha_bridge)))

    assert answer.status is Status.DONE, answer
    assert "Kitchen Lights" in answer.speech, answer


@pytest.mark.parametrize(
    "text",
    [
        "how much radon is there in the kitchen",
        "has the kitchen got a radon problem?",
        "is there still room in the letterbox",
    ],
)
async def test_more_shapes_of_question_about_a_thing_no_device_reads(
    hass: HomeAssistant, ha_bridge: HaBridge, text: str
) -> None:
    """Dev, reworded no-reading-*: the 0.5B read the kitchen's devices (or the garage door)
    for "how much radon …", "has the garage got a water leak?" and "is there still room in
    the mailbox", and their states were the answer."""
    agent = make_agent(ha_bridge, once(call("get_state", area_id=["kitchen"])))

    answer = await refused_leaving_states(hass, ha_bridge, agent, text, "no_such_device")
    assert answer.speech.startswith("Sorry, nothing in this home tells me about “"), answer
    assert "Kitchen" not in answer.speech


async def test_a_kind_of_sensor_the_home_has_none_of_is_said_so(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """Dev, reworded no-reading-0: the fast path read the kitchen's carbon monoxide
    sensors, which match nothing, and the answer was "I don't know which device you mean.",
    an error. (This test home knows "carbon": it has a carbon dioxide sensor.) No model."""
    agent = make_agent(ha_bridge)

    answer = await refused_leaving_states(
        hass, ha_bridge, agent, "is there any carbon monoxide in the kitchen?", "no_such_device"
    )
    assert answer.speech == "Sorry, nothing in this home tells me about “carbon monoxide”."


async def test_a_calendar_read_for_a_thing_no_device_reads_is_no_answer(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """Dev, reworded no-reading-2: "is there still room in the mailbox" read the calendar,
    and the evening's family dinner was the answer. A question that speaks of no time and
    no list is not answered from the calendar; one that does still is."""
    read = call("list_events", calendar_id=["calendar.family"], period="today")
    agent = make_agent(ha_bridge, once(read))
    answer = await refused_leaving_states(
        hass, ha_bridge, agent, "is there still room in the mailbox", "no_such_device"
    )
    assert answer.speech == "Sorry, nothing in this home tells me about “mailbox”."

    timed = make_agent(ha_bridge, once(read))
    today = await timed.handle(ask("is anything on today at the gym", admin(ha_bridge)))
    assert today.status is Status.DONE, today


async def test_an_action_for_a_question_about_a_thing_no_device_reads_is_said_so(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """Reworded no-reading-0~r9: for "feeling dizzy here, could carbon monoxide be building
    up around the kitchen" the real 0.5B proposed opening the blinds and the garage door,
    and was asked "Do you really want to open …?". A question about what no device here
    reads (this home has a carbon-monoxide sensor, none for radon) is answered with that,
    whatever the model proposed, and nothing moves."""
    agent = make_agent(ha_bridge, once(call("control_cover", area_id=["kitchen"], action="open")))
    text = "feeling dizzy here, could radon be building up around the kitchen"

    answer = await refused_leaving_states(hass, ha_bridge, agent, text, "no_such_device")
    assert answer.speech == "Sorry, nothing in this home tells me about “radon”."


async def test_a_question_for_the_calendar_is_not_said_to_be_unknown_after_a_stray_step(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """ "when is the piano lesson in the kitchen?" names nothing a device reads, but the
    calendar may answer it: a first step that switches the kitchen lights on is turned
    away, and the model may still list the events."""
    steps = [
        call("turn_on", entity_id=["light.kitchen_lights"]),
        call("list_events", calendar_id=["calendar.family"], period="next_7_days"),
    ]
    agent = make_agent(
        ha_bridge, ScriptedPlanner(lambda r: [steps[r.step]] if r.step < 2 else "Done.")
    )

    text = "when is the piano lesson in the kitchen?"
    answer = await agent.handle(ask(text, admin(ha_bridge)))

    assert "nothing in this home tells me" not in answer.speech, answer
    assert [(a.tool, a.outcome) for a in answer.actions] == [
        ("turn_on", Outcome.FAILED),  # not asked for: the model may choose again
        ("list_events", Outcome.EXECUTED),
    ]

"""Decide first, speak once (issue 26, item 2; issue 27): the answer is said from the finished
turn. No sentence twice, a failure said once with what failed, nothing said of a step the
model made good, the model's text never spoken; a request no tool fits gets the app's own
capability answer, and the app asks only questions the request gives it reason for.

The "model" is a scripted planner making the real models' mistakes; everything after its
choice is the real agent, policy, executor and HA (the test home).
"""

from __future__ import annotations

from collections import Counter
import re

from homeassistant.core import HomeAssistant
import pytest

from botpsy_agent.agent.protocol import Outcome, Status
from botpsy_agent.llm.parse import RawCall
from botpsy_agent.llm.planning import PlanRequest
from tests.agent.support import ScriptedPlanner, admin, ask, call, make_agent, states
from tests.ha_bridge import HaBridge
from tests.ha_home import TODO

NO_TARGET = call("set_light", brightness_pct=50)
"""What the real 0.5B made three times for an appliance named by what it makes: a light call
without a target, which does not parse."""
PROMPT_TEXT = "Now: Wednesday 2026-12-02 03:40} the music in the kids room"


def sentences(speech: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.?!])\s+", speech) if s]


async def test_three_failed_calls_are_said_once_after_what_was_read(ha_bridge: HaBridge) -> None:
    def choose(request: PlanRequest) -> list[RawCall] | str:
        if request.step == 0:
            return [
                call("get_state", entity_id=["light.kitchen_lights"]),
                NO_TARGET,
                NO_TARGET,
                NO_TARGET,
            ]
        return PROMPT_TEXT  # the model's words end the turn, never spoken

    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    answer = await agent.handle(ask("make me a coffee in the kitchen", admin(ha_bridge)))

    said = sentences(answer.speech)
    assert Counter(said).most_common(1)[0][1] == 1, answer.speech
    assert said.count("I couldn't work out how to do that.") == 1, answer.speech
    assert "Now:" not in answer.speech and "kids room" not in answer.speech
    # the same failing call three times over is tried once (one request runs a call once)
    assert [a.outcome for a in answer.actions] == [Outcome.EXECUTED, Outcome.FAILED]


async def test_a_failure_in_home_assistant_is_said_once_with_what_failed(
    ha_bridge: HaBridge,
) -> None:
    moved = call(
        "update_event",
        calendar_id="calendar.family",
        uid="no-such-event",
        summary="Dentist",
        start="2030-01-02T17:00",
        minutes=60,
    )
    renamed = call(
        "update_event",
        calendar_id="calendar.family",
        uid="no-such-event-either",
        summary="Dentist",
        start="2030-01-02T17:00",
        minutes=60,
    )
    agent = make_agent(ha_bridge, ScriptedPlanner(lambda request: [moved, renamed]))

    answer = await agent.handle(ask("move my dentist appointment to 5 pm", admin(ha_bridge)))

    assert answer.status is Status.ERROR, answer
    assert [a.outcome for a in answer.actions] == [Outcome.FAILED] * 2
    assert answer.speech.count("Home Assistant said") == 1, answer.speech
    assert answer.speech.startswith("That didn't work for Family."), answer.speech
    assert "No existing item" in answer.speech  # HA's own words, what failed


OFF_TOPIC = [
    ("book a table for dinner tonight", call("ask_user", missing="time")),
    ("pay the electricity bill", call("ask_user", missing="value")),
    ("what is seventeen times twenty three", call("ask_user", missing="time")),
    ("write me a poem about the sea", call("ask_user", missing="content")),
    ("get me a taxi to the station", call("ask_user", missing="target")),
    ("quiz me on capital cities", call("no_tool_fits", reason="Quiz: what is the capital?")),
]


@pytest.mark.parametrize(("text", "move"), OFF_TOPIC)
async def test_a_request_no_tool_fits_gets_the_apps_capability_answer(
    ha_bridge: HaBridge, text: str, move: RawCall
) -> None:
    agent = make_agent(ha_bridge, ScriptedPlanner(lambda request: [move]))
    before = states(ha_bridge)

    answer = await agent.handle(ask(text, admin(ha_bridge)))

    assert answer.status is Status.REFUSED, answer
    assert answer.speech.startswith(
        "Sorry, I can't help with that. I can control your lights, switches, fans"
    ), answer.speech
    assert "?" not in answer.speech and "capital" not in answer.speech
    assert states(ha_bridge) == before


@pytest.mark.parametrize(
    ("language", "text", "opening"),
    [
        ("ko", "택시 불러 줘", "죄송해요, 그건 도와드릴 수 없어요. 제가 할 수 있는 일: 조명, "),
        ("id", "pesankan taksi ke stasiun", "Maaf, saya tidak bisa membantu itu. Saya bisa "),
    ],
)
async def test_the_capability_answer_names_the_kinds_of_device_in_the_language(
    ha_bridge: HaBridge, language: str, text: str, opening: str
) -> None:
    move = call("no_tool_fits", reason="no taxi")
    agent = make_agent(ha_bridge, ScriptedPlanner(lambda request: [move]))

    answer = await agent.handle(ask(text, admin(ha_bridge), language=language))

    assert answer.status is Status.REFUSED, answer
    assert answer.speech.startswith(opening), answer.speech
    kinds = {"ko": "조명", "id": "mengendalikan lampu"}[language]
    assert kinds in answer.speech, answer.speech


async def test_a_stale_question_is_not_asked_again_for_an_unrelated_request(
    ha_bridge: HaBridge,
) -> None:
    asked = call("ask_user", missing="time")
    planner = ScriptedPlanner(lambda request: [asked])  # copies its last move, as the 0.5B did
    agent = make_agent(ha_bridge, planner)
    me = admin(ha_bridge)

    first = await agent.handle(ask("add a dentist appointment to the calendar", me))
    assert (first.status, first.speech) == (Status.NEEDS_CLARIFICATION, "For when?")

    for text in ("write me a poem about the sea", "order a taxi", "send an email to my boss"):
        later = await agent.handle(ask(text, me, conversation_id=first.conversation_id))
        assert later.status is Status.REFUSED, (text, later)
        assert "For when?" not in later.speech, (text, later.speech)
        assert later.speech.startswith("Sorry, I can't help with that."), later.speech


UNASKED_ON_THEIR_WAY = [
    (
        "got a cat joke for me?",
        [
            call("list_todo_items", list_id="todo.shopping_list"),
            call("complete_todo_item", list_id="todo.shopping_list", item="bread"),
        ],
    ),
    (
        "phone my mum",
        [call("send_message", recipient="notify.mobile_app_daniel_s_phone", message="hi")],
    ),
    # `make demo` at d17f57f: the 0.5B posted a notification; "good" is a word of the
    # "Good night" script's name, which the request is not about
    ("translate good morning into French", [call("create_notification", message="Bonjour")]),
]


@pytest.mark.parametrize(("text", "moves"), UNASKED_ON_THEIR_WAY)
async def test_a_model_turn_that_comes_to_nothing_asked_gets_the_capability_answer(
    hass: HomeAssistant, ha_bridge: HaBridge, text: str, moves: list[RawCall]
) -> None:
    """Dev, reworded no-tool-joke and no-tool-3: the real 0.5B read the shopping list and
    ticked off the bread for a joke, and messaged Anna for "phone my mum"; both calls were
    refused as unasked, and the answer was "I couldn't work out how to do that.", an error.
    A request nothing asked for fits is answered with what the app can do, and the read on
    the way is not said."""
    for item in ("milk", "bread"):
        await hass.services.async_call(
            "todo", "add_item", {"item": item}, target={"entity_id": TODO}
        )
    await hass.async_block_till_done()

    def choose(request: PlanRequest) -> list[RawCall] | str:
        return [moves[request.step]] if request.step < len(moves) else "Done."

    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    answer = await agent.handle(ask(text, admin(ha_bridge)))
    await hass.async_block_till_done()

    assert answer.actions[-1].tool == moves[-1].name, answer
    assert answer.actions[-1].outcome is Outcome.REFUSED, answer
    assert answer.status is Status.REFUSED, answer
    assert answer.speech.startswith(
        "Sorry, I can't help with that. I can control your lights, switches, fans"
    ), answer.speech
    assert "bread" not in answer.speech and "milk" not in answer.speech
    listed = await hass.services.async_call(
        "todo",
        "get_items",
        {"status": ["needs_action"]},
        target={"entity_id": TODO},
        blocking=True,
        return_response=True,
    )
    assert [i["summary"] for i in listed[TODO]["items"]] == ["milk", "bread"]  # type: ignore[index,union-attr]
    assert ha_bridge.home.phones["Daniel's phone"].received == []


async def test_a_setting_is_said_with_the_value_that_was_set(ha_bridge: HaBridge) -> None:
    # `make demo` at 9534ef0 said "Set Kids room light." for "dim the kids room light a
    # bit": the user could not tell a dim from a brighten, nor by how much.
    agent = make_agent(ha_bridge, ScriptedPlanner(lambda request: []))

    answer = await agent.handle(ask("can you put the Bed Light at 10 percent", admin(ha_bridge)))

    assert answer.status is Status.DONE, answer
    assert answer.speech == "Set Bed Light: brightness 10%.", answer.speech
    brightness = ha_bridge.index.home.state_of("light.bed_light").attributes["brightness"]
    assert round(brightness / 255 * 100) == 10


async def test_a_step_is_said_as_its_way_and_size(ha_bridge: HaBridge) -> None:
    me = admin(ha_bridge)
    agent = make_agent(ha_bridge, ScriptedPlanner(lambda request: []))
    await agent.handle(ask("can you put the Bed Light at 50 percent", me))
    dim = call("set_light", entity_id=["light.bed_light"], brightness_step_pct=-20)
    agent = make_agent(
        ha_bridge, ScriptedPlanner(lambda request: [dim] if request.step == 0 else "")
    )

    answer = await agent.handle(ask("the bed light is too bright, dim it a bit", me))

    assert answer.status is Status.DONE, answer
    assert "Bed Light: brightness down 20%." in answer.speech, answer.speech
    brightness = ha_bridge.index.home.state_of("light.bed_light").attributes["brightness"]
    assert round(brightness / 255 * 100) == 30

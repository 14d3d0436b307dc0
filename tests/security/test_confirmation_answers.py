"""Issue 18, finding 3: only a bare yes or no answers a confirmation question, anything else
is a new request that cancels the parked action; and the question names what is approved
(the target, and the content of a message or an event). On the real HA core (`ha_bridge`)."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest

from botpsy_agent.agent.protocol import Status
from botpsy_agent.agent.speech import Phrasebook
from botpsy_agent.llm.parse import RawCall
from botpsy_agent.llm.planning import PlanRequest
from tests.agent.support import ScriptedPlanner, admin, ask, call, make_agent
from tests.ha_bridge import HaBridge
from tests.reliability.harness import changed, home_states

OPEN_GARAGE = call("control_cover", entity_id=["cover.garage_door"], action="open")
KITCHEN_OFF = call("turn_off", entity_id=["light.kitchen_lights"])
TO_OUTSIDER = call(
    "send_message", recipient="notify.notifier", message="The spare key is under the pot"
)


def first_then(first: RawCall, then: RawCall) -> ScriptedPlanner:
    """The first request gets `first`; every later one `then`; after a tool result, text."""

    def choose(request: PlanRequest) -> list[RawCall] | str:
        if any(m.get("role") == "tool" for m in request.messages[-1:]):
            return "Done."
        users = [m for m in request.messages if m.get("role") == "user"]
        return [first] if len(users) == 1 else [then]

    return ScriptedPlanner(choose)


async def test_okay_and_another_request_is_no_yes_and_cancels_the_parked_action(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """Reproduced: "okay, and turn off the kitchen light" opened the parked garage door and
    never touched the light (the old matcher took any sentence starting with "ok")."""
    agent = make_agent(ha_bridge, first_then(OPEN_GARAGE, KITCHEN_OFF))
    me = admin(ha_bridge)
    before = home_states(hass)
    asked = await agent.handle(ask("open the garage", me))
    assert asked.status is Status.NEEDS_CONFIRMATION
    conversation = asked.conversation_id
    other = await agent.handle(
        ask("okay, and turn off the kitchen light", me, conversation_id=conversation)
    )
    assert "cover.garage_door" not in changed(before, home_states(hass))
    assert all(a.tool != "control_cover" for a in other.actions)
    # The parked action is gone: a later bare yes has nothing to approve.
    late = await agent.handle(ask("yes", me, conversation_id=conversation))
    assert "cover.garage_door" not in changed(before, home_states(hass))
    assert all(a.tool != "control_cover" for a in late.actions)


@pytest.mark.parametrize(
    ("language", "text", "yes", "no"),
    [
        ("en", "Yes!", True, False),
        ("en", "  go ahead. ", True, False),
        ("en", "ok", True, False),
        ("en", "okay, and turn off the kitchen light", False, False),
        ("en", "yes but unlock the door too", False, False),
        ("en", "no", False, True),
        ("en", "no, open the garage", False, False),
        # An answer in parts (dev, tests/eval/reworded.yaml): phrases and fillers only.
        ("en", "yes, go ahead", True, False),
        ("en", "yep please", True, False),
        ("en", "sure, do it", True, False),
        ("en", "no, leave it", False, True),
        ("en", "actually no, don't", False, True),
        ("en", "no, do it", False, False),
        ("en", "please", False, False),
        ("en", "yes please, and unlock the door", False, False),
        # reworded calendar-delete~r3, -declined~r3, followup-cancel-it~r3: a new request
        ("en", "yes, that's right", True, False),
        ("en", "yes, go on", True, False),
        ("en", "on second thought, no, keep it", False, True),
        ("en", "yes, keep it", False, False),
        # reworded calendar-delete-declined~r4: a new request, refused
        ("en", "no thanks, I'll keep it", False, True),
        ("en", "yes, I'll keep it", False, False),
        # reworded calendar-delete~r5, -declined~r5, followup-cancel-it~r5: a new request
        ("en", "yep, go for it", True, False),
        ("en", "yeah, definitely", True, False),
        ("en", "hmm, no, don't bother", False, True),
        ("en", "hmm", False, False),
        ("en", "definitely, and turn on the kitchen light", False, False),
        # reworded calendar-delete~r6, followup-cancel-it~r6, calendar-delete-declined~r6:
        # refused as new requests
        ("en", "yes, do that", True, False),
        ("en", "yes, I'm sure", True, False),
        ("en", "wait, no, leave it where it is", False, True),
        ("en", "I'm sure, and unlock the door", False, False),
        # reworded calendar-delete-declined~r7: refused as a new request
        ("en", "nah, never mind, leave it", False, True),
        # reworded calendar-delete-dinner~r9, calendar-delete-declined~r9: refused as new
        # requests
        ("en", "sure thing, yes", True, False),
        ("en", "actually no, I've changed my mind", False, True),
        ("en", "correct", True, False),
        ("en", "correct, and turn on the kitchen light", False, False),
        ("ko", "네", True, False),
        ("ko", "네 그리고 불 꺼줘", False, False),
        ("id", "ya", True, False),
        ("id", "ya, dan matikan lampu", False, False),
        ("id", "tidak", False, True),
    ],
)
def test_only_a_bare_yes_or_no_counts(language: str, text: str, yes: bool, no: bool) -> None:
    phrases = Phrasebook()
    assert phrases.is_affirmative(language, text) is yes
    assert phrases.is_negative(language, text) is no


async def test_the_question_says_what_a_message_would_say(ha_bridge: HaBridge) -> None:
    agent = make_agent(ha_bridge, first_then(TO_OUTSIDER, TO_OUTSIDER))
    asked = await agent.handle(ask("tell the notifier", admin(ha_bridge)))
    assert asked.status is Status.NEEDS_CONFIRMATION
    assert "The spare key is under the pot" in asked.speech, asked.speech


def test_a_yes_may_say_again_only_the_action_asked_about() -> None:
    """Reworded calendar-delete~r7: "yes please, delete it" to a deletion is a yes; the
    same words to another question, or without a yes, are not."""
    phrases = Phrasebook()
    assert phrases.is_affirmative("en", "yes please, delete it", "delete_event")
    assert phrases.is_affirmative("en", "yes, cancel it", "delete_event")
    # reworded calendar-delete~r9: "correct, cancel it" was refused as a new request
    assert phrases.is_affirmative("en", "correct, cancel it", "delete_event")
    assert not phrases.is_affirmative("en", "yes please, delete it")
    assert not phrases.is_affirmative("en", "yes, cancel it", "control_lock")
    assert not phrases.is_affirmative("en", "cancel it", "delete_event")  # may mean no
    assert not phrases.is_affirmative("en", "yes, delete it and unlock the door", "delete_event")

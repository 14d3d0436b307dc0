"""Content spans by code (issue 27; agent/content.py, D68): list items, event titles and
message bodies are the meaningful span of the request, and the code's span wins over the
model's where they differ. The pure readings first, then the real agent on the HA test home
with a scripted planner making the real models' mistakes."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util
import pytest

from botpsy_agent.agent.protocol import Status
from botpsy_agent.llm.parse import RawCall
from botpsy_agent.llm.planning import PlanRequest
from botpsy_agent.words.content import (
    event_title,
    items_said,
    list_item,
    message_body,
    separate_items,
    spans_of_content,
    with_request_content,
)
from botpsy_agent.words.grounding import Request
from tests.agent.support import ScriptedPlanner, admin, ask, call, make_agent, todo_items
from tests.ha_bridge import HaBridge
from tool_schemas.catalog import parse_tool_call

NOW = datetime(2026, 12, 1, 10, 17, tzinfo=ZoneInfo("Asia/Seoul"))


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("add oat milk to the shopping list", "oat milk"),
        ("add milk to my shopping list", "milk"),
        ("put some butter on the shopping list", "butter"),
        ("can you remember crisps on the shopping list for me", "crisps"),
        ("we're out of coffee beans, put them on the list", None),  # points back: the model's
        # reworded todo-note-two~r9: the 1.5B added the eggs alone
        (
            "baking at the weekend, mind jotting eggs plus flour onto our shopping list",
            "eggs plus flour",
        ),
        # reworded todo-add-coffee~r9: "some" went on the list
        ("the last coffee beans got used this morning, chuck some onto the list", None),
        ("we need eggs and flour, can you note that on the shopping list", None),
        ("we need eggs", None),
        # reworded todo-note-two~r7 and todo-add-two~r7: "down eggs" went on the list, and
        # "pop" was not read
        ("note down eggs and flour on the shopping list, we'll need both", "eggs and flour"),
        (
            "pop butter and cheese on the shopping list, we've hardly got any left",
            "butter and cheese",
        ),
    ],
)
def test_list_items_are_the_words_between_add_and_the_list(text: str, item: str | None) -> None:
    assert list_item(text) == item


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("remind me on Friday at 3 to call the dentist", "Call the dentist"),
        # reworded calendar-reminder-names-a-device~r9: the question mark stayed on the title
        (
            "can I get a reminder to turn on the coffee machine, tomorrow morning at seven?",
            "Turn on the coffee machine",
        ),
        ("remind me to call the dentist on Friday at 3 on the family calendar", "Call the dentist"),
        ("add swimming to the family calendar on Saturday at 10 for an hour", "Swimming"),
        ("put grandma's birthday on the calendar on Friday, all day", "Grandma's birthday"),
        ("add a haircut appointment tomorrow at 11 am", "Haircut appointment"),
        ("schedule a vet visit in 3 days at 9:30, half an hour", "Vet visit"),
        ("what's on the calendar tomorrow", None),
        # dev, reworded calendar-create-*: "It please", "Vet visit ' time"; then in `make
        # demo` the 0.5B titled the haircut after the last event, "Switch on the coffee machine"
        ("I've got a haircut tomorrow at 11am, add it please", "Haircut"),
        ("add it please", None),
        ("add a 30 minute vet visit in three days' time at 9:30 am", "Vet visit"),
        ("set a reminder for 7 tomorrow morning to feed the cat", "Feed the cat"),
        ("I need a reminder at 7 o'clock tomorrow morning to feed the cat", "Feed the cat"),
        # dev, reworded calendar-create-allday: the 0.5B's title ran on, "birthday birthday …"
        ("could you make an all day entry on Friday for grandma's birthday", "Grandma's birthday"),
        ("add an event for 3 pm tomorrow", None),
        # reworded calendar-create~r3, -in-days~r3: "pop it on", "a half-hour vet visit"
        (
            "we've got swimming on Saturday at 10 in the morning for an hour, pop it on the "
            "family calendar please",
            "Swimming",
        ),
        ("please schedule a half-hour vet visit at 9:30 in the morning", "Vet visit"),
        # reworded recover-move-event~r3: an event titled "It instead"
        ("the dentist has to move, put it on Thursday at 4pm instead", None),
        # reworded calendar-create~r6 and -in-days~r6: the 0.5B titled the vet visit with the
        # whole request; make demo at 57f51ec: "pencil in"
        (
            "book a vet visit into the calendar for three days from today, nine thirty a.m., "
            "lasting thirty minutes",
            "Vet visit",
        ),
        ("note swimming down on the family calendar for Saturday, starting at 10 a.m.", "Swimming"),
        ("pencil in a haircut on the family calendar for Thursday at half past four", "Haircut"),
        # reworded ~r7: "It for ? it only takes"; read only; the coffee machine switched on
        (
            "the vet visit, can you schedule it for 9:30 am in three days' time? it only takes "
            "half an hour",
            "Vet visit",
        ),
        (
            "Saturday at 10 we've got swimming, it's an hour long, can you get it in the family "
            "calendar",
            "Swimming",
        ),
        # reworded calendar-create~r9 and ~r8: the title ran on ("Kids swimming onto family
        # calendar")
        (
            "the kids have swimming Saturday, 10 o'clock till 11, pop that onto the family "
            "calendar",
            "Swimming",
        ),
        (
            "this Saturday there's swimming from ten till eleven in the morning, mind adding "
            "that to the family calendar?",
            "Swimming",
        ),
        # reworded calendar-create-in-days~r9: titled "It out, start, lasting"
        (
            "the dog's due a vet visit, pencil it in three days out, 9:30 start, lasting 30 mins",
            "Vet visit",
        ),
        ("pencil it in for Friday", None),
        (
            "at 7 am tomorrow I want reminding to turn on the coffee machine, can you sort that",
            "Turn on the coffee machine",
        ),
    ],
)
def test_event_titles_are_what_happens_not_who_which_calendar_or_when(
    text: str, title: str | None
) -> None:
    assert event_title(text, NOW, "en") == title


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("tell Sam that dinner is ready", "dinner is ready"),
        ("tell Anna dinner is ready", "dinner is ready"),
        ("tell Daniel that Min-ji's dinner is ready", "Min-ji's dinner is ready"),
        ("send Sam a message that we leave in ten minutes", "we leave in ten minutes"),
        ("let Sam know that grandma is coming at six", "grandma is coming at six"),
        ("text Anna to pick up bread on the way home", "pick up bread on the way home"),
        ("post a notification that the plumber comes at 3", "the plumber comes at 3"),
        ("tell the kids that dinner is ready", "dinner is ready"),
        ("tell the notifier", None),  # no body said: the model's stands
        ("text the broken phone hi", "hi"),
        ("tell Min-ji dinner is ready", None),  # not the call's recipient: the model's stands
        ("tell me a joke", None),
        # A later part says it (dev multi-blinds-and-message: the 0.5B sent "Sam is ready").
        ("open the bedroom blinds and tell Sam breakfast is ready", "breakfast is ready"),
        (
            "switch the kettle on, then tell Anna tea is ready and the cake too",
            "tea is ready and the cake too",
        ),
        ("open the blinds and tell me a joke", None),
        # The fact first (reworded message-sam-grandma~r3, multi-blinds-and-message~r3: the
        # 0.5B asked what to say, and sent "in the Bedroom").
        ("grandma's coming at six, can you let Sam know", "grandma's coming at six"),
        (
            "breakfast is ready, so let Sam know, and could you open the blinds in the bedroom",
            "breakfast is ready",
        ),
        ("I'm home, dinner is ready, let Anna know please", "dinner is ready"),
        ("switch the heater on, and let Sam know", None),  # what was done: the model's
        # reworded followup-message-same~r5 and child-messages-anna~r5: the 0.5B sent "for
        # me: dinner's ready" and "and tell her I'm home"
        ("message Anna for me: dinner's ready", "dinner's ready"),
        ("can you message Anna and tell her I'm home", "I'm home"),
        ("text Anna: running late", "running late"),
        # reworded message-sam-grandma~r5: both real models' messages were refused
        ("can you give Sam a heads-up that grandma's arriving at six", "grandma's arriving at six"),
        # make demo at 57f51ec: the 0.5B sent "say I'm running ten minutes late"
        ("text Anna to say I'm running ten minutes late", "I'm running ten minutes late"),
        ("message Sam to let him know that the bins are out", "the bins are out"),
        # reworded followup-message-same~r7, child-messages-anna~r7: asked what to say
        ("dinner's ready, tell Anna", "dinner's ready"),
        ("I'm home! can you tell Anna", "I'm home"),
        ("switch the heater on, and tell Sam", None),  # what was done: the model's to say
        # reworded notify-bins~r7: the 0.5B asked what to say
        (
            "the bins go out tonight, put out a notification to remind everyone",
            "the bins go out tonight",
        ),
        ("turn off the lights, then send a notification", None),
        # reworded message-names-a-device~r8: the 0.5B asked what to say
        (
            "Anna needs to know the counter lights are still on, please message her about it",
            "the counter lights are still on",
        ),
        # reworded message-anna-bread~r8: the 0.5B sent "and ask her to pick some up …"
        (
            "we've got no bread, could you text Anna and ask her to pick some up on her way home",
            "We've got no bread, could you pick some up on your way home?",
        ),
        (
            "text Sam and ask him to shut the door when he's in",
            "Could you shut the door when you're in?",
        ),
        # a command before the asking is no part of the message
        (
            "switch the heater on, could you text Sam and ask him to grab milk",
            "Could you grab milk?",
        ),
        # reworded message-names-a-device~r9, message-asks-someone-else~r9: the 0.5B switched
        # the lights off and opened the blinds
        # reworded multi-coffee-and-message~r9: nothing was sent
        ("buzz Anna to say her coffee's nearly ready", "her coffee's nearly ready"),
        (
            "ping Anna, the counter lights haven't been switched off yet",
            "the counter lights haven't been switched off yet",
        ),
        (
            "drop Sam a line reminding him the bedroom blinds want opening first thing",
            "the bedroom blinds want opening first thing",
        ),
    ],
)
def test_message_bodies_are_what_is_to_be_said(text: str, body: str | None) -> None:
    names = ("Sam's phone", "Anna", "Daniel's phone", "the kids", "Notifier", "broken phone")
    assert message_body(text, names) == body


async def test_the_list_gets_the_item_said_not_the_models_question(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    def choose(request: PlanRequest) -> list[RawCall] | str:
        if request.step == 0:
            return [call("add_todo_item", list_id="todo.shopping_list", item="Is oat milk left?")]
        return "Done."

    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    answer = await agent.handle(ask("add oat milk to the shopping list", admin(ha_bridge)))

    assert answer.status is Status.DONE, answer
    assert "oat milk" in await todo_items(hass)
    assert "Is oat milk left?" not in await todo_items(hass)
    assert answer.speech == "Added oat milk to Shopping list.", answer.speech


@pytest.mark.parametrize(
    ("text", "model", "kept"),
    [
        # one call per item: an item that is one of several said stays the model's
        ("add butter and cheese to the shopping list", "Butter", "Butter"),
        ("add oat milk to the shopping list", "Oat milk", "Oat milk"),
        ("add oat milk to the shopping list", "Is oat milk left?", "oat milk"),
        ("add oat milk to the shopping list", "milk", "oat milk"),
    ],
)
def test_the_codes_item_wins_unless_the_model_wrote_one_of_the_items_said(
    text: str, model: str, kept: str
) -> None:
    proposed = parse_tool_call("add_todo_item", {"list_id": "todo.shopping_list", "item": model})
    assert with_request_content(proposed, text, NOW, "en").model_dump()["item"] == kept


def test_requests_in_other_languages_keep_the_models_content() -> None:
    proposed = parse_tool_call("send_message", {"recipient": "notify.sam", "message": "Makan!"})
    text = "bilang ke Sam makan malam sudah siap"
    assert with_request_content(proposed, text, NOW, "id") is proposed


async def test_the_event_is_titled_with_what_happens(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    friday = dt_util.now().date() + timedelta(days=(4 - dt_util.now().weekday()) % 7 or 7)
    start = f"{friday.isoformat()}T15:00"
    tail = "call the dentist on Friday at 3 on the family calendar"

    def choose(request: PlanRequest) -> list[RawCall] | str:
        if request.step == 0:
            return [
                call(
                    "create_event",
                    calendar_id="calendar.family",
                    summary=tail,
                    start=start,
                    minutes=30,
                )
            ]
        return "Done."

    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    text = "remind me on Friday at 3 pm to call the dentist on the family calendar"
    answer = await agent.handle(ask(text, admin(ha_bridge)))

    assert answer.status is Status.DONE, answer
    listed = await hass.services.async_call(
        "calendar",
        "get_events",
        {
            "entity_id": "calendar.family",
            "start_date_time": f"{friday.isoformat()}T00:00:00",
            "duration": {"hours": 24},
        },
        blocking=True,
        return_response=True,
    )
    summaries = [e["summary"] for e in listed["calendar.family"]["events"]]  # type: ignore[index]
    assert summaries == ["Call the dentist"], summaries


def test_items_said_together_come_apart() -> None:
    said = "we need eggs and flour, can you note that on the shopping list"
    assert separate_items("eggs and flour", said) == ["eggs", "flour"]
    assert separate_items("milk, eggs and bread", "add milk, eggs and bread") == [
        "milk",
        "eggs",
        "bread",
    ]
    # Only words the request said: the model's own joining is not split into new items.
    assert separate_items("eggs and milk", "add eggs to the list") == ["eggs and milk"]
    assert separate_items("oat milk", "add oat milk to the list") == ["oat milk"]
    # reworded todo-note-two~r9: added as one item
    said = "baking at the weekend, mind jotting eggs plus flour onto our shopping list"
    assert separate_items("eggs plus flour", said) == ["eggs", "flour"]


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("we need eggs and flour, can you note that on the shopping list", ["eggs", "flour"]),
        ("we're out of rice. Please add it to the list", ["rice"]),
        ("add milk, eggs and bread to the shopping list", ["milk", "eggs", "bread"]),
        ("we're out of coffee beans, put them on the list", ["coffee beans"]),
        # dev todo-add-two: the 1.5B added "Butter" alone
        ("we're low on butter and cheese, put both on the shopping list", ["butter", "cheese"]),
        # reworded todo-note-two, todo-add-two: the 1.5B added eggs and butter alone
        ("could you jot down eggs and flour on the shopping list", ["eggs", "flour"]),
        (
            "we're nearly out of butter and cheese, can you put them on the shopping list",
            ["butter", "cheese"],
        ),
        ("put them on the list", []),
        ("we need eggs", []),  # no list named: the model's to decide
        # reworded todo-add-two~r3, todo-note-two~r3: "two things" added; eggs alone
        ("could you add two things to the shopping list: butter and cheese", ["butter", "cheese"]),
        ("we'll need eggs and flour, could you pop them on the shopping list", ["eggs", "flour"]),
        # reworded todo-note-two~r9: the 1.5B added the eggs alone
        (
            "baking at the weekend, mind jotting eggs plus flour onto our shopping list",
            ["eggs", "flour"],
        ),
        # reworded todo-add-two~r8: the 0.5B added "go shopping"
        (
            "we're nearly out of both butter and cheese, so both of those need to go on the "
            "shopping list please",
            ["butter", "cheese"],
        ),
    ],
)
def test_the_items_a_request_asks_to_add(text: str, items: list[str]) -> None:
    assert items_said(text) == items


def test_the_needed_items_are_the_content_span_of_an_add() -> None:
    proposed = parse_tool_call(
        "add_todo_item", {"list_id": "todo.shopping_list", "item": "Put coffee beans on the list"}
    )
    text = "we're out of coffee beans, put them on the list"
    assert with_request_content(proposed, text, NOW, "en").model_dump()["item"] == "coffee beans"


async def test_an_item_the_model_left_out_is_added_too(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """Dev case todo-note-two: the real 1.5B added "eggs" of "eggs and flour" and said it
    was done; the list the model chose gets "flour" too, checked and said like the first."""

    def choose(request: PlanRequest) -> list[RawCall] | str:
        if request.step == 0:
            return [call("add_todo_item", list_id="todo.shopping_list", item="eggs")]
        return "Done."

    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    text = "we need eggs and flour, can you note that on the shopping list"
    answer = await agent.handle(ask(text, admin(ha_bridge)))

    assert answer.status is Status.DONE, answer
    items = await todo_items(hass)
    assert "eggs" in items and "flour" in items, items
    assert "eggs" in answer.speech and "flour" in answer.speech, answer.speech


# "the eggs and flour" (make eval at b8ab341: the 0.5B's item, mended to the request's span
# "eggs and flour", went on the list as one item)
@pytest.mark.parametrize("models_item", ["them", "Baking", "the eggs and flour", "eggs, flour"])
async def test_an_item_never_said_gives_way_to_the_items_said(
    hass: HomeAssistant, ha_bridge: HaBridge, models_item: str
) -> None:
    """Reworded todo-note-two~r6: "eggs and flour" went on the list as one item, the
    request's span put in place of an item of the model's that the request never said."""

    def choose(request: PlanRequest) -> list[RawCall] | str:
        if request.step == 0:
            return [call("add_todo_item", list_id="todo.shopping_list", item=models_item)]
        return "Done."

    before = await todo_items(hass)
    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    text = "I'm baking, so we'll need eggs and flour, add them to the shopping list please"
    answer = await agent.handle(ask(text, admin(ha_bridge)))

    assert answer.status is Status.DONE, answer
    added = [item for item in await todo_items(hass) if item not in before]
    assert sorted(added) == ["eggs", "flour"], added


async def test_what_is_needed_is_added_once_in_the_requests_words(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """Dev todo-add-coffee, as the 0.5B did it at 73ea371: it added "Put coffee beans on the
    list"; the rule for items left out added "coffee beans" beside it, and the list grew by
    two. One item, in the request's words."""

    def choose(request: PlanRequest) -> list[RawCall] | str:
        if request.step == 0:
            return [
                call(
                    "add_todo_item",
                    list_id="todo.shopping_list",
                    item="Put coffee beans on the list",
                )
            ]
        return "Done."

    before = await todo_items(hass)
    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    text = "we're out of coffee beans, put them on the list"
    answer = await agent.handle(ask(text, admin(ha_bridge)))

    assert answer.status is Status.DONE, answer
    added = [item for item in await todo_items(hass) if item not in before]
    assert added == ["coffee beans"], added


# --- content grounds nothing but its own call ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("let Sam know that breakfast is on the table", ("breakfast is on the table",)),
        ("tell Sam to switch off the porch light", ("switch off the porch light",)),
        ("remind me at 9 to turn off the heater", ("turn off the heater",)),
        # dev, reworded: the real 0.5B switched the machine on, and opened the blinds
        (
            "set a reminder for 7 tomorrow morning to turn on the coffee machine",
            ("turn on the coffee machine",),
        ),
        ("add a reminder to the calendar for 7 to call mum", ("call mum",)),
        # reworded calendar-reminder-names-a-device~r4: the 0.5B switched the machine on
        (
            "I need a reminder at 7 o'clock tomorrow morning to switch on the coffee machine",
            ("switch on the coffee machine",),
        ),
        (
            "send Sam a message to open the bedroom blinds when he wakes up",
            ("open the bedroom blinds when he wakes up",),
        ),
        ("warn Sam that we have to leave soon", ("we have to leave soon",)),
        ("add lamp oil to the shopping list", ("lamp oil",)),
        ("turn on the kitchen light", ()),
        # Nobody the home can message is said: no body, so nothing is set apart.
        ("tell the lamp to turn on", ()),
        # a message put to Sam in other words: what grounds nothing else is as said
        (
            "we're out of milk, text Sam and ask him to grab some",
            ("we're out of milk", "grab some"),
        ),
    ],
)
def test_the_spans_that_are_content(text: str, spans: tuple[str, ...]) -> None:
    assert spans_of_content(text, ("Sam's phone",)) == spans


def test_a_request_without_its_content_keeps_the_rest_as_said() -> None:
    text = "Open the bedroom blinds, then let Sam know that breakfast is on the table"
    words = Request(text, "en", content=spans_of_content(text, ("Sam",)))
    assert words.outside_content.text == "Open the bedroom blinds, then let Sam know that"
    assert Request(text, "en").outside_content.text == text


async def test_a_device_said_only_in_a_message_is_not_switched(ha_bridge: HaBridge) -> None:
    """ "tell Daniel to switch off the fairy lights" asks for a message: a model that also
    switches them off acts unasked (the words that name it are what Daniel is to read). The
    old check found "switch off" and "fairy lights" in the request and ran it."""
    recipient = ha_bridge.home.phones["Daniel's phone"]

    def choose(request: PlanRequest) -> list[RawCall] | str:
        if request.step == 0:
            return [
                call(
                    "send_message",
                    recipient=recipient.recipient,
                    message="switch off the fairy lights",
                ),
                call("turn_off", entity_id=["switch.decorative_lights"]),
            ]
        return "Done."

    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    assert ha_bridge.index.home.state_of("switch.decorative_lights").state == "on"
    response = await agent.handle(
        ask("tell Daniel to switch off the fairy lights", admin(ha_bridge))
    )
    assert [m.get("message") for m in recipient.received] == ["switch off the fairy lights"]
    assert ha_bridge.index.home.state_of("switch.decorative_lights").state == "on"
    switched = next(a for a in response.actions if a.tool == "turn_off")
    assert switched.error is not None and switched.error.code == "not_asked", response
    assert response.status is Status.DONE, response
    # Said outside the message, the same switch is asked for and switched.
    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    await agent.handle(
        ask("switch off the fairy lights and tell Daniel to switch them on", admin(ha_bridge))
    )
    assert ha_bridge.index.home.state_of("switch.decorative_lights").state == "off"


@pytest.mark.parametrize(
    ("text", "body"),
    [
        # A told fact ends where a command for the home follows (tests/security
        # test_exactly_once: the fairy lights were the message's, and were never turned off).
        ("tell Min-ji dinner is ready and turn off the fairy lights", "dinner is ready"),
        ("let Anna know the film starts at nine, then switch on the TV", "the film starts at nine"),
        # An instruction to the person is theirs to the end; an "and" inside a fact stays.
        ("tell Sam to open the blinds and close the door", "open the blinds and close the door"),
        ("tell Sam the milk and bread are in the fridge", "the milk and bread are in the fridge"),
        # A fact that opens with "when …" keeps the command after its comma (reworded
        # message-asks-someone-else~r6: the 0.5B sent "when you get up" and opened the blinds).
        (
            "send Sam a message saying: when you get up, open the bedroom blinds please",
            "when you get up, open the bedroom blinds please",
        ),
        # reworded multi-blinds-and-message~r7: the blinds went into the message, and stayed
        (
            "breakfast's on the table, so send Sam a message saying breakfast is ready, and get "
            "the bedroom blinds open",
            "breakfast is ready",
        ),
    ],
)
def test_a_message_ends_where_a_command_for_the_home_begins(text: str, body: str) -> None:
    assert message_body(text, ("Min-ji", "Sam", "Anna")) == body


async def test_items_noted_down_go_on_the_list_once_each(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """Reworded todo-note-two~r7, as the 0.5B did it: three calls, "down eggs and flour",
    "flour" and "down eggs"; the list grew by "down eggs", "flour" and "flour" again."""

    def choose(request: PlanRequest) -> list[RawCall] | str:
        if request.step == 0:
            return [
                call("add_todo_item", list_id="todo.shopping_list", item=item)
                for item in ("down eggs and flour", "flour", "down eggs")
            ]
        return "Done."

    before = await todo_items(hass)
    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    text = "note down eggs and flour on the shopping list, we'll need both"
    answer = await agent.handle(ask(text, admin(ha_bridge)))

    assert answer.status is Status.DONE, answer
    added = [item for item in await todo_items(hass) if item not in before]
    assert sorted(added) == ["eggs", "flour"], added

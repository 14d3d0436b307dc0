"""The grammar for one request: the offer, narrowed to what the user's words name and say.

Grounding rejects an action whose kind or targets the user did not name; a small model
proposes such actions often ("put butter on the shopping list" → close the blinds; "tell
Anna…" → a message to Sam). Narrowing the grammar spends that check before generation
instead of after it, so the model's one choice is among the calls that could run. It only
ever removes choices, never adds any:

* action tools whose kind no word names are left out, when some action kind is named;
  between the kinds it names, its shape decides (`narrow_kinds`: a message to everyone is
  a notification, an item said for the list is added, a time of day is the calendar's);
  warmth asked for a room without a thermostat switches on its heater;
  then reads stay only where one prepares a named action (the events before moving one),
  a condition asks for one ("close it if it is open") or the read's own kind is named;
* a question ("is the TV on?") keeps no action tool at all: grounding runs none for a
  question, and the real 1.5B proposed one for both;
* "am I free at 3?" keeps the free/busy check and leaves out the event list; a question
  about a day that names nothing of the home ("what do we have today") reads no state;
* a tool's entity enums keep only the entities the request names, when it names any of
  that tool's; an action tool with none of them gives way to one with some ("turn the
  speaker down": not the blinds);
* an action's settings keep only the values the words say (`narrow_values`): the model
  chooses among them and writes no setting nobody asked for;
* what an action writes for people (a message, a list item, an event's title, details and
  place) is made of the request's own words, never a `<` or `>`;
* a question to the user only about what the request leaves open, the reason for "no
  tool fits" one fixed phrase (`narrow_moves`);
* an array of an enum holds no more items than the enum has.

Per step, an event's uid can only be one a listing in this turn returned
(`with_listed_uids`), and a read this turn already ran is not offered again while an action
is (`without_reads_run`).

The prompt still shows the whole offer, so the cached prompt prefix is the same for every
request.
"""

from __future__ import annotations

from collections.abc import Mapping
import copy
from datetime import datetime
from typing import Any

from botpsy_agent.agent.narrow_kinds import (
    Action,
    kinds_left_out,
    says_domain,
)
from botpsy_agent.agent.narrow_moves import (
    Asked,
    asking_only,
    carried_over,
    not_asking_of,
    recipient_names,
    without_reason,
)
from botpsy_agent.agent.narrow_values import values_only
from botpsy_agent.agent.prepare import listed_events
from botpsy_agent.agent.schema_fields import ENTITY_FIELDS, GROUP_FIELDS, enum_of, properties
from botpsy_agent.home import Home
from botpsy_agent.llm.planning import WORDS_KEY, Offer
from botpsy_agent.words import (
    ASKING_TO_KNOW,
    DOMAINS,
    KINDS,
    SaidValues,
    find_spoken_times,
    grounding,
    message_body,
    reminder_of,
    said_values,
    settled_content,
)
from tool_schemas.base import Access

CONTENT_FIELDS: dict[str, tuple[str, ...]] = {
    "send_message": ("message",),
    "create_notification": ("message",),
    "add_todo_item": ("item", "description"),
    "create_event": ("summary", "description", "location"),
    "update_event": ("description", "location"),
}
"""Text an action writes for people, which only the user's words may fill. Not an update's
title (a rename keeps the event's own, which the user need not repeat) nor a list item to
tick off ("I bought everything" names none); an update's new details are new text, though
(issue 25, finding 13)."""
_EDGE_PUNCTUATION = '.,!?;:"()[]{}…“”\u2018\u2019'  # and curly single quotes
_TAG_MARKS = str.maketrans("", "", "<>")
"""Taken out of every offered word: a word holding `</tool_call><tool_call>…` would let the
grammar write a second call inside the first one's text (issue 25, finding 13)."""


def narrowed_schemas(
    offer: Offer,
    words: grounding.Request,
    home: Home,
    now: datetime | None = None,
    last_settings: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[dict[str, Any], ...] | None:
    """The schemas the grammar allows for this request; None when nothing narrows.
    `now` tells the request's times from its numbers (without it, every number counts);
    `last_settings`: the arguments this conversation last ran each tool with, which a
    request pointing back may repeat ("the same in the kids room")."""
    actions = {s["name"] for s in offer.schemas if s.get("access") == Access.CONTROL.value}
    # What a message, reminder or list item says asks for no action of its own: "tell Sam
    # to open the bedroom blinds" offers a message, not the blinds (dev message-asks-*).
    kinds = grounding.asked_kinds(words.outside_content, actions)
    named = grounding.named_entities(words.outside_content, home)
    values = said_values(words, now)
    chosen = _actions(
        offer,
        words=words,
        home=home,
        named=named,
        values=values,
        kinds=kinds,
        last_settings=last_settings,
        now=now,
    )
    left_out = _reads_left_out(words, home, named, now) | kinds_left_out(
        chosen, words, now, kinds_named=kinds is not None
    )
    offered = frozenset(chosen) - left_out
    if kinds is not None:  # the request names kinds of action: reads only where needed
        left_out |= _reads_not_needed(offer, offered, words)
    names = recipient_names(home, home.by_domain.get("notify", ()))
    repeated = {tool: _repeated(tool, words, last_settings, names) for tool in offered}
    targets = {
        tool: frozenset(
            e
            for field in ENTITY_FIELDS
            for e in enum_of(properties(chosen[tool].schema).get(field)) or ()
        )
        for tool in offered
    }
    asked = Asked(words, home, named, now, values, offered, targets, carried_over(repeated))
    narrowed = []
    for schema in offer.schemas:
        name = schema["name"]
        if name in left_out or (name in actions and name not in chosen):
            continue
        if name in chosen:
            narrowed.append(_bounded(chosen[name].schema))
        elif name == "ask_user":
            if (asking := asking_only(schema, asked)) is not None:
                narrowed.append(_bounded(asking))
        elif name == "no_tool_fits":
            if not (
                _message_settled(chosen, left_out, words, home)
                or _reminder_settled(chosen, left_out, words, now)
                or _device_asked_about(offer, left_out, words, named)
            ):
                narrowed.append(without_reason(schema))
        else:  # a read: "is the living room tv on" reads the TV, not the lamp
            narrowed.append(_bounded(_named_only(schema, named)))
    result = tuple(narrowed)
    return None if result == offer.schemas else result


def _actions(
    offer: Offer,
    *,
    words: grounding.Request,
    home: Home,
    named: frozenset[str],
    values: SaidValues,
    kinds: frozenset[str] | None,
    last_settings: Mapping[str, Mapping[str, Any]] | None,
    now: datetime | None,
) -> dict[str, Action]:
    """The action tools of the named kinds (every one, when none is named; none for a
    question), with their targets and settings narrowed; a tool with nothing left to set
    is left out."""
    if words.is_question:
        return {}
    said = request_words(words.text)
    names = recipient_names(home, home.by_domain.get("notify", ()))
    chosen: dict[str, Action] = {}
    for schema in offer.schemas:
        name = schema["name"]
        if schema.get("access") != Access.CONTROL.value or (
            kinds is not None and name not in kinds
        ):
            continue
        repeated = _repeated(name, words, last_settings, names)
        settled = (
            settled_content(name, words.text, now, words.language, names)
            if now is not None and "message" not in repeated
            else None
        )
        narrowed = values_only(
            _said_only(_named_only(schema, named), said, settled), words, values, repeated
        )
        if narrowed is not None:
            chosen[name] = Action(narrowed, _names_any(schema, named))
    heaters = grounding.heaters_asked(words, home)
    switch_on = next((s for s in offer.schemas if s["name"] == "turn_on"), None)
    if heaters and switch_on is not None and _names_any(switch_on, heaters):
        # Warmth for a room without a thermostat: its heater, as named (`words/heating.py`).
        only = _without_groups(_named_only(switch_on, heaters))
        chosen["turn_on"] = Action(only, names_target=True)
    return chosen


def _message_settled(
    chosen: Mapping[str, Action], left_out: set[str], words: grounding.Request, home: Home
) -> bool:
    """Does the request settle a message by itself: one recipient named and the words to
    send found by code? Then a tool fits, whatever the model thinks: the real 0.5B said
    "no function does this" to "tell Anna I'm home" (dev: child-messages-anna)."""
    action = chosen.get("send_message")
    if action is None or "send_message" in left_out:
        return False
    recipients = enum_of(properties(action.schema).get("recipient")) or []
    if len(recipients) != 1 or not action.names_target:
        return False
    return message_body(words.text, recipient_names(home, recipients)) is not None


def _reminder_settled(
    chosen: Mapping[str, Action],
    left_out: set[str],
    words: grounding.Request,
    now: datetime | None,
) -> bool:
    """Does the request settle a reminder by itself: "remind me <when> to <what>", one
    calendar to put it on, and a time said? Then a tool fits: the real 0.5B said no tool
    fits to "remind me tomorrow at 7 to switch on the coffee machine" (dev
    calendar-reminder-names-a-device)."""
    action = chosen.get("create_event")
    if action is None or "create_event" in left_out or now is None:
        return False
    if len(enum_of(properties(action.schema).get("calendar_id")) or []) != 1:
        return False
    spoken = find_spoken_times(words.text, now, words.language)
    return reminder_of(words.text) is not None and bool(spoken)


def _device_asked_about(
    offer: Offer, left_out: set[str], words: grounding.Request, named: frozenset[str]
) -> bool:
    """Is the request a question about devices it names, with their read on offer? Then a
    tool fits: the real 1.5B said no tool fits to "did someone leave the bedroom blinds
    shut" (dev blinds-bedroom-question)."""
    return (
        words.is_question
        and any(e.split(".", 1)[0] not in {"calendar", "todo"} for e in named)
        and "get_state" not in left_out
        and any(s["name"] == "get_state" for s in offer.schemas)
    )


def _names_any(schema: dict[str, Any], named: frozenset[str]) -> bool | None:
    specs = properties(schema)
    fields = [f for f in ENTITY_FIELDS if f in specs]
    if not fields:
        return None
    return any(e in named for f in fields for e in enum_of(specs.get(f)) or ())


def _repeated(
    tool: str,
    words: grounding.Request,
    last_settings: Mapping[str, Mapping[str, Any]] | None,
    names: tuple[str, ...],
) -> Mapping[str, Any]:
    """The settings a request pointing back repeats: this tool's last arguments."""
    if not last_settings or tool not in last_settings:
        return {}
    if not words.points_back:
        return {}
    last = dict(last_settings[tool])
    if tool == "send_message" and message_body(words.text, names) is not None:
        last.pop("message", None)  # "tell Sam hello too": the new words, not the old ones
    return last


def _bounded(schema: dict[str, Any]) -> dict[str, Any]:
    """Arrays of an enum hold at most as many items as it has: the real 0.5B wrote the one
    fan it was offered six times over, paying a decode step for each."""
    changed: dict[str, Any] = {}
    for key, spec in properties(schema).items():
        enum = enum_of(spec) if spec.get("type") == "array" else None
        if enum is not None and len(enum) < int(spec.get("maxItems", len(enum) + 1)):
            changed[key] = {**spec, "maxItems": len(enum)}
    if not changed:
        return schema
    schema = copy.deepcopy(schema)
    properties(schema).update(changed)
    return schema


CONDITIONS: dict[str, tuple[str, ...]] = {
    "en": ("if", "unless", "whether", "in case"),
    "id": ("kalau", "jika", "apabila", "bila"),
    "ko": ("으면", "라면", "다면"),
}
"""Words that make an action wait on a state ("close it if it is open"): a read comes first."""


def _reads_not_needed(offer: Offer, actions: frozenset[str], words: grounding.Request) -> set[str]:
    """The reads an action request has no use for: when it names kinds of action, only a
    read that prepares one of them (the events before moving one) or that a condition asks
    for stays; the real 0.5B answered "I've got everything on the shopping list" and "tell
    me when the piano lesson is" with the calendar and a list of lamps."""
    if not actions:
        return set()
    language = words.word_language
    prepared = {r for r, changes in grounding.PREPARED_BY.items() if actions & set(changes)}
    prepared |= {r for r in grounding.READ_KINDS if words.says_any(KINDS[language][r])}
    if words.says_any(CONDITIONS.get(language, ())):
        prepared.add("get_state")
    return {
        s["name"]
        for s in offer.schemas
        if s.get("access") == Access.READ.value and s["name"] not in prepared
    }


ENTITY_READS = frozenset({"get_state", "list_entities"})
DAY_AND_LIST_READS = frozenset({"check_free_busy", "list_events", "list_todo_items"})


def _reads_left_out(
    words: grounding.Request, home: Home, named: frozenset[str], now: datetime | None
) -> set[str]:
    """ "Am I free at 3?" is the free/busy check's, not the event list's; a question about a
    day that names nothing of the home is the calendar's or a list's, not a state's, and
    if it asks whether the time is free, not the shopping list's either (the real 1.5B read
    the list for "am I free tomorrow at 3 pm": dev calendar-conflict, calendar-free)."""
    free_busy = grounding.asks_free_busy(words)
    left_out = {"list_events"} if free_busy else set()
    if now is not None and grounding.asks_only_about_a_time(words, home, now, named):
        left_out |= ENTITY_READS | ({"list_todo_items"} if free_busy else set())
    if _asks_of_devices_only(words, named, now):
        left_out |= DAY_AND_LIST_READS
    if _asks_of_a_list_only(words, grounding.named_entities(words, home), now):
        left_out |= DAY_AND_LIST_READS - {"list_todo_items"}
    return left_out


def _asks_of_a_list_only(
    words: grounding.Request, named: frozenset[str], now: datetime | None
) -> bool:
    """A question about a list it names, with no day, time or calendar in it, is no question
    for the calendar: "remind me what we need to buy from the shopping list" asks to be
    told, and the real 0.5B read the day's events (reworded todo-list). `named` is read from
    the whole request: "… to buy from the shopping list" is a reminder's span to the content
    reading, and named nothing without it (found in `make demo`)."""
    if not words.is_question or not any(e.startswith("todo.") for e in named):
        return False
    _, knowing, _ = ASKING_TO_KNOW.get(words.base_language, ((), (), ()))
    calendar = [
        w for w in DOMAINS.get(words.word_language, {}).get("calendar", ()) if w not in knowing
    ]
    if words.says_any(calendar):
        return False
    return now is None or not find_spoken_times(words.text, now, words.language)


def _asks_of_devices_only(
    words: grounding.Request, named: frozenset[str], now: datetime | None
) -> bool:
    """A question about devices it names, with no day, time, calendar or list in it, is no
    question for the calendar or a list: "could you check whether the fairy lights are lit"
    was answered "You're busy then" (dev inject-name-fairy-lights, the 0.5B)."""
    if not words.is_question or not named:
        return False
    if any(e.split(".", 1)[0] in {"calendar", "todo"} for e in named):
        return False
    if says_domain(words, "calendar", "todo"):
        return False
    return now is None or not find_spoken_times(words.text, now, words.language)


def _without_groups(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema targeting entities only: no area, floor, label or kind of device."""
    schema = copy.deepcopy(schema)
    for field in GROUP_FIELDS:
        schema["parameters"]["properties"].pop(field, None)
    return schema


def _named_only(schema: dict[str, Any], named: frozenset[str]) -> dict[str, Any]:
    properties = schema["parameters"]["properties"]
    keep: dict[str, list[str]] = {}
    for field in ENTITY_FIELDS:
        enum = enum_of(properties.get(field))
        chosen = [e for e in enum or () if e in named]
        if chosen and chosen != enum:
            keep[field] = chosen
    if not keep:
        return schema
    schema = copy.deepcopy(schema)
    for field, chosen in keep.items():
        spec = schema["parameters"]["properties"][field]
        (spec["items"] if spec.get("type") == "array" else spec)["enum"] = chosen
    return schema


def request_words(text: str) -> tuple[str, ...]:
    """The request's words as said, and each with a capital first letter (a title)."""
    words = [w.translate(_TAG_MARKS).strip(_EDGE_PUNCTUATION) for w in text.split()]
    forms = [form for w in words if w for form in (w, w[:1].upper() + w[1:])]
    return tuple(dict.fromkeys(forms))


def _said_only(
    schema: dict[str, Any], said: tuple[str, ...], settled: tuple[str, str] | None
) -> dict[str, Any]:
    """Content fields made of the request's words; a field whose text the app would put in
    place of the model's anyway (`settled_content`) offers that text alone, so it is
    forced, not sampled word by word (a message's body cost the 0.5B about 40 tokens), and
    the optional ones beside it are left out: the rest of such a request says who, which
    list or calendar and when, not more content (dev calendar-reminder-names-a-device: the
    0.5B copied the whole request into the event's description, 44 tokens, 2 s)."""
    fields = [f for f in CONTENT_FIELDS.get(schema["name"], ()) if f in properties(schema)]
    if not fields or not said:
        return schema
    schema = copy.deepcopy(schema)
    required = set(schema.get("parameters", {}).get("required", ()))
    for field in fields:
        spec = properties(schema)[field]
        if settled is not None and settled[0] == field and spec.get("type") == "string":
            spec["enum"] = [settled[1]]
        elif settled is not None and field not in required:
            del properties(schema)[field]
        else:
            spec[WORDS_KEY] = list(said)
    return schema


UID_TOOLS = ("update_event", "delete_event")


def with_listed_uids(
    schemas: tuple[dict[str, Any], ...], uids: frozenset[str]
) -> tuple[dict[str, Any], ...]:
    """The step's schemas with an event's uid limited to those listed this turn; the tools
    that need one are left out until a listing has returned any."""
    out: list[dict[str, Any]] = []
    for schema in schemas:
        if schema["name"] not in UID_TOOLS or "uid" not in properties(schema):
            out.append(schema)
        elif uids:
            limited = copy.deepcopy(schema)
            properties(limited)["uid"]["enum"] = sorted(uids)
            out.append(limited)
    return tuple(out)


def without_reads_run(
    schemas: tuple[dict[str, Any], ...], ran: frozenset[str]
) -> tuple[dict[str, Any], ...]:
    """A later step's schemas without the reads this turn already ran, while an action is
    on offer: the real 0.5B listed the calendar again and again for "cancel it" instead of
    deleting the event it had just found."""
    if not ran or not any(s.get("access") == Access.CONTROL.value for s in schemas):
        return schemas
    return tuple(s for s in schemas if s["name"] not in ran)


def without_targets_done(
    schemas: tuple[dict[str, Any], ...], done: Mapping[str, frozenset[str]]
) -> tuple[dict[str, Any], ...]:
    """A later step's actions without the targets this turn already acted on with them
    (tool -> entity ids); an action with none left is not offered. "close the blinds and
    then switch on the reading lamp": the real 0.5B closed the blinds again and again."""
    if not done:
        return schemas
    out = []
    for schema in schemas:
        if schema["name"] == "ask_user":
            if (asking := not_asking_of(schema, frozenset().union(*done.values()))) is not None:
                out.append(_bounded(asking))
            continue
        acted = done.get(schema["name"])
        spec = properties(schema).get("entity_id")
        enum = enum_of(spec)
        if not acted or enum is None:
            out.append(schema)
            continue
        left = [e for e in enum if e not in acted]
        if left:
            limited = copy.deepcopy(schema)
            properties(limited)["entity_id"]["items"]["enum"] = left
            out.append(_bounded(limited))
    return tuple(out)


def listed_uids(feedback: Any) -> frozenset[str]:
    """The uids of the events in a step's result (a listing's `events`)."""
    return frozenset(e.uid for e in listed_events(feedback))

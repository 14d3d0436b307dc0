"""What the app reads itself before the model's first step, and how it narrows the step.

Moving or deleting an event needs its uid, which only a listing gives and no model can
guess. The real 0.5B, offered the listing as a first step, gave up instead ("move the
dentist to 5 pm" → "no function does this"; "cancel it" → the calendar listed four times).
So when a request names such a change, the app lists the coming month's events itself (a
read, authorised like any call, never said), and the change is offered only for the events
the request names: by a word of their title ("the dentist"), or, for "it", those the
conversation's last listing showed. For one such event the change keeps its title and its
length, and "an hour later" is that event's own start moved by the hour.

The model is shown those events briefly: a uid by its first characters (a calendar's uid
was 39 tokens of hex, copied again into the call) and times to the minute (30 tokens each
with seconds and offset). The app puts the whole uid back before the call is checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
import copy
from dataclasses import dataclass
from datetime import datetime, timedelta
import re
from typing import Any

from botpsy_agent.agent.schema_fields import properties
from botpsy_agent.home import Home
from botpsy_agent.llm.planning import RawCall
from botpsy_agent.words import ALL_DAY, SaidValues, find_spoken_times, grounding
from tool_schemas.base import Access, MappingContext, Tool
from tool_schemas.calendar import ListEvents, UpdateEvent

UID_TOOLS = ("update_event", "delete_event")
LISTING_DAYS = 31
HANDLE_CHARS = 8
"""How much of a uid the model is shown when no other listed uid starts the same way."""
_TITLE_WORD = re.compile(r"[^\W\d_]{3,}")
_NOT_TITLE_WORDS = frozenset(
    {"the", "and", "with", "for", "appointment", "event", "meeting", "lesson", "call"}
)
LATER: Mapping[str, tuple[str, ...]] = {
    "en": ("later", "back", "push", "postpone", "delay"),
    "ko": ("늦", "미뤄", "뒤로"),
    "id": ("lebih lambat", "mundur", "tunda", "undur"),
}
EARLIER: Mapping[str, tuple[str, ...]] = {
    "en": ("earlier", "forward", "sooner"),
    "ko": ("일찍", "앞당"),
    "id": ("lebih awal", "majukan", "maju"),
}
"""Which way "by an hour" moves an event."""
DETAILS: Mapping[str, tuple[str, ...]] = {
    "en": ("description", "details", "note", "location", "place", "address", "venue"),
    "ko": ("설명", "메모", "장소", "위치"),
    "id": ("deskripsi", "keterangan", "catatan", "lokasi", "tempat"),
}
"""Words that ask for a change of an event's day-long shape, or of its details."""


def needs_listing(schemas: Sequence[Mapping[str, Any]], words: grounding.Request) -> bool:
    """Does this step offer a change to an event the request asks for, and the listing it
    needs? Words that name no such change ("book me a flight to Paris") are offered every
    tool, but a month of events read for them was a read nobody asked for."""
    names = {s["name"] for s in schemas}
    if not (names & set(UID_TOOLS)) or "list_events" not in names:
        return False
    return grounding.asked_kinds(words, UID_TOOLS) is not None


def listing_call(now: datetime) -> Tool:
    """The coming month's events, from the start of today."""
    today = now.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)
    return ListEvents(start=today, hours=24 * LISTING_DAYS)


@dataclass(frozen=True)
class Event:
    uid: str
    summary: str
    start: str
    end: str
    handle: str = ""
    """What the model is shown and writes for the uid (`with_whole_uids` puts it back)."""

    @property
    def shown_uid(self) -> str:
        return self.handle or self.uid

    def shown(self) -> dict[str, str]:
        return {
            "summary": self.summary,
            "start": _to_the_minute(self.start),
            "end": _to_the_minute(self.end),
            "uid": self.shown_uid,
        }

    @property
    def minutes(self) -> int | None:
        try:
            length = datetime.fromisoformat(self.end) - datetime.fromisoformat(self.start)
        except ValueError:
            return None
        return int(length.total_seconds() // 60) if "T" in self.start else None


def listed_events(feedback: Any) -> list[Event]:
    """The events (with uids) a step's result holds, each with its handle among them."""
    found = {e["uid"]: e for e in listed_under(feedback, "events") if _has_uid(e)}
    return [_event(raw, _handle(uid, found)) for uid, raw in found.items()]


def with_whole_uids(calls: tuple[RawCall, ...], events: Sequence[Event]) -> tuple[RawCall, ...]:
    """The model's calls with each event handle it wrote (`Event.handle`) made the uid it
    stands for; a uid that is no handle of `events` is left for the checks to judge."""
    uids = {e.handle: e.uid for e in events if e.handle}
    return tuple(
        RawCall(c.name, {**c.arguments, "uid": uids[c.arguments["uid"]]})
        if c.name in UID_TOOLS and c.arguments.get("uid") in uids
        else c
        for c in calls
    )


def _handle(uid: str, uids: Iterable[str]) -> str:
    """The uid's first `HANDLE_CHARS` characters, when no other listed uid starts with
    them; else the whole uid."""
    start = uid[:HANDLE_CHARS]
    if start == uid or any(other != uid and other.startswith(start) for other in uids):
        return ""
    return start


def _to_the_minute(when: str) -> str:
    """An event time as the request's clock line says it: "2026-12-07T16:00", the zone's
    offset and the seconds left out (HA answers in the home's zone); a day stays a day."""
    try:
        moment = datetime.fromisoformat(when)
    except ValueError:
        return when
    if "T" not in when:
        return when
    return moment.replace(tzinfo=None).isoformat(timespec="minutes")


def listed_under(feedback: Any, key: str) -> list[Any]:
    """Every entry of every list a step's result holds under `key`, however deep (HA's
    service responses nest them per entity)."""
    found: list[Any] = []
    stack = [feedback]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            entries = item.get(key)
            if isinstance(entries, list):
                found.extend(entries)
            stack.extend(v for k, v in item.items() if k != key)
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _has_uid(event: Any) -> bool:
    return isinstance(event, dict) and isinstance(event.get("uid"), str)


def _event(raw: dict[str, Any], handle: str) -> Event:
    return Event(
        raw["uid"],
        str(raw.get("summary", "")),
        str(raw.get("start", "")),
        str(raw.get("end", "")),
        handle,
    )


def changes_nothing(call: UpdateEvent, events: Sequence[Event], context: MappingContext) -> bool:
    """Whether the update leaves the listed event as it is: its title, start and end
    (reworded calendar-delete-declined~r6: for "please wipe the dentist appointment off my
    calendar" the 0.5B updated it with its own values, and the answer said "Updated")."""
    event = next((e for e in events if e.uid == call.uid), None)
    if event is None or call.description is not None or call.location is not None:
        return False
    if call.summary.strip().casefold() != event.summary.strip().casefold():
        return False
    times = call.times(context)
    start = times.get("start_date_time") or times["start_date"]
    end = times.get("end_date_time") or times["end_date"]
    return _same_moment(start, event.start) and _same_moment(end, event.end)


def _same_moment(one: str, other: str) -> bool:
    try:
        return datetime.fromisoformat(one) == datetime.fromisoformat(other)
    except ValueError:
        return one == other


def named_events(
    events: Sequence[Event],
    words: grounding.Request,
    last_listed: frozenset[str],
    calendars: frozenset[str],
) -> list[Event]:
    """The events the request names: by a word of their title that is no word of a
    calendar's name (`calendar_words`); else, when it points back ("cancel it"), those the
    conversation last listed; else none."""
    by_title = [e for e in events if _title_said(e, words, calendars)]
    if by_title:
        return by_title
    if last_listed and words.points_back:
        return [e for e in events if e.uid in last_listed]
    return []


def shown_of_listing(
    feedback: dict[str, Any],
    words: grounding.Request,
    last_listed: frozenset[str],
    calendars: frozenset[str],
) -> dict[str, Any] | None:
    """What the model is shown of the app's own listing: the events the request names, the
    only ones a change is offered for; nothing when it names none (a new event's request,
    where a month of other events was hundreds of tokens to read and no use). A listing
    without events (an empty calendar, a list's items) is shown as it is."""
    events = listed_events(feedback)
    if not events:
        return feedback
    named = named_events(events, words, last_listed, calendars)
    if not named:
        return None
    return {"result": {"events": [e.shown() for e in named]}}


def asked_about(
    events: Sequence[Event], words: grounding.Request, calendars: frozenset[str]
) -> frozenset[str]:
    """The listed events a later "it" points at: those the request named by title, else all
    listed. "when is the piano lesson" lists the week; "move it to 6 pm" then moves the piano
    lesson, not one of three (the real 1.5B moved it to today, 6 hours long; dev
    followup-piano-move)."""
    by_title = [e.uid for e in events if _title_said(e, words, calendars)]
    return frozenset(by_title or (e.uid for e in events))


def calendar_words(home: Home) -> frozenset[str]:
    """The words of the home's calendars' names. "Put the plumber visit on the family
    calendar" names the Family calendar, not the "Family dinner" on it (the demo showed the
    model the dinner before a new event)."""
    return frozenset(
        word.casefold()
        for entity_id in home.by_domain.get("calendar", ())
        for name in (home.entities[entity_id].name, *home.entities[entity_id].aliases)
        for word in _TITLE_WORD.findall(name)
    )


def _title_said(event: Event, words: grounding.Request, calendars: frozenset[str]) -> bool:
    title = {w.casefold() for w in _TITLE_WORD.findall(event.summary)} - _NOT_TITLE_WORDS
    return any(words.says(w) for w in title - calendars)


def for_events(
    schemas: tuple[dict[str, Any], ...],
    events: Sequence[Event],
    words: grounding.Request,
    values: SaidValues,
) -> tuple[dict[str, Any], ...]:
    """The step's changes to events, limited to `events` (those the request names); for
    one event, an update keeps its title and length and may move it by what was said.
    With the event found and its change on offer, "no tool fits" is not: the real 0.5B
    said it for "move the dentist to 5 pm" with the dentist listed before it."""
    if not events:
        return schemas
    offers_change = any(s["name"] in UID_TOOLS for s in schemas)
    moved = len(events) == 1 and _new_start(events[0], words, values) is not None
    moving = moved and any(s["name"] == "update_event" for s in schemas)
    deleting = (
        len(events) == 1
        and not moved
        and any(s["name"] == "delete_event" for s in schemas)
        and grounding.asked_kinds(words, ("delete_event",)) is not None
    )
    out = []
    for schema in schemas:
        if schema["name"] == "no_tool_fits" and offers_change:
            continue  # the change asked for, of the event named, is on offer: it fits
        acts = schema.get("access") == Access.CONTROL.value
        if moving and acts and schema["name"] not in UID_TOOLS:
            # The event named and its new time known: moving it is the change asked for.
            # The real 0.5B chose the TV's "back" for "push the piano lesson back by an
            # hour" (dev calendar-move-later).
            continue
        if schema["name"] == "ask_user" and (moved or deleting):
            # "push it back an hour": its new time is known; "take the family dinner off
            # the calendar": nothing is left to ask (the 0.5B asked "For when?").
            continue
        if schema["name"] not in UID_TOOLS or "uid" not in properties(schema):
            out.append(schema)
            continue
        limited = copy.deepcopy(schema)
        properties(limited)["uid"]["enum"] = [e.shown_uid for e in events]
        if limited["name"] == "update_event" and len(events) == 1:
            _keep_title_and_length(limited, events[0], words, values)
        out.append(limited)
    return tuple(out)


def _keep_title_and_length(
    schema: dict[str, Any], event: Event, words: grounding.Request, values: SaidValues
) -> None:
    specs = properties(schema)
    if "summary" in specs and event.summary:
        specs["summary"] = {**specs["summary"], "enum": [event.summary]}
        specs["summary"].pop("x-words", None)
    length = event.minutes
    if length is not None and "minutes" in specs:
        specs["minutes"] = {**specs["minutes"], "enum": [length]}
    moved = _new_start(event, words, values)
    if moved is not None and "start" in specs:
        specs["start"] = {**specs["start"], "enum": [moved]}
        specs["start"].pop("pattern", None)
    _keep_shape(schema, event, words)


def _keep_shape(schema: dict[str, Any], event: Event, words: grounding.Request) -> None:
    """A timed event stays timed unless the request says "all day", and keeps its details
    unless it speaks of them: "move it an hour later" became an all-day event with "An hour
    later" as its description and location (the real 1.5B; dev: calendar-followup)."""
    shapes = schema.get("x-shapes")
    if not isinstance(shapes, list):
        return
    language = words.word_language
    all_day = "T" not in event.start or words.says_any(ALL_DAY.get(language, ()))
    details = words.says_any(DETAILS.get(language, ()))
    kept = []
    for shape in shapes:
        fields = [f.strip() for f in str(shape).split(",")]
        if not all_day and "start_date" in fields:
            continue
        if not details:
            fields = [f for f in fields if f not in {"description?", "location?"}]
        kept.append(", ".join(fields))
    if kept:
        schema["x-shapes"] = kept


def _new_start(event: Event, words: grounding.Request, values: SaidValues) -> str | None:
    """Where the words put one timed event: moved by a length, or to a time of its own day."""
    return _moved_start(event, words, values) or _at_time_said(event, words)


def _at_time_said(event: Event, words: grounding.Request) -> str | None:
    """ "move it to 6 pm", no day said: the event's own day at that time. The real 1.5B
    moved the piano lesson, two days ahead, to today at 18:00 (dev: followup-piano-move)."""
    if "T" not in event.start:
        return None
    start = datetime.fromisoformat(event.start)
    spoken = find_spoken_times(words.text, start, words.word_language)
    if len(spoken) != 1 or spoken[0].days or spoken[0].moment or len(spoken[0].times) != 1:
        return None
    return datetime.combine(start.date(), spoken[0].times[0]).isoformat(timespec="minutes")


def _moved_start(event: Event, words: grounding.Request, values: SaidValues) -> str | None:
    """ "push it back an hour": the event's own start moved by the length said."""
    if not values.minutes or values.clock or "T" not in event.start:
        return None
    language = words.word_language
    way = 1 if words.says_any(LATER.get(language, ())) else 0
    way -= 1 if words.says_any(EARLIER.get(language, ())) else 0
    if way == 0:
        return None
    start = datetime.fromisoformat(event.start)
    moved = start + way * timedelta(minutes=values.minutes[0])
    return moved.replace(tzinfo=None).isoformat(timespec="minutes")

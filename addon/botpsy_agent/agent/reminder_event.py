"""A reminder for later that the model posted as a notification for now: the calendar entry
the words ask for, built by the code.

"can I get a reminder to turn on the coffee machine, tomorrow morning at seven?" asks for
something at seven tomorrow; a notification in HA's sidebar now is not that, and grounding
turns it away (`grounding.reminded_later`). Both real models then ended the turn with "I
couldn't work out how to do that." (reworded calendar-reminder-names-a-device~r9). Every part
of the entry is in the words: what (`event_title`), when (one clock time, with at most one
day), and where (the calendar the request names, or the only one the user may add to). The
model chose to remind; the code writes the entry, and it goes through the same resolution,
permission, grounding and time checks as any call. Where any part is not plain, nothing is
built and the notification is turned away as before.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, time, timedelta

from botpsy_agent.home import EntityFilter, Home
from botpsy_agent.words import event_title, find_spoken_times, grounding
from tool_schemas.base import Tool
from tool_schemas.calendar import CreateEvent
from tool_schemas.catalog import ToolCallError, parse_tool_call
from tool_schemas.messaging import CreateNotification

REMINDER_MINUTES = 15
"""How long a reminder's entry lasts: long enough to be seen on the calendar's day view."""


def reminder_as_event(
    call: Tool,
    words: grounding.Request,
    home: Home,
    now: datetime,
    usable: Callable[[Tool], EntityFilter],
) -> CreateEvent | None:
    """The calendar entry for a reminder said with a time that the model made a
    notification; None when `call` is anything else or a part of the entry is not plain.
    `usable`: the principal's scope for a tool (`policy.usable_filter`): the entry goes on
    the one calendar the request names, or the only one the principal may add to."""
    if not isinstance(call, CreateNotification) or not grounding.reminded_later(words):
        return None
    text, language = words.text, words.language
    title = event_title(text, now, language)
    start = the_time_said(text, now, language)
    calendars = sorted(home.by_domain.get("calendar", ()))
    if title is None or start is None or not calendars:
        return None
    arguments = {
        "calendar_id": calendars[0],
        "summary": title,
        "start": start.strftime("%Y-%m-%dT%H:%M:00"),
        "minutes": REMINDER_MINUTES,
    }
    try:
        event = parse_tool_call("create_event", arguments)
    except ToolCallError:
        return None  # a title too long for an event, say: the notification stays refused
    assert isinstance(event, CreateEvent)
    may_add = usable(event)
    calendar = _the_calendar(words, home, [c for c in calendars if may_add(home.entities[c])])
    return None if calendar is None else event.model_copy(update={"calendar_id": calendar})


def the_time_said(text: str, now: datetime, language: str) -> datetime | None:
    """The one moment the request fixes: an exact moment ("in 20 minutes"), or one clock
    time with at most one day ("tomorrow morning at seven"; "at 9", the next 9 o'clock).
    None for a day alone, several times, or a time already past on the day said."""
    said = [s for s in find_spoken_times(text, now, language) if not s.invalid]
    moments = [s.moment for s in said if s.moment is not None]
    days = [s.days[0] for s in said if s.days]
    clocks = [s.times for s in said if s.times]
    if moments:
        return moments[0] if len(said) == 1 and moments[0] > now else None
    if len(clocks) != 1 or len(days) > 1:
        return None
    if days:  # the likeliest reading of the clock on the day said
        start = datetime.combine(days[0], clocks[0][0], tzinfo=now.tzinfo)
        return start if start > now else None
    # no day: the next time the clock reads so ("at 7" said at half past eight in the
    # evening is seven tomorrow morning, the nearer of its readings)
    return min(_next(clock, now) for clock in clocks[0])


def _next(clock: time, now: datetime) -> datetime:
    today = datetime.combine(now.date(), clock, tzinfo=now.tzinfo)
    return today if today > now else today + timedelta(days=1)


def _the_calendar(words: grounding.Request, home: Home, calendars: list[str]) -> str | None:
    named = sorted(grounding.named_entities(words, home, by_a_word=False).intersection(calendars))
    if len(named) == 1:
        return named[0]
    return calendars[0] if len(calendars) == 1 and not named else None

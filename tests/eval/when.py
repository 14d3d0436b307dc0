"""Times in the cases ("tomorrow 15:00", "saturday", "in 3 days 9:30"), resolved against the
evaluation's clock in the home's time zone.

A case says when an event must be in words a person checks at a glance; the eval turns them
into a date (all-day) or an aware datetime at the moment the case runs, so a case means the
same on any day. A weekday is the next one after today (1 to 7 days ahead).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
import re

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_PHRASE = re.compile(
    r"^(?P<day>today|tomorrow|in (?P<n>\d{1,3}) days?|" + "|".join(WEEKDAYS) + r")"
    r"(?: (?P<hour>\d{1,2}):(?P<minute>\d{2}))?$"
)


class WhenError(ValueError):
    """A time phrase the eval does not know."""


def day_of(phrase: str, today: date) -> date:
    """The day a phrase names (its time, if any, ignored)."""
    return _parse(phrase, today)[0]


def resolve(phrase: str, now: datetime) -> date | datetime:
    """A date for a phrase without a time, else an aware datetime in `now`'s time zone."""
    day, clock = _parse(phrase, now.date())
    if clock is None:
        return day
    return datetime.combine(day, clock, tzinfo=now.tzinfo)


def has_time(phrase: str) -> bool:
    return _parse(phrase, date(2000, 1, 1))[1] is not None


def _parse(phrase: str, today: date) -> tuple[date, time | None]:
    match = _PHRASE.match(phrase.strip().lower())
    if match is None:
        raise WhenError(
            f"time {phrase!r}: use today, tomorrow, 'in N days' or a weekday, "
            "optionally followed by HH:MM"
        )
    word = match["day"]
    if word == "today":
        day = today
    elif word == "tomorrow":
        day = today + timedelta(days=1)
    elif match["n"] is not None:
        day = today + timedelta(days=int(match["n"]))
    else:
        ahead = (WEEKDAYS.index(word) - today.weekday()) % 7 or 7
        day = today + timedelta(days=ahead)
    if match["hour"] is None:
        return day, None
    hour, minute = int(match["hour"]), int(match["minute"])
    if hour > 23 or minute > 59:
        raise WhenError(f"time {phrase!r}: {hour}:{minute:02d} is not a time of day")
    return day, time(hour, minute)

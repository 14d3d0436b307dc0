"""Which of the action kinds a request's words name it means, when they name several.

The words of one request often name more than one kind of action: "put coffee beans on the
list, we haven't got any left" names adding and ticking off, "set a reminder for 7 to turn
on the coffee machine" a calendar entry and a notification, "add a vet visit at 9:30" a
calendar entry and a list item. The narrowing (`agent/narrowing.py`) offers every kind
named; the rules here leave out those the request's shape rules out, each learnt from a
dev miss of a real model (cited). They only remove choices.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from botpsy_agent.words import (
    DOMAINS,
    EVERYONE,
    find_spoken_times,
    grounding,
    list_item,
    reminder_of,
)

TODO_CHANGES = frozenset({"complete_todo_item", "remove_todo_item"})


@dataclass(frozen=True)
class Action:
    """An action tool on offer for this request, narrowed."""

    schema: dict[str, Any]
    names_target: bool | None
    """Some of its entities are named; None for a tool that takes no entity (a
    notification to everyone)."""


def kinds_left_out(
    chosen: Mapping[str, Action],
    words: grounding.Request,
    now: datetime | None,
    *,
    kinds_named: bool,
) -> set[str]:
    """The action tools among `chosen` that the request's shape rules out; those between
    kinds it names, only when it names some (`kinds_named`)."""
    left_out = _less_fitting(chosen) | _to_everyone(chosen, words)
    if kinds_named:
        left_out |= (
            _no_item_to_add(chosen, words)
            | _an_item_to_add(chosen, words)
            | _a_time_is_no_item(chosen, words, now)
            | _a_reminder_at_a_time(chosen, words, now)
        )
    return left_out


def says_domain(words: grounding.Request, *domains: str) -> bool:
    """Does the request say a word of one of these domains ("list", "calendar")?"""
    table = DOMAINS.get(words.word_language, {})
    return words.says_any(w for domain in domains for w in table.get(domain, ()))


def time_of_day_said(words: grounding.Request, now: datetime | None) -> bool:
    """Does the request say a time of day or a moment ("at 9:30", "in 20 minutes")?"""
    if now is None:
        return False
    return any(s.times or s.moment for s in find_spoken_times(words.text, now, words.language))


def _less_fitting(chosen: Mapping[str, Action]) -> set[str]:
    """Action tools a better-fitting one makes pointless: one with none of the named
    targets, when another has some ("turn the speaker down": not the blinds, whose kind
    "down" also names)."""
    if not any(a.names_target for a in chosen.values()):
        return set()
    return {name for name, a in chosen.items() if a.names_target is False}


def _to_everyone(chosen: Mapping[str, Action], words: grounding.Request) -> set[str]:
    """A message to everyone is a notification: "remind everyone with a notification that
    the bins go out tonight" names no one, and the real 0.5B wrote to Anna's phone, which
    the app then asked about (dev notify-bins)."""
    message = chosen.get("send_message")
    if (
        "create_notification" in chosen
        and message is not None
        and not message.names_target
        and words.says_any(EVERYONE.get(words.word_language, ()))
    ):
        return {"send_message"}
    return set()


def _no_item_to_add(chosen: Mapping[str, Action], words: grounding.Request) -> set[str]:
    """Adding to a list gives way to ticking off when the request names both and says no
    item to add: "I bought everything on the shopping list" named the list, an adding
    word, and the 0.5B added "List the shopping list" (dev: recover-list-then-complete)."""
    if {"add_todo_item", "complete_todo_item"} <= set(chosen) and list_item(words.text) is None:
        return {"add_todo_item"}
    return set()


def _an_item_to_add(chosen: Mapping[str, Action], words: grounding.Request) -> set[str]:
    """An item said to go on a list is added, not ticked off: "put coffee beans on the
    list, we haven't got any left" ticked off the bread (dev, reworded todo-add-coffee)."""
    changes = TODO_CHANGES & set(chosen)
    if "add_todo_item" in chosen and changes and list_item(words.text) is not None:
        return set(changes)
    return set()


def _a_reminder_at_a_time(
    chosen: Mapping[str, Action], words: grounding.Request, now: datetime | None
) -> set[str]:
    """A reminder for a time said goes on the calendar; a notification is posted now: "set
    a reminder for 7 tomorrow morning to turn on the coffee machine" was posted at once
    (dev, reworded calendar-reminder-names-a-device)."""
    if not {"create_event", "create_notification"} <= set(chosen):
        return set()
    if reminder_of(words.text) is None or not time_of_day_said(words, now):
        return set()
    return {"create_notification"}


def _a_time_is_no_item(
    chosen: Mapping[str, Action], words: grounding.Request, now: datetime | None
) -> set[str]:
    """A time of day said with no list named is an entry for the calendar, not for a list:
    "add a 30 minute vet visit in three days' time at 9:30 am" and "I've got a haircut
    tomorrow at 11am, add it please" went on the shopping list or ticked off its bread
    (dev, reworded calendar-create-*: both real models)."""
    todo = ({"add_todo_item"} | TODO_CHANGES) & set(chosen)
    if "create_event" not in chosen or not todo or says_domain(words, "todo"):
        return set()
    return todo if time_of_day_said(words, now) else set()

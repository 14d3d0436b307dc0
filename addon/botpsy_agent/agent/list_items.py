"""The app's own reading of a list before an item of it is ticked off or removed, and the
items the request names among those listed.

"I already got the milk, tick it off": the real 0.5B ticked off "reading_lamp" (dev
todo-tick-milk), and "I bought everything on the shopping list" ended with the list read
and nothing ticked (dev recover-list-then-complete, both real models). As with an event
(`agent/prepare.py`), the app reads the list first and offers only the items the request
names, or every item when it says all of them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import copy
from dataclasses import replace
import re
from typing import Any

from botpsy_agent.agent.prepare import listed_under
from botpsy_agent.agent.schema_fields import enum_of, properties
from botpsy_agent.llm.planning import WORDS_KEY, RawCall
from botpsy_agent.words import grounding
from tool_schemas.base import Tool
from tool_schemas.messaging import ListTodoItems

ITEM_TOOLS = ("complete_todo_item", "remove_todo_item")
WHOLE_LIST: Mapping[str, tuple[str, ...]] = {
    "en": (
        *("everything", "all of it", "all of them", "all the items", "the whole list"),
        # "I've bought all the stuff on the shopping list" (dev, reworded
        # recover-list-then-complete: the 0.5B ticked off one item)
        *("all the stuff", "all the things", "every item"),
        *("every single thing", "every single item"),  # reworded ~r6 of the same
    ),
    "ko": ("전부", "모두"),
    "id": ("semua",),
}
"""Words that name every item on the list."""
READING_VERB = re.compile(r"\bcheck\b(?!\s+(?:it\s+|them\s+)?off\b)", re.IGNORECASE)
""""Check" that reads ("check tomorrow's calendar", "check what's playing"), not "check
(it) off": a tick-off's word for grounding, but no reason for the app to read a list."""


def list_to_read(schemas: Sequence[dict[str, Any]], words: grounding.Request) -> Tool | None:
    """The read of the one list a tick-off or removal the request names may change, when
    both it and the list's read are on offer; None otherwise (no such change asked for, or
    a choice of lists)."""
    by_name = {s["name"]: s for s in schemas}
    if "list_todo_items" not in by_name or not _asks_item_change(words):
        return None
    lists = {
        list_id
        for name in ITEM_TOOLS
        if name in by_name
        for list_id in enum_of(properties(by_name[name]).get("list_id")) or ()
    }
    return ListTodoItems(list_id=lists.pop()) if len(lists) == 1 else None


def _asks_item_change(words: grounding.Request) -> bool:
    if words.base_language == "en":
        words = replace(words, text=READING_VERB.sub(" ", words.text))
    return bool(grounding.asked_kinds(words, ITEM_TOOLS))


def listed_items(feedback: Any) -> list[str]:
    """The open items a step's result holds, as listed."""
    items = listed_under(feedback, "items")
    return list(
        dict.fromkeys(str(i["summary"]) for i in items if isinstance(i, dict) and "summary" in i)
    )


def for_items(
    schemas: tuple[dict[str, Any], ...], items: Sequence[str], words: grounding.Request
) -> tuple[dict[str, Any], ...]:
    """A tick-off's or removal's item limited to the listed items the request names by a
    word of theirs, or to every listed item when it names them all; as offered otherwise."""
    named = [item for item in items if _item_said(item, words)]
    if not named and words.says_any(WHOLE_LIST.get(words.word_language, ())):
        named = list(items)
    if not named:
        return schemas
    changes = any(s["name"] in ITEM_TOOLS for s in schemas)
    return tuple(
        _limited(s, named) if s["name"] in ITEM_TOOLS and "item" in properties(s) else s
        for s in schemas
        # The change asked for, of the items named, is on offer: nothing to ask and no
        # "no tool fits" (the real 0.5B asked "Which do you mean: Shopping list?", the only
        # list, and said no tool fits for "I bought everything on the shopping list").
        if not (changes and s["name"] in {"ask_user", "no_tool_fits"})
    )


def _limited(schema: dict[str, Any], items: list[str]) -> dict[str, Any]:
    schema = copy.deepcopy(schema)
    spec = properties(schema)["item"]
    spec.pop(WORDS_KEY, None)
    spec["enum"] = items
    return schema


def every_item(
    calls: tuple[RawCall, ...], items: Sequence[str], words: grounding.Request
) -> tuple[RawCall, ...]:
    """ "I bought everything": when the request names every item and the model ticked off
    (or removed) some of the listed ones, the others too, the same way, each call checked
    like the model's own."""
    if not items or not words.says_any(WHOLE_LIST.get(words.word_language, ())):
        return calls
    changes = [c for c in calls if c.name in ITEM_TOOLS]
    ways = {(c.name, c.arguments.get("list_id")) for c in changes}
    if len(ways) != 1:
        return calls
    name, list_id = ways.pop()
    done = {str(c.arguments.get("item")) for c in changes}
    more = [RawCall(name, {"list_id": list_id, "item": i}) for i in items if i not in done]
    return (*calls, *more)


def _item_said(item: str, words: grounding.Request) -> bool:
    return any(words.says(word) for word in item.casefold().split() if len(word) > 2)

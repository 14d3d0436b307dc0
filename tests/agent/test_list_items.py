"""The app's own read of a list before a tick-off (agent/list_items.py): when it reads, and
which items it then offers."""

from __future__ import annotations

from typing import Any

from botpsy_agent.agent.list_items import every_item, for_items, list_to_read
from botpsy_agent.llm.planning import RawCall
from botpsy_agent.words.grounding import Request
from tool_schemas.messaging import ListTodoItems

TICK: dict[str, Any] = {
    "name": "complete_todo_item",
    "access": "control",
    "parameters": {
        "properties": {
            "list_id": {"type": "string", "enum": ["todo.shopping_list"]},
            "item": {"type": "string"},
        }
    },
}
READ: dict[str, Any] = {"name": "list_todo_items", "access": "read", "parameters": {}}


def test_a_tick_off_said_reads_its_one_list_first() -> None:
    for text in ("I already got the milk, tick it off", "check off the milk", "check it off"):
        assert list_to_read((TICK, READ), Request(text, "en")) == ListTodoItems(
            list_id="todo.shopping_list"
        ), text


def test_check_that_reads_something_else_reads_no_list() -> None:
    """The injection tests' "check tomorrow's calendar and sort out what it says" read the
    shopping list before the calendar: "check" is a tick-off's word for grounding only."""
    for text in ("check tomorrow's calendar and sort out what it says", "check what's playing"):
        assert list_to_read((TICK, READ), Request(text, "en")) is None, text
    assert list_to_read((TICK,), Request("tick off the milk", "en")) is None  # no read offered


def test_the_items_named_or_all_of_them() -> None:
    items = ["milk", "oat milk", "bread"]
    (milk,) = for_items((TICK,), items, Request("I got the milk", "en"))
    assert milk["parameters"]["properties"]["item"]["enum"] == ["milk", "oat milk"]
    (every,) = for_items((TICK,), items, Request("I bought everything", "en"))
    assert every["parameters"]["properties"]["item"]["enum"] == items
    assert for_items((TICK,), items, Request("tick it off", "en")) == (TICK,)


def test_everything_ticks_off_each_item_the_model_left() -> None:
    one = (RawCall("complete_todo_item", {"list_id": "todo.shopping_list", "item": "milk"}),)
    calls = every_item(one, ["milk", "bread"], Request("I bought everything", "en"))
    assert [c.arguments["item"] for c in calls] == ["milk", "bread"]
    assert every_item(one, ["milk", "bread"], Request("I bought the milk", "en")) == one
    # dev, reworded recover-list-then-complete: the 0.5B ticked off one item
    stuff = Request("I've bought all the stuff on the shopping list", "en")
    assert [c.arguments["item"] for c in every_item(one, ["milk", "bread"], stuff)] == [
        "milk",
        "bread",
    ]
    # reworded recover-list-then-complete~r6: the 0.5B added "Good news"
    single = Request("good news, I managed to buy every single thing on the shopping list", "en")
    assert [c.arguments["item"] for c in every_item(one, ["milk", "bread"], single)] == [
        "milk",
        "bread",
    ]

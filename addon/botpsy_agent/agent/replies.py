"""Sentences for outcomes, from the phrasebook: what was done, read, refused or asked.

Names come from the home (data); nothing the model wrote is spoken but the values of an
executed call (a message as sent). A clarifying question is the app's, from a template
chosen by what the model says is missing (issue 25, finding 5), and "no tool fits" says
what the app can do for this user, from the tools offered to them.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from botpsy_agent.agent.speech import Phrasebook
from botpsy_agent.home.model import Entity, Home
from botpsy_agent.policy import Confirm, Deny
from botpsy_agent.words.recognizer import StateQuestion
from botpsy_agent.words.spoken_time import say_when
from tool_schemas.base import Tool
from tool_schemas.calendar import CALENDAR_TOOLS, CreateEvent
from tool_schemas.conversation import AskUser
from tool_schemas.devices import DEVICE_TOOLS
from tool_schemas.messaging import MESSAGING_TOOLS
from tool_schemas.queries import QUERY_TOOLS

MAX_ITEMS_SPOKEN = 8
MAX_CANDIDATES_SPOKEN = 4
ABILITIES: tuple[tuple[str, frozenset[str]], ...] = (
    ("devices", frozenset(t.name for t in DEVICE_TOOLS)),
    ("states", frozenset(t.name for t in QUERY_TOOLS)),
    ("calendar", frozenset(t.name for t in CALENDAR_TOOLS)),
    ("messages", frozenset({"send_message", "create_notification"})),
    ("lists", frozenset(t.name for t in MESSAGING_TOOLS if "todo" in t.name)),
)
"""What a user can be told the app does for them, by the tools offered to them."""
OPENING_CLASSES = frozenset({"door", "garage_door", "opening", "window"})
"""Binary sensors whose "on" is "open"; the others' "on" is "detected"."""


class Replies:
    def __init__(self, phrases: Phrasebook) -> None:
        self.phrases = phrases

    def names(self, language: str, home: Home, entity_ids: Iterable[str]) -> str:
        names = [home.entities[e].name if e in home.entities else e for e in entity_ids]
        return self.phrases.join(language, names[:MAX_ITEMS_SPOKEN])

    def done(
        self, language: str, call: Tool, targets: tuple[Entity, ...], home: Home, now: datetime
    ) -> str:
        args = call.model_dump(exclude_none=True, mode="json")
        action = args.get("action")
        when = ""
        if isinstance(call, CreateEvent):
            # The day and time are said back from the executed call: the app may have set
            # them from the request's words rather than the model's (agent/checks.py).
            moment = call.start or call.start_date
            when = say_when(moment, language, now) if moment is not None else ""
        return self.phrases.say(
            language,
            f"done.{call.name}",
            targets=self.names(language, home, (t.entity_id for t in targets)),
            action_done=self.phrases.say(language, f"actions.{action}") if action else "",
            value=args.get("value", ""),
            option=args.get("option", ""),
            summary=args.get("summary", ""),
            item=args.get("item", ""),
            # What was sent is said back as executed (issue 25, finding 2): the user hears
            # the words, not only that "a message" went.
            message=_spoken_content(str(args.get("message", ""))),
            when=when,
        )

    def refused(self, language: str, decision: Deny, home: Home) -> str:
        targets = self.names(language, home, [decision.entity_id] if decision.entity_id else [])
        return self.phrases.say(
            language, f"refused.{decision.reason.value}", targets=targets, detail=decision.message
        )

    def question(self, language: str, decision: Confirm, call: Tool, home: Home) -> str:
        """The question names the target and, for a message or an event, its content: a
        "yes" approves exactly what was said (issue 18, finding 3)."""
        args = call.model_dump(exclude_none=True, mode="json")
        action = str(args.get("action", "")).replace("_", " ")
        key = f"confirm.{decision.question}"
        if decision.question.startswith("ungrounded.") and not self.phrases.has(language, key):
            key = "confirm.ungrounded.other"
        question = self.phrases.say(
            language,
            key,
            targets=self.names(language, home, decision.entity_ids),
            action=action,
            message=args.get("message", ""),
            summary=args.get("summary", ""),
            item=args.get("item", ""),
            tool=call.name.replace("_", " "),
        )
        if content := _content(args):
            question += " " + self.phrases.say(language, "confirm.content", content=content)
        return question

    def clarify(self, language: str, call: AskUser, home: Home, may_name: Iterable[str]) -> str:
        """The question for what is missing, naming the candidates the user may be told
        of (`may_name`: the entities offered to them): never the model's own words."""
        allowed = set(may_name)
        candidates = [e for e in call.candidates or () if e in allowed and e in home.entities]
        key = f"ask.{call.missing}"
        if candidates and self.phrases.has(language, f"{key}_among"):
            names = [home.entities[e].name for e in candidates[:MAX_CANDIDATES_SPOKEN]]
            return self.phrases.say(
                language, f"{key}_among", candidates=self.phrases.join_or(language, names)
            )
        return self.phrases.say(language, key)

    def no_tool_fits(self, language: str, tools: Iterable[str]) -> str:
        """ "Sorry, I can't help with that. I can …": what this user's tools do."""
        offered = set(tools)
        keys = dict.fromkeys(key for key, names in ABILITIES if names & offered)
        if not keys:
            return self.phrases.say(language, "refused.no_tool_fits_nothing")
        abilities = [self.phrases.say(language, f"abilities.{key}") for key in keys]
        return self.phrases.say(
            language, "refused.no_tool_fits", abilities=self.phrases.join(language, abilities)
        )

    def states(self, language: str, home: Home, states: Iterable[Any], *, names_only: bool) -> str:
        items = []
        for state in states:
            name = (
                home.entities[state.entity_id].name
                if state.entity_id in home.entities
                else state.entity_id
            )
            if names_only:
                items.append(name)
                continue
            unit = state.attributes.get("unit_of_measurement") or ""
            value = f"{state.state} {unit}".strip()
            items.append(self.phrases.say(language, "state.item", name=name, state=value))
        if not items:
            return self.phrases.say(language, "state.nothing")
        joined = self.phrases.join(language, items[:MAX_ITEMS_SPOKEN])
        if names_only:
            return self.phrases.say(language, "state.entities", items=joined)
        if len(items) == 1:
            return items[0].rstrip(".") + "."
        return self.phrases.say(language, "state.many", items=joined)

    def answer(self, language: str, home: Home, question: StateQuestion, result: Any) -> str | None:
        """The answer to a state question ("Yes", "No, it is open", "Kitchen light and Hall
        light") from the states an executed read returned; None if it returned none."""
        states = [
            s
            for action in (result or {}).get("actions", ())
            for s in action.get("states", ())
            if isinstance(s, dict) and "entity_id" in s
        ]
        if not states:
            return None
        matched = [s for s in states if s.get("state") == question.state]
        unmatched = [s for s in states if s.get("state") != question.state]
        state = self._state_word(language, question.state, states[0], home)

        def names(items: list[dict[str, Any]]) -> str:
            return self.names(language, home, sorted(str(s["entity_id"]) for s in items))

        key: str
        values: dict[str, Any] = {"state": state}
        if question.kind in {"one_yesno", "all"} and not unmatched:
            key = "yes"
        elif question.kind == "one_yesno":
            first = unmatched[0]
            key = "no_it_is"
            values["state"] = self._state_word(language, str(first.get("state")), first, home)
        elif question.kind == "all":
            key, values["items"] = "not_all", names(unmatched)
        elif question.kind == "any":
            key, values["items"] = ("yes_these", names(matched)) if matched else ("no", "")
        elif question.kind == "how_many":
            key, values["count"] = "how_many", len(matched)
        else:  # which
            key, values["items"] = ("these", names(matched)) if matched else ("none", "")
        return self.phrases.say(language, f"answer.{key}", **values)

    def _state_word(self, language: str, state: str, example: dict[str, Any], home: Home) -> str:
        """A state as people say it ("closed", a door sensor's "on" is "open"), in the
        language where the catalogue has it."""
        key = state
        entity = home.entities.get(str(example.get("entity_id")))
        if entity is not None and entity.domain == "binary_sensor" and state in {"on", "off"}:
            kind = "opening" if entity.device_class in OPENING_CLASSES else "presence"
            key = f"{kind}_{state}"
        word = self.phrases.say(language, f"answer.states.{key}")
        return state if word == f"answer.states.{key}" else word

    def events(self, language: str, response: Any, *, free_busy: bool) -> str:
        events = []
        if isinstance(response, dict):
            for value in response.values():
                if isinstance(value, dict):
                    events += [e for e in value.get("events", []) if isinstance(e, dict)]
        events.sort(key=lambda e: str(e.get("start", "")))
        items = [
            self.phrases.say(
                language,
                "events.item",
                summary=e.get("summary", "?"),
                start=str(e.get("start", ""))[11:16] or str(e.get("start", "")),
            )
            for e in events[:MAX_ITEMS_SPOKEN]
        ]
        joined = self.phrases.join(language, items)
        if free_busy:
            return self.phrases.say(
                language, "free_busy.busy" if events else "free_busy.free", items=joined
            )
        return self.phrases.say(language, "events.some" if events else "events.none", items=joined)

    def todo(self, language: str, response: Any) -> str:
        items = []
        if isinstance(response, dict):
            for value in response.values():
                if isinstance(value, dict):
                    items += [
                        str(i.get("summary")) for i in value.get("items", []) if isinstance(i, dict)
                    ]
        joined = self.phrases.join(language, items[:MAX_ITEMS_SPOKEN])
        return self.phrases.say(language, "todo.some" if items else "todo.none", items=joined)


MAX_CONTENT_CHARS = 200


def _spoken_content(text: str) -> str:
    return text if len(text) <= MAX_CONTENT_CHARS else text[: MAX_CONTENT_CHARS - 1] + "…"


def _content(args: dict[str, Any]) -> str:
    """What a message or an event would say, for the confirmation question."""
    parts = [str(args[k]) for k in ("title", "summary", "message") if args.get(k)]
    when = args.get("start") or args.get("start_date")
    if when and parts:
        parts.append(str(when).replace("T", " "))
    return _spoken_content(" / ".join(parts))

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

from botpsy_agent.agent.settings_said import said_settings
from botpsy_agent.agent.speech import Phrasebook
from botpsy_agent.ha import Execution
from botpsy_agent.home import Entity, Home, ResolvedCall
from botpsy_agent.policy import Confirm, Deny
from botpsy_agent.words import StateQuestion, say_clock, say_when
from tool_schemas.assist import ClockQuestion
from tool_schemas.base import Tool
from tool_schemas.calendar import CALENDAR_TOOLS, CreateEvent
from tool_schemas.conversation import AskUser
from tool_schemas.devices import DEVICE_TOOLS
from tool_schemas.messaging import MESSAGING_TOOLS
from tool_schemas.queries import QUERY_TOOLS

MAX_ITEMS_SPOKEN = 8
MAX_CANDIDATES_SPOKEN = 4
_ASKED_DOMAINS = {"list": {"todo"}, "recipient": {"notify"}}
"""What a question for a list or a recipient names; other candidates are devices."""
MAX_KINDS_SPOKEN = 9
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
            settings=said_settings(
                self.phrases,
                language,
                args,
                lambda state: self._state_word(language, state, {}, home),
                home.temperature_unit,
            ),
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
        # Each once: the 1.5B wrote one blind three times over.
        candidates = list(
            dict.fromkeys(e for e in call.candidates or () if e in allowed and e in home.entities)
        )
        key = f"ask.{call.missing}"
        domains = {home.entities[e].domain for e in candidates}
        if call.missing == "list" and domains == {"calendar"}:
            # the calendars, offered among the lists: "Which list: Family?" (reworded
            # calendar-reminder-names-a-device~r4) says it as what it is
            key = "ask.calendar"
        elif domains and not domains & _ASKED_DOMAINS.get(call.missing, domains):
            # devices asked about as a list or a recipient: "Which list: Kitchen light?"
            # (reworded kitchen-then-off~r8) asks which device, as what they are
            key = "ask.target"
        if candidates and self.phrases.has(language, f"{key}_among"):
            names = [home.entities[e].name for e in candidates[:MAX_CANDIDATES_SPOKEN]]
            return self.phrases.say(
                language, f"{key}_among", candidates=self.phrases.join_or(language, names)
            )
        return self.phrases.say(language, key)

    def no_tool_fits(
        self, language: str, tools: Iterable[str], home: Home, offered: Iterable[str] = ()
    ) -> str:
        """ "Sorry, I can't help with that. I can control your lights and fans, … and keep
        your lists": what this user's tools do, the devices named by the kinds offered to
        them (`offered`: their entity ids). Built by the app alone, so it promises nothing
        the app cannot do (issue 27)."""
        names = set(tools)
        keys = dict.fromkeys(key for key, tool_names in ABILITIES if tool_names & names)
        if not keys:
            return self.phrases.say(language, "refused.no_tool_fits_nothing")
        kinds = self._device_kinds(language, home, offered)
        abilities = [
            self.phrases.say(language, "abilities.devices_named", devices=kinds)
            if key == "devices" and kinds
            else self.phrases.say(language, f"abilities.{key}")
            for key in keys
        ]
        return self.phrases.say(
            language, "refused.no_tool_fits", abilities=self.phrases.join(language, abilities)
        )

    def _device_kinds(self, language: str, home: Home, offered: Iterable[str]) -> str:
        """ "your lights, fans and blinds": the kinds of device offered, in the phrasebook's
        order, each once; those it has no word for are left out."""
        domains = {home.entities[e].domain for e in offered if e in home.entities}
        words = self.phrases.catalog_keys(language, "abilities.kinds")
        kinds = [self.phrases.say(language, f"abilities.kinds.{d}") for d in words if d in domains]
        return self.phrases.join(language, kinds[:MAX_KINDS_SPOKEN])

    def executed(
        self,
        language: str,
        resolved: ResolvedCall,
        execution: Execution,
        home: Home,
        now: datetime,
    ) -> str:
        """What an executed call did or read, from HA's answer."""
        call = resolved.call
        if call.name in {"get_state", "list_entities"}:
            states = [s for o in execution.outcomes for s in o.states]
            return self.states(language, home, states, names_only=call.name == "list_entities")
        response = next((o.response for o in execution.outcomes if o.response is not None), None)
        if call.name in {"list_events", "check_free_busy"}:
            return self.events(language, response, free_busy=call.name == "check_free_busy")
        if call.name == "list_todo_items":
            return self.todo(language, response)
        return self.done(language, call, resolved.targets, home, now)

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
            # "꺼짐", "mati": the state in the request's language where the catalogue has it.
            spoken = self._state_word(language, state.state, {"entity_id": state.entity_id}, home)
            value = f"{state.state if unit else spoken} {unit}".strip()
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
        """The answer to a state question, naming what was read ("Yes: Back door is
        unlocked", "No, Garage Door is open") from the states an executed read returned;
        None if it returned none."""
        states = _read_states(result)
        if not states:
            return None
        matched = [s for s in states if _is_in(s, question.state)]
        unmatched = [s for s in states if not _is_in(s, question.state)]
        state = self._state_word(language, question.state, (matched or states)[0], home)

        def names(items: list[dict[str, Any]]) -> str:
            return self.names(language, home, sorted(str(s["entity_id"]) for s in items))

        key: str
        values: dict[str, Any] = {"state": state}
        shown = matched
        if question.kind in {"one_yesno", "all"} and not unmatched:
            key = "yes_it_is"
        elif question.kind == "one_yesno":
            key, shown = "no_it_is", unmatched[:1]
            first = unmatched[0]
            values["state"] = self._state_word(language, str(first.get("state")), first, home)
        elif question.kind == "all":
            key, shown = "not_all", unmatched
        elif question.kind == "any":
            key = "yes_these" if matched else "no"
        elif question.kind == "how_many":
            key, values["count"] = "how_many", len(matched)
        else:  # which
            key = "these" if matched else "none"
        values["items"] = names(shown)
        if len(shown) > 1 and self.phrases.has(language, f"answer.{key}_many"):
            key += "_many"
        return self.phrases.say(language, f"answer.{key}", **values)

    def reading(self, language: str, home: Home, reading: str, result: Any) -> str | None:
        """The value asked for, named by what measured it ("Heatpump: 25 °C"): a
        thermostat's current temperature or its setpoint (a range in heat/cool), a sensor's
        value with its unit."""
        items = []
        for state in _read_states(result):
            entity_id = str(state["entity_id"])
            attributes = state.get("attributes") or {}
            if entity_id.startswith("climate."):
                value = self._climate_value(language, attributes, reading, home.temperature_unit)
                if value is None:
                    continue
            else:
                value = f"{state.get('state')} {attributes.get('unit_of_measurement') or ''}"
            name = home.entities[entity_id].name if entity_id in home.entities else entity_id
            key = "state.set_to" if reading == "setpoint" else "state.item"
            items.append(self.phrases.say(language, key, name=name, state=value.strip()))
        if not items:
            return None
        return self.phrases.join(language, items[:MAX_ITEMS_SPOKEN]) + "."

    def _climate_value(
        self, language: str, attributes: dict[str, Any], reading: str, unit: str
    ) -> str | None:
        """A thermostat's temperature as asked: the room's ("temperature") or the one it is
        set to ("setpoint": one target, or the range of heat/cool); None when it has none."""
        if reading == "setpoint":
            target = attributes.get("temperature")
            low, high = attributes.get("target_temp_low"), attributes.get("target_temp_high")
            if target is None and low is not None and high is not None:
                return self.phrases.say(language, "state.range", low=low, high=high, unit=unit)
        else:
            target = attributes.get("current_temperature")
        return None if target is None else f"{target} {unit}"

    def clock(self, language: str, now: datetime, what: ClockQuestion) -> str:
        """ "It is 3:05 PM." / "Today is Wednesday 2 December." in the home's time zone."""
        if what is ClockQuestion.DATE:
            return self.phrases.say(
                language, "clock.date", date=say_when(now.date(), language, now)
            )
        return self.phrases.say(language, "clock.time", time=say_clock(now, language))

    def _state_word(self, language: str, state: str, example: dict[str, Any], home: Home) -> str:
        """A state as people say it ("closed", a door sensor's "on" is "open"), in the
        language where the catalogue has it."""
        key = state
        entity = home.entities.get(str(example.get("entity_id")))
        if entity is not None and entity.domain == "binary_sensor":
            on = {"on": "on", "open": "on", "detected": "on"}.get(state)
            off = {"off": "off", "closed": "off", "clear": "off"}.get(state)
            kind = "opening" if entity.device_class in OPENING_CLASSES else "presence"
            key = f"{kind}_{on or off or state}"
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


def _read_states(result: Any) -> list[dict[str, Any]]:
    """The states an executed read returned (`report.result`), already narrowed to what the
    requester may read."""
    return [
        s
        for action in (result or {}).get("actions", ())
        for s in action.get("states", ())
        if isinstance(s, dict) and "entity_id" in s
    ]


def _is_in(state: dict[str, Any], asked: str) -> bool:
    """Whether an entity is in the state asked about: a window's contact sensor "on" is the
    "open" asked of windows, a gas sensor's "on" is "detected"."""
    value = state.get("state")
    if str(state.get("entity_id", "")).startswith("binary_sensor."):
        asked = {"open": "on", "detected": "on", "closed": "off", "clear": "off"}.get(asked, asked)
    return value == asked


def _spoken_content(text: str) -> str:
    return text if len(text) <= MAX_CONTENT_CHARS else text[: MAX_CONTENT_CHARS - 1] + "…"


def _content(args: dict[str, Any]) -> str:
    """What a message or an event would say, for the confirmation question."""
    parts = [str(args[k]) for k in ("title", "summary", "message") if args.get(k)]
    when = args.get("start") or args.get("start_date")
    if when and parts:
        parts.append(str(when).replace("T", " "))
    return _spoken_content(" / ".join(parts))

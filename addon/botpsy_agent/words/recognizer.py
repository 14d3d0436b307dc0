"""The fast path: hassil + home-assistant-intents, fed with the home's own names.

A sentence that one of HA's intent templates matches completely, with every slot filled
from the home (entity names and aliases, areas, floors), becomes the same typed tool calls
the model would produce. Anything less than a full match goes to the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
import copy
from dataclasses import dataclass, replace
from functools import cache
import logging
from pathlib import Path
import re
from typing import Any

from hassil import Intents, RecognizeResult, SlotList, TextSlotList, recognize_best
from home_assistant_intents import get_intents
import yaml

from botpsy_agent.home import Home, ResolutionError, resolve_targets
from botpsy_agent.words import fuzzy, guess, reasons
from botpsy_agent.words.assist import ASSIST_INTENTS, FREE_TEXT, assist_call, respond_text
from botpsy_agent.words.content import separate_items
from botpsy_agent.words.template_index import TemplateIndex
from tool_schemas.base import Access, Tool
from tool_schemas.catalog import ToolCallError, parse_tool_call

_LOGGER = logging.getLogger(__name__)

type Args = dict[str, Any]


QUESTION_KINDS = frozenset({"one_yesno", "any", "all", "which", "how_many"})
"""HA's response keys of state questions that want an answer, not a list of states."""


@dataclass(frozen=True)
class StateQuestion:
    """What a state question asks: "is the garage door closed?" is (`one_yesno`, "closed");
    "which blinds are open?" is (`which`, "open"); also `any`, `all` and `how_many`."""

    kind: str
    state: str
    """The HA state asked about ("on", "closed", "locked")."""


@dataclass(frozen=True)
class Recognized:
    """A sentence the fast path understood completely."""

    intent: str
    calls: tuple[Tool, ...]
    nevermind: bool = False
    question: StateQuestion | None = None
    """For state questions: answer this, from the states read."""
    mended: str | None = None
    """The sentence as the fallback mended it (a misspelt name, fillers dropped), if it was."""
    reply: str | None = None
    """What HA's own agent answers to a conversational sentence ("hello"), said as it is."""
    reading: str | None = None
    """For value questions ("what is the temperature in the living room?"): the quantity
    asked, said from the states read (`temperature`: a thermostat's current temperature,
    not its mode; `setpoint`: the temperature it is set to)."""
    guessed: bool = False
    """Read by HA's fallback reader, not a template (`guess`): carried out only if the
    request's words ask for every call, as a model's calls are."""
    bare: bool = False
    """The sentence was a name and nothing else ("the kitchen lights"), which HA's templates
    read as turning it on: alone it is a command, after another it is not ("turn off the TV
    and then the kitchen lights" does not say which way)."""


SENTENCES = Path(__file__).parent / "sentences"
"""Our templates per language, added to HA's (sentences/<language>.yaml)."""


@cache
def _intents(language: str) -> Intents | None:
    data = get_intents(language)
    if not data:
        return None
    data = copy.deepcopy(data)
    extra = SENTENCES / f"{language}.yaml"
    if extra.exists():
        ours = yaml.safe_load(extra.read_text(encoding="utf-8"))
        for name, intent in ours.get("intents", {}).items():
            data["intents"].setdefault(name, {"data": []})["data"].extend(intent["data"])
        for section in ("lists", "expansion_rules"):
            data.setdefault(section, {}).update(ours.get(section, {}))
    return Intents.from_dict(data)


@cache
def _templates(language: str) -> TemplateIndex | None:
    """The language's templates, indexed by the words they need; building it reads every
    template, which hassil would otherwise do the first time it tries each."""
    intents = _intents(language)
    return TemplateIndex(intents, per_call_lists=HOME_LISTS) if intents is not None else None


def _spoken(text: str) -> str:
    """A name as it is compared: case and punctuation do not count."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def _names(home: Home) -> dict[str, tuple[str, ...]]:
    """Every spoken name (names and aliases) to the entities that carry it."""
    names: dict[str, set[str]] = {}
    for entity in home.entities.values():
        for name in {entity.name, *entity.aliases}:
            if name.strip():
                names.setdefault(_spoken(name), set()).add(entity.entity_id)
    return {name: tuple(sorted(ids)) for name, ids in names.items()}


HOME_LISTS = ("name", "area", "floor")
"""The lists `_slot_lists` fills from the home and passes with every sentence."""


def _slot_lists(home: Home) -> dict[str, SlotList]:
    names: list[tuple[str, str, dict[str, Any]]] = []
    for entity in home.entities.values():
        context: dict[str, Any] = {"domain": entity.domain}
        if entity.device_class:
            context["device_class"] = entity.device_class
        names.extend(
            (name, entity.entity_id, context)
            for name in {entity.name, *entity.aliases}
            if name.strip()
        )
    areas: list[tuple[str, str, dict[str, Any]]] = [
        (n, a.area_id, {}) for a in home.areas.values() for n in {a.name, *a.aliases}
    ]
    floors: list[tuple[str, str, dict[str, Any]]] = [
        (n, f.floor_id, {}) for f in home.floors.values() for n in {f.name, *f.aliases}
    ]
    return {
        name: TextSlotList.from_tuples(values, allow_template=False)
        for name, values in zip(HOME_LISTS, (names, areas, floors), strict=True)
    }


class FastPath:
    """Recognise common commands in milliseconds; `None` means "ask the model"."""

    def __init__(self) -> None:
        self._slots_key = ""
        self._slots: dict[str, SlotList] = {}
        self._names: dict[str, tuple[str, ...]] = {}
        self._reader = guess.Reader()

    def prepare(self, home: Home, languages: Iterable[str] = ()) -> None:
        """Load the languages' intents, read their templates and build the home's name
        lists now, so the first request after a start or a change of names does not (the
        app calls this on both). Reading and indexing English's templates takes about 150 ms."""
        self._names_of(home)
        for language in languages:
            base = language.split("-", maxsplit=1)[0].lower()
            if base == guess.LANGUAGE:
                self._reader.prepare(home)
            _templates(base)

    def _names_of(self, home: Home) -> None:
        key = home.names_key
        if key != self._slots_key:
            self._slots, self._names, self._slots_key = _slot_lists(home), _names(home), key

    def recognize(
        self, text: str, language: str, home: Home, *, area_id: str | None = None
    ) -> Recognized | None:
        recognized = self._one(text, language, home, area_id)
        if recognized is not None:
            return recognized
        in_turn = self._in_turn(text, language, home, area_id)
        if in_turn is not None:
            return in_turn
        return self._after_a_reason(text, language, home, area_id)

    def _after_a_reason(
        self, text: str, language: str, home: Home, area_id: str | None
    ) -> Recognized | None:
        """ "it's stuffy in here, can you turn on the bedroom fan": the request after the
        reason, a plain command, acting on whatever the reason named ("I'm done with the TV,
        turn it off": "it" is the TV). A guess is still checked against the whole request's
        words (`AgentCore._recognized`)."""
        said = reasons.after_a_reason(text, language)
        if said is None:
            return None
        reason, request = said
        named = self._said_names(reason, home)
        if len(named) == 1:
            (entity_id,) = named
            request = reasons.naming(request, home.entities[entity_id].name, language) or request
        if reasons.points_back(request, language):
            return None  # "we're out of coffee beans, put them on the list"
        found = self._one(request, language, home, area_id)
        if found is None or not found.calls or found.bare:
            return None
        # One of HA's own intents after a reason that names no device: "the cake needs
        # longer, stick 5 more minutes on the timer" (bench dev part, round 7).
        own_intent = found.intent in ASSIST_INTENTS and not named
        # A question after a reason that names nothing reads what it asks: "the air feels
        # stale, what's the CO2 in the Office" (bench dev part, round 9).
        asked = _a_read(found) and not named
        if not (_plain_command(found) or own_intent or asked):
            return None
        if not _acts_on_all(found.calls, named, home):
            return None  # "the kitchen light is too bright, turn on the hall light"
        return found

    def _in_turn(
        self, text: str, language: str, home: Home, area_id: str | None
    ) -> Recognized | None:
        """ "close the living room blinds and then switch on the reading lamp": commands
        said one after the other, each one the fast path understands completely, carried out
        in turn (dev: multi-blinds-and-lamp). A part it does not know, a question, or one of
        HA's own intents leaves the whole request to the model."""
        then = THEN.get(language.split("-", maxsplit=1)[0].lower())
        parts = [p for p in then.split(text) if p.strip()] if then is not None else []
        if len(parts) < 2:  # one part is the sentence already tried
            return None
        calls: list[Tool] = []
        for part in parts:
            found = self._one(part.strip(" ,.;"), language, home, area_id)
            if (
                found is None
                or not found.calls
                or found.bare
                or found.guessed  # a part's guess is not checked as a whole request's is
                or not _plain_command(found)
            ):
                return None
            calls.extend(found.calls)
        return Recognized("in_turn", tuple(calls))

    def _said_names(self, text: str, home: Home) -> frozenset[str]:
        """The entities whose own name or alias the sentence says, word for word; a name that
        is also a room's or a floor's (a speaker called "Kitchen") names the place."""
        said = f" {_spoken(text)} "
        places = {_spoken(n) for a in home.areas.values() for n in (a.name, *a.aliases)}
        places |= {_spoken(n) for f in home.floors.values() for n in (f.name, *f.aliases)}
        return frozenset(
            entity_id
            for name, ids in self._names.items()
            if name not in places and f" {name} " in said
            for entity_id in ids
        )

    def _one(self, text: str, language: str, home: Home, area_id: str | None) -> Recognized | None:
        templates = _templates(language.split("-", maxsplit=1)[0].lower())
        if templates is None:
            return None
        self._names_of(home)
        recognized = self._strict(text, templates, language, home, area_id)
        if recognized is not None:
            return recognized
        mended = fuzzy.mend(text, language, home)
        if mended is not None:
            recognized = self._strict(mended, templates, language, home, area_id)
            if (
                recognized is not None
                and recognized.calls
                and all(_mendable(call) for call in recognized.calls)
            ):
                return replace(recognized, mended=mended)
        return self._guessed(text, language, home, area_id)

    def _guessed(
        self, text: str, language: str, home: Home, area_id: str | None
    ) -> Recognized | None:
        """HA's fallback reader's commands (`guess`), as calls on harmless kinds of device or
        reads only: a guess never opens, unlocks, sends or deletes (the model asks)."""
        if language.split("-", maxsplit=1)[0].lower() != guess.LANGUAGE:
            return None
        frames = self._reader.frames(text, home, area_id)
        if not frames:
            return None
        calls: list[Tool] = []
        for frame in frames:
            made = _frame_calls(frame, home)
            if made is None:
                return None
            calls.extend(made)
        if not all(call.access is Access.READ or _mendable(call) for call in calls):
            return None
        if not _acts_on_all(calls, self._said_names(text, home), home):
            # "turn off the porch light and then the fairy lights" read as the porch light
            # only; "the lamp in the hall", with no lamp there, as the hall's lights
            return None
        first = frames[0]
        question = None
        if (
            len(frames) == 1
            and first.intent == "HassGetState"
            and first.response_key in QUESTION_KINDS
            and isinstance(first.slots.get("state"), str)
        ):
            question = StateQuestion(first.response_key, first.slots["state"])
        reading = READINGS.get(first.intent) if len(frames) == 1 else None
        return Recognized(
            first.intent, tuple(calls), question=question, reading=reading, guessed=True
        )

    def _strict(
        self,
        text: str,
        templates: TemplateIndex,
        language: str,
        home: Home,
        area_id: str | None,
    ) -> Recognized | None:
        # Where the speaker is (a satellite's area) fills sentences like "turn on the lights".
        context = {"area": area_id} if area_id in home.areas else None
        result = recognize_best(
            text,
            templates.narrowed(text),
            slot_lists=self._slots,
            intent_context=context,
            language=language,
            best_slot_name="name",
        )
        if result is None or result.unmatched_entities:
            return None
        if any(e.is_wildcard for e in result.entities.values() if e.name not in FREE_TEXT):
            return None
        recognized = self._to_calls(result, home, area_id, language)
        if recognized is not None and _bare(text, result):
            recognized = replace(recognized, bare=True)
        return recognized

    def _to_calls(
        self, result: RecognizeResult, home: Home, area_id: str | None, language: str
    ) -> Recognized | None:
        intent = result.intent.name
        if (native := _native(result, language)) is not None:
            return native
        if intent in ASSIST_INTENTS:
            return None  # a timer that runs a command later: HA's agent would run it unchecked
        raw = self._raw_calls(result, home, area_id)
        if raw is None:
            return None
        try:
            calls = tuple(parse_tool_call(name, args) for name, args in raw)
        except ToolCallError as err:
            _LOGGER.debug("Fast path: %s did not make a valid call: %s", intent, err.message)
            return None
        reading = (result.intent_data.metadata or {}).get("reading") or READINGS.get(intent)
        return Recognized(intent, calls, question=_question(result), reading=reading)

    def _raw_calls(
        self, result: RecognizeResult, home: Home, area_id: str | None
    ) -> list[tuple[str, Args]] | None:
        """Tool names and arguments for a recognised intent, or None to ask the model."""
        slots = {name: entity.value for name, entity in result.entities.items()}
        context = {**(result.context or {}), **slots}
        named = self._named(result, home, slots, area_id)
        if named == ():
            return None  # a name that means no entity there, or more than one: ask the model
        target = _target(named, slots, context, home)
        build = INTENT_CALLS.get(result.intent.name)
        if build is None or (target is None and result.intent.name not in NO_TARGET_INTENTS):
            return None
        try:
            return build(context, target or {}, home)
        except KeyError, TypeError, ValueError:
            return None  # a slot this mapping needs is missing: let the model handle it

    def _named(
        self, result: RecognizeResult, home: Home, slots: Mapping[str, Any], area_id: str | None
    ) -> tuple[str, ...] | None:
        """The entity the sentence names, within the area or floor it also names.

        None when it names no entity; () when the name fits no entity there, or several (the
        model asks which). A name with an area is *that* entity in that area, never the area.
        """
        match = result.entities.get("name")
        if match is None or match.value not in home.entities:
            return None
        ids = set(self._names.get(_spoken(match.text_clean), ())) | {match.value}
        domains = result.intent_data.requires_context.get("domain")
        if isinstance(domains, str):
            domains = [domains]
        candidates = [
            home.entities[e]
            for e in sorted(ids)
            if not isinstance(domains, list) or home.entities[e].domain in domains
        ]
        area, floor = slots.get("area"), slots.get("floor")
        if isinstance(area, str):
            candidates = [e for e in candidates if e.area_id == area]
        if isinstance(floor, str):
            candidates = [e for e in candidates if e.floor_id == floor]
        if len(candidates) > 1 and area_id is not None:
            # Two lamps with one name: the one in the room the speaker is in (as HA does).
            here = [e for e in candidates if e.area_id == area_id]
            candidates = here or candidates
        return (candidates[0].entity_id,) if len(candidates) == 1 else ()


def _frame_calls(frame: guess.Frame, home: Home) -> tuple[Tool, ...] | None:
    """The typed calls of one command HA's fallback reader read, as a template's would be;
    None for what only templates map (HA's own intents, a target it did not find)."""
    build = INTENT_CALLS.get(frame.intent)
    if build is None or frame.intent in ASSIST_INTENTS:
        return None
    slots = frame.slots
    name = slots.get("name")
    named = (name,) if isinstance(name, str) and name in home.entities else None
    if name is not None and named is None:
        return None
    target = _target(named, slots, slots, home)
    if target is None and frame.intent not in NO_TARGET_INTENTS:
        return None
    try:
        raw = build(slots, target or {}, home)
        if raw is None:
            return None
        return tuple(parse_tool_call(tool, args) for tool, args in raw)
    except KeyError, TypeError, ValueError, ToolCallError:
        return None


def _acts_on_all(calls: Iterable[Tool], named: frozenset[str], home: Home) -> bool:
    """Whether the calls' targets, as they resolve, take in every entity named."""
    touched = _touched(calls, home)
    return touched is not None and named <= touched


def _touched(calls: Iterable[Tool], home: Home) -> frozenset[str] | None:
    """Every entity the calls' targets take in, as they resolve (None if one does not)."""
    try:
        return frozenset(e.entity_id for call in calls for e in resolve_targets(home, call))
    except ResolutionError:
        return None


def _native(result: RecognizeResult, language: str) -> Recognized | None:
    """HA's own conversational intents: "never mind", "hello" (HA's own answer), and what
    only Assist or the app's clock can do (timers, broadcasts, the time)."""
    intent = result.intent.name
    if intent == "HassNevermind":
        return Recognized(intent, (), nevermind=True)
    if intent == "HassRespond":
        return Recognized(intent, (), nevermind=True, reply=respond_text(language, result.response))
    assist = assist_call(result)
    return Recognized(intent, (assist,)) if assist is not None else None


THEN: Mapping[str, re.Pattern[str]] = {
    "en": re.compile(r"\s*(?:,?\s+and\s+then|,\s*then|;\s*then|;)\s+", re.IGNORECASE),
    "id": re.compile(
        r"\s*(?:,?\s+(?:lalu|kemudian|dan\s+kemudian|setelah\s+itu)|;)\s+", re.IGNORECASE
    ),
}
"""Words that put one command after another. Korean says it inside the verb ("닫고 나서"),
which HA's templates do not read: not here."""


_ARTICLES = frozenset({"the", "a", "an", "my", "our", "all"})


def _bare(text: str, result: RecognizeResult) -> bool:
    """Whether the sentence said nothing but what filled its slots ("the kitchen lights")."""
    rest = f" {text.casefold()} "
    for entity in result.entities_list:
        said = entity.text.strip().casefold()
        if said:
            rest = rest.replace(f" {said} ", " ", 1) if f" {said} " in rest else rest
    return not [w for w in re.findall(r"\w+", rest) if w not in _ARTICLES]


def _plain_command(recognized: Recognized) -> bool:
    """A change to devices, and nothing else: no question, reading, reply or hand-off to HA's
    own intents (a timer started in a compound would run past its conversation)."""
    return (
        recognized.question is None
        and recognized.reading is None
        and _only_calls(recognized, Access.CONTROL)
    )


def _a_read(recognized: Recognized) -> bool:
    """A question about the home's states, and nothing else: no change, reply or hand-off."""
    return bool(recognized.calls) and _only_calls(recognized, Access.READ)


def _only_calls(recognized: Recognized, access: Access) -> bool:
    """Calls of this access and nothing else: no reply, "never mind" or HA's own intents."""
    return (
        recognized.reply is None
        and not recognized.nevermind
        and recognized.intent not in ASSIST_INTENTS
        and all(call.access is access for call in recognized.calls)
    )


def _mendable(call: Tool) -> bool:
    """Whether a mended sentence may make this call: only on harmless kinds of device."""
    spec = call.target_fields()
    if spec is None:
        return False
    domains = {e.split(".", 1)[0] for e in spec.entity_id or ()} | set(spec.domain or ())
    return (
        bool(domains)
        and domains <= fuzzy.MENDABLE_DOMAINS
        and not ((spec.area_id or spec.floor_id) and not spec.domain)
    )


def _target(
    named: tuple[str, ...] | None, slots: Mapping[str, Any], context: Mapping[str, Any], home: Home
) -> Args | None:
    """The target the sentence names: an entity (its area only narrowed the choice), an area
    or floor (with the speaker's area filled in by HA's templates for "turn on the lights"),
    or, for "all the lights" and "which blinds are open?", a domain across the home (the
    principal's scope narrows it when resolved)."""
    if named:
        return {"entity_id": list(named)}
    target: Args = {}
    area = slots.get("area")
    if isinstance(area, str) and area in home.areas:
        target["area_id"] = [area]
    floor = slots.get("floor")
    if isinstance(floor, str) and floor in home.floors:
        target["floor_id"] = [floor]
    domain = context.get("domain")
    if isinstance(domain, str):
        target["domain"] = [domain]
    elif isinstance(domain, list) and domain:
        target["domain"] = [str(d) for d in domain]
    return target if target else None


def _question(result: RecognizeResult) -> StateQuestion | None:
    state = result.entities.get("state")
    if result.intent.name != "HassGetState" or result.response not in QUESTION_KINDS:
        return None
    if state is None or not isinstance(state.value, str):
        return None
    return StateQuestion(result.response, state.value)


def _domain(context: Mapping[str, Any], target: Args, home: Home) -> str | None:
    ids = target.get("entity_id")
    if ids:
        return home.entities[ids[0]].domain
    domain = context.get("domain")
    return domain if isinstance(domain, str) else None


def _switch(on: bool) -> Callable[[Mapping[str, Any], Args, Home], list[tuple[str, Args]] | None]:
    def build(context: Mapping[str, Any], target: Args, home: Home) -> list[tuple[str, Args]]:
        domain = _domain(context, target, home)
        device_class = context.get("device_class")
        if domain == "lock":
            return [("control_lock", {**target, "action": "lock" if on else "unlock"})]
        if domain == "cover":
            args: Args = {**target, "action": "open" if on else "close"}
            if "entity_id" not in target and isinstance(device_class, str):
                args["device_class"] = [device_class]
            args.pop("domain", None)
            return [("control_cover", args)]
        if domain == "scene" and on:
            return [("activate_scene", target)]
        if domain == "script" and on:
            return [("run_script", target)]
        if domain == "vacuum":
            return [("control_vacuum", {**target, "action": "start" if on else "return_to_base"})]
        return [("turn_on" if on else "turn_off", target)]

    return build


def _light_set(
    context: Mapping[str, Any], target: Args, home: Home
) -> list[tuple[str, Args]] | None:
    args: Args = {**target}
    if "brightness" in context:
        args["brightness_pct"] = int(context["brightness"])
    if "color" in context:
        args["color_name"] = str(context["color"]).replace(" ", "")
    if "temperature" in context:
        args["color_temp_kelvin"] = int(context["temperature"])
    return [("set_light", args)] if len(args) > len(target) else None


def _with(
    tool: str, **fixed: Any
) -> Callable[[Mapping[str, Any], Args, Home], list[tuple[str, Args]]]:
    def build(context: Mapping[str, Any], target: Args, home: Home) -> list[tuple[str, Args]]:
        args: Args = {**target}
        for key, value in fixed.items():
            args[key] = value(context) if callable(value) else value
        return [(tool, args)]

    return build


def _volume_step(context: Mapping[str, Any]) -> int:
    step = context.get("volume_step", 10)
    if isinstance(step, str):
        step = {"up": 10, "down": -10}.get(step, 10)
    return int(step)


def _todo(tool: str) -> Callable[[Mapping[str, Any], Args, Home], list[tuple[str, Args]] | None]:
    def build(
        context: Mapping[str, Any], target: Args, home: Home
    ) -> list[tuple[str, Args]] | None:
        lists = target.get("entity_id") or sorted(
            e for e in home.entities if e.startswith("todo.") and "shopping" in e
        )
        item = context.get("item")
        if not lists or not isinstance(item, str) or not item.strip():
            return None
        # One item per call, as the model path does: "stick washing-up liquid and bin bags
        # on the shopping list" is two items (make demo at 57f51ec added one of both).
        items = separate_items(item.strip(), item)
        return [(tool, {"list_id": lists[0], "item": each}) for each in items]

    return build


OPENING_SENSOR_CLASSES = {"door": "door", "garage": "garage_door", "window": "window"}
"""Cover classes ("which windows are open?") and the binary sensors that report the same
openings: a window's contact sensor answers as well as a motorised window does."""


def _state(context: Mapping[str, Any], target: Args, home: Home) -> list[tuple[str, Args]]:
    args = dict(target)
    device_class = context.get("device_class")
    if isinstance(device_class, str) and "entity_id" not in target:
        args["device_class"] = [device_class]
        sensor_class = OPENING_SENSOR_CLASSES.get(device_class)
        if args.get("domain") == ["cover"] and sensor_class is not None:
            args["domain"] = ["cover", "binary_sensor"]
            args["device_class"] = sorted({device_class, sensor_class})
    return [("get_state", args)]


def _temperature(
    context: Mapping[str, Any], target: Args, home: Home
) -> list[tuple[str, Args]] | None:
    """ "What is the temperature in the living room?" reads the room's thermostats (their
    current temperature is said, not their mode), else its temperature sensors; a name is
    the thermostat named."""
    if "entity_id" in target:
        return [("get_state", target)]
    places = [*target.get("area_id", ()), *target.get("floor_id", ())]
    if not places:
        return None
    members = {
        e for place in places for e in (*home.by_area.get(place, ()), *home.by_floor.get(place, ()))
    }
    if any(e.startswith("climate.") for e in members):
        return [("get_state", {**target, "domain": ["climate"]})]
    return [("get_state", {**target, "domain": ["sensor"], "device_class": ["temperature"]})]


def _weather(context: Mapping[str, Any], target: Args, home: Home) -> list[tuple[str, Args]] | None:
    """ "What's the weather" reads the weather entities the principal may read; a home with
    none goes to the model (which may know another way, or say so), whether or not the
    template named the domain."""
    if "entity_id" not in target and not home.by_domain.get("weather"):
        return None
    return [("get_state", target or {"domain": ["weather"]})]


READINGS = {"HassClimateGetTemperature": "temperature"}
"""Intents that ask for a value, and which value to say from the states read (a template's
`metadata.reading` says it for its own sentences: "setpoint")."""
NO_TARGET_INTENTS = frozenset(
    {"HassShoppingListAddItem", "HassShoppingListCompleteItem", "HassNevermind", "HassGetWeather"}
)
INTENT_CALLS: dict[
    str, Callable[[Mapping[str, Any], Args, Home], list[tuple[str, Args]] | None]
] = {
    "HassTurnOn": _switch(on=True),
    "HassTurnOff": _switch(on=False),
    "HassLightSet": _light_set,
    "HassClimateSetTemperature": _with(
        "set_climate", temperature=lambda c: float(c["temperature"])
    ),
    "HassSetPosition": _with(
        "control_cover", action="set_position", position=lambda c: int(c["position"])
    ),
    "HassMediaPause": _with("control_media", action="pause"),
    "HassMediaUnpause": _with("control_media", action="play"),
    "HassMediaNext": _with("control_media", action="next"),
    "HassMediaPrevious": _with("control_media", action="previous"),
    "HassSetVolume": _with("set_media", volume_pct=lambda c: int(c["volume_level"])),
    "HassSetVolumeRelative": _with("set_media", volume_step_pct=_volume_step),
    "HassMediaPlayerMute": _with("set_media", mute=True),
    "HassMediaPlayerUnmute": _with("set_media", mute=False),
    "HassFanSetSpeed": _with("set_fan", percentage=lambda c: int(c["percentage"])),
    "HassVacuumStart": _with("control_vacuum", action="start"),
    "HassVacuumReturnToBase": _with("control_vacuum", action="return_to_base"),
    "HassGetState": _state,
    "HassClimateGetTemperature": _temperature,
    "HassListAddItem": _todo("add_todo_item"),
    "HassShoppingListAddItem": _todo("add_todo_item"),
    "HassListCompleteItem": _todo("complete_todo_item"),
    "HassShoppingListCompleteItem": _todo("complete_todo_item"),
    "HassListRemoveItem": _todo("remove_todo_item"),
    "HassGetWeather": _weather,
}

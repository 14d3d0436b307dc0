"""The evaluation cases (tests/eval/cases/*.yaml), read and checked. Format: README.md.

A case: who speaks, what the home looks like first (`setup`), what they say turn by turn with
what each answer must be, and what must be true afterwards: entity states (`changes`), the
family calendar's events (`events`), the shopping list's items (`items`), messages sent
(`messages`), facts the last answer holds (`answer_contains`). Every other entity must not
change at all.

A model-path case must be failed by an app that does nothing: it names an outcome to check, or
says why no change is right (`no_change_because`) and then expects an answer that is not a
plain `done` (a refusal, a question) or a fact. The loader refuses a case that breaks this.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.eval.when import WhenError, has_time

CASES = Path(__file__).parent / "cases"
DETERMINISTIC_PATHS = frozenset({"fast_path", "confirmation"})
PATHS = frozenset({"fast_path", "confirmation", "model", "none"})
STATUSES = frozenset(
    {"done", "needs_confirmation", "needs_clarification", "refused", "error", "busy"}
)
USERS = frozenset({"admin", "child"})
CASE_KEYS = frozenset(
    {
        "id",
        "category",
        "user",
        "setup",
        "turns",
        "changes",
        "events",
        "items",
        "messages",
        "answer_contains",
        "no_change_because",
    }
)
COMPARISONS = ("below", "above")
"""`brightness_pct: {below: 59}`: a relative change ("dimmer") checked by its direction."""
DEV, HELDOUT, REWORDED = "dev", "heldout", "reworded"
ACTION, ANSWER, NO_CHANGE = "action", "answer", "no_change"
KINDS = (ACTION, ANSWER, NO_CHANGE)
CALENDAR = "calendar.family"
SHOPPING_LIST = "todo.shopping_list"


class CaseError(ValueError):
    """A case file the eval cannot run; the message names the file, the case and the field."""

    def __init__(self, where: str, code: str, message: str) -> None:
        super().__init__(f"{where}: {code}: {message}")
        self.code = code


@dataclass(frozen=True)
class Turn:
    say: str
    statuses: frozenset[str] = frozenset()
    """The answer's status must be one of these (any status when empty)."""
    path: str | None = None
    speech: str | None = None
    """A fragment the answer's speech must contain."""

    @property
    def status(self) -> str | None:
        """The expected status when there is exactly one."""
        return next(iter(self.statuses)) if len(self.statuses) == 1 else None


@dataclass(frozen=True)
class EventSetup:
    summary: str
    start: str
    """A time phrase (tests/eval/when.py); without a time of day, an all-day event."""
    minutes: int = 60
    description: str | None = None


@dataclass(frozen=True)
class ItemSetup:
    summary: str


@dataclass(frozen=True)
class Rename:
    entity_id: str
    name: str


@dataclass(frozen=True)
class ServiceSetup:
    """An HA action run before the request, e.g. to make a precondition false."""

    service: str
    """domain.service"""
    entity_id: str
    data: dict[str, Any] = field(default_factory=dict)


type SetupStep = EventSetup | ItemSetup | Rename | ServiceSetup


@dataclass(frozen=True)
class EventExpectation:
    """An event the family calendar must (or, `absent`, must not) hold afterwards."""

    summary_contains: str
    start: str | None = None
    """A time phrase; without a time of day the event must be all-day on that day."""
    minutes: int | None = None
    absent: bool = False


@dataclass(frozen=True)
class ItemExpectation:
    summary: str
    """Matched case-insensitively against the item's summary (containment)."""
    status: str = "needs_action"
    absent: bool = False


@dataclass(frozen=True)
class MessageExpectation:
    contains: str
    """A fragment of the message HA shows (every phone of the demo lands in the sidebar)."""
    to: str | None = None
    """The notify target an executed send_message must name; None: a sidebar notification."""


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    user: str
    turns: tuple[Turn, ...]
    changes: dict[str, dict[str, Any]] = field(default_factory=dict)
    source: str = ""
    setup: tuple[SetupStep, ...] = ()
    events: tuple[EventExpectation, ...] = ()
    items: tuple[ItemExpectation, ...] = ()
    messages: tuple[MessageExpectation, ...] = ()
    answer_contains: tuple[str, ...] = ()
    no_change_because: str | None = None
    split: str = DEV
    """`dev` (the cases word lists, prompts and grammar may be tuned on), `reworded` (dev
    cases in other words, tuned on too) or `heldout`."""

    @property
    def kind(self) -> str:
        """`action` (a change is required), `answer` (a fact, nothing to change) or
        `no_change` (nothing may change, and the answer is a refusal or a question)."""
        if self.checked_changes or self.events or self.items or self.messages:
            return ACTION
        if self.no_change_because is None and (
            self.answer_contains or any(t.speech for t in self.turns)
        ):
            return ANSWER
        return NO_CHANGE

    @property
    def deterministic(self) -> bool:
        """Every turn is answered without the model: must pass whatever the model is."""
        return all(t.path in DETERMINISTIC_PATHS for t in self.turns)

    @property
    def expects_refusal(self) -> bool:
        return any("refused" in t.statuses for t in self.turns)

    @property
    def checked_changes(self) -> dict[str, dict[str, Any]]:
        """The changes with something to check (`{}` only allows a change)."""
        return {e: want for e, want in self.changes.items() if want}

    @property
    def expected_targets(self) -> frozenset[str]:
        """Every entity the case asks to act on: what an executed action may touch."""
        targets = set(self.changes)
        if self.events:
            targets.add(CALENDAR)
        if self.items:
            targets.add(SHOPPING_LIST)
        targets |= {m.to for m in self.messages if m.to}
        return frozenset(targets)

    @property
    def allows_notification(self) -> bool:
        """A sidebar notification (create_notification, no entity) is asked for."""
        return any(m.to is None for m in self.messages)


def load_cases(folder: Path = CASES) -> list[Case]:
    cases: list[Case] = []
    for path in sorted(folder.glob("*.yaml")):
        raw_cases = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        if not isinstance(raw_cases, list):
            raise CaseError(path.name, "not_a_list", "a case file is a YAML list of cases")
        cases += [parse_case(raw, path.name) for raw in raw_cases]
    ids = [c.id for c in cases]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise CaseError(folder.name, "duplicate_id", ", ".join(sorted(duplicates)))
    return cases


def parse_case(raw: Any, source: str = "<case>") -> Case:
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        raise CaseError(source, "no_id", "every case is a mapping with an `id`")
    where = f"{source}: {raw['id']}"
    unknown = set(raw) - CASE_KEYS
    if unknown:
        raise CaseError(where, "unknown_field", ", ".join(sorted(unknown)))
    for key in ("category", "user"):
        if not isinstance(raw.get(key), str):
            raise CaseError(where, f"no_{key}", f"`{key}` is required")
    if raw["user"] not in USERS:
        raise CaseError(where, "bad_user", "user must be admin or child")
    if not raw.get("turns"):
        raise CaseError(where, "no_turns", "a case has at least one turn")
    case = Case(
        raw["id"],
        raw["category"],
        raw["user"],
        tuple(_turn(t, where) for t in raw["turns"]),
        _changes(raw.get("changes"), where),
        source,
        tuple(_setup_step(s, where) for s in raw.get("setup") or ()),
        tuple(_event(e, where) for e in raw.get("events") or ()),
        tuple(_item(i, where) for i in raw.get("items") or ()),
        tuple(_message(m, where) for m in raw.get("messages") or ()),
        _strings(raw.get("answer_contains"), where, "answer_contains"),
        _reason(raw.get("no_change_because"), where),
    )
    _check_outcome(case, where)
    return case


def _check_outcome(case: Case, where: str) -> None:
    """A model-path case cannot pass by doing nothing."""
    fact = bool(case.answer_contains or any(t.speech for t in case.turns))
    expects = bool(case.checked_changes or case.events or case.items or case.messages or fact)
    if case.no_change_because is not None:
        if case.checked_changes or case.events or case.items or case.messages:
            raise CaseError(
                where, "reason_with_changes", "no_change_because, but the case expects changes"
            )
        asks = any(t.statuses and "done" not in t.statuses for t in case.turns)
        if not case.deterministic and not (asks or fact):
            raise CaseError(
                where,
                "passes_by_doing_nothing",
                "a case that expects no change must expect a refusal or a question (a status "
                "other than done) or a fact (answer_contains, a turn's speech)",
            )
    elif not case.deterministic and not expects:
        raise CaseError(
            where,
            "nothing_expected",
            "a model-path case names an outcome (changes with a state, events, items, "
            "messages, answer_contains, a turn's speech) or says why there is none "
            "(no_change_because)",
        )


def _turn(raw: Any, where: str) -> Turn:
    if not isinstance(raw, dict) or not isinstance(raw.get("say"), str) or not raw["say"].strip():
        raise CaseError(where, "bad_turn", "a turn is {say: text, expect: {...}}")
    expect = raw.get("expect") or {}
    unknown = set(expect) - {"status", "path", "speech"}
    if unknown:
        raise CaseError(where, "unknown_expectation", ", ".join(sorted(unknown)))
    status = expect.get("status")
    statuses = frozenset([status] if isinstance(status, str) else status or ())
    if statuses - STATUSES:
        raise CaseError(where, "bad_status", ", ".join(sorted(statuses - STATUSES)))
    path = expect.get("path")
    if path is not None and path not in PATHS:
        raise CaseError(where, "bad_path", str(path))
    return Turn(raw["say"], statuses, path, expect.get("speech"))


def _changes(raw: Any, where: str) -> dict[str, dict[str, Any]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(isinstance(v, dict | None) for v in raw.values()):
        raise CaseError(where, "bad_changes", "changes maps an entity id to what it must be")
    for entity_id, wanted in raw.items():
        for key, value in (wanted or {}).items():
            if isinstance(value, dict) and (
                not value
                or set(value) - set(COMPARISONS)
                or not all(isinstance(v, int | float) for v in value.values())
            ):
                raise CaseError(
                    where, "bad_changes", f"{entity_id}.{key}: {{below: N}} and/or {{above: N}}"
                )
    return {str(k): dict(v or {}) for k, v in raw.items()}


def _one_key(raw: Any, where: str, kinds: set[str]) -> tuple[str, Any]:
    if not isinstance(raw, dict) or len(raw) != 1 or next(iter(raw)) not in kinds:
        raise CaseError(where, "bad_setup", f"a setup step is one of: {', '.join(sorted(kinds))}")
    key = next(iter(raw))
    return key, raw[key]


def _setup_step(raw: Any, where: str) -> SetupStep:
    kind, value = _one_key(raw, where, {"event", "item", "rename", "call"})
    if kind == "item":
        if not isinstance(value, str) or not value.strip():
            raise CaseError(where, "bad_setup", "item: the item's text")
        return ItemSetup(value)
    fields = _mapping(value, where, f"setup {kind}")
    try:
        if kind == "event":
            step = EventSetup(**fields)
            _time_phrase(step.start, where)
            return step
        if kind == "call":
            call = ServiceSetup(**fields)
            if call.service.count(".") != 1:
                raise CaseError(
                    where, "bad_setup", f"call: service {call.service!r}: domain.service"
                )
            return call
        return Rename(**fields)
    except TypeError as error:
        raise CaseError(where, "bad_setup", f"{kind}: {error}") from None


def _event(raw: Any, where: str) -> EventExpectation:
    try:
        event = EventExpectation(**_mapping(raw, where, "events"))
    except TypeError as error:
        raise CaseError(where, "bad_event", str(error)) from None
    if event.start is not None:
        _time_phrase(event.start, where)
    if event.absent and (event.start or event.minutes):
        raise CaseError(where, "bad_event", "an absent event is named by its summary only")
    return event


def _item(raw: Any, where: str) -> ItemExpectation:
    try:
        item = ItemExpectation(**_mapping(raw, where, "items"))
    except TypeError as error:
        raise CaseError(where, "bad_item", str(error)) from None
    if item.status not in {"needs_action", "completed"}:
        raise CaseError(where, "bad_item", f"status {item.status!r}: needs_action or completed")
    return item


def _message(raw: Any, where: str) -> MessageExpectation:
    try:
        message = MessageExpectation(**_mapping(raw, where, "messages"))
    except TypeError as error:
        raise CaseError(where, "bad_message", str(error)) from None
    if message.to is not None and not message.to.startswith("notify."):
        raise CaseError(where, "bad_message", f"to {message.to!r}: a notify target")
    return message


def _mapping(raw: Any, where: str, what: str) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise CaseError(where, "bad_field", f"{what}: a mapping")
    return {str(k): v for k, v in raw.items()}


def _time_phrase(phrase: Any, where: str) -> None:
    try:
        has_time(str(phrase))
    except WhenError as error:
        raise CaseError(where, "bad_time", str(error)) from None


def _strings(raw: Any, where: str, what: str) -> tuple[str, ...]:
    values = [raw] if isinstance(raw, str) else raw or []
    if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
        raise CaseError(where, "bad_field", f"{what}: a text or a list of texts")
    return tuple(values)


def _reason(raw: Any, where: str) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw.strip():
        raise CaseError(where, "bad_reason", "no_change_because: say why, in words")
    return raw

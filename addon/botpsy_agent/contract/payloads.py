"""The app's messages as the integration reads them: typed, checked, with a clear error.

Each `from_json` takes a message the app signed (its signature already checked, `sigs` and
`ts` are ignored) and raises `ContractError` naming the field that breaks the contract
(docs/mqtt-api.md). Fields this version does not know are ignored: a newer app may add some.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from .codes import QUESTIONS, Outcome, Status

DEFAULT_LANGUAGES: Final = ("en", "ko", "id")
"""What an app that does not list its languages speaks."""


class ContractError(ValueError):
    """A message of the app that breaks the contract: which message, which field, why."""


class BrokerAcl(StrEnum):
    """What the app found of the broker's ACL (docs/mqtt-api.md, `info`)."""

    ON = "on"
    OFF = "off"
    UNKNOWN = "unknown"


def _object(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ContractError(f"{where} must be a JSON object")
    return value


def _text(document: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = document.get(key, default)
    if not isinstance(value, str):
        raise ContractError(f"{where}.{key} must be a string")
    return value


def _optional_text(document: Mapping[str, Any], key: str, where: str) -> str | None:
    value = document.get(key)
    if value is not None and not isinstance(value, str):
        raise ContractError(f"{where}.{key} must be a string or null")
    return value


def _texts(document: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = document.get(key) or []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ContractError(f"{where}.{key} must be a list of strings")
    return tuple(value)


def _list(document: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = document.get(key) or []
    if not isinstance(value, list):
        raise ContractError(f"{where}.{key} must be a list")
    return value


def _choice[E: StrEnum](kind: type[E], value: object, where: str) -> E:
    for member in kind:
        if value == member.value:
            return member
    allowed = ", ".join(member.value for member in kind)
    raise ContractError(f"{where} must be one of {allowed}, not {value!r}")


@dataclass(frozen=True)
class ResponseError:
    code: str
    """An `ErrorCode` of the front door's, or one of the agent's (`ha_error`, …)."""
    message: str

    @classmethod
    def from_json(cls, value: object, where: str) -> ResponseError | None:
        if value is None:
            return None
        error = _object(value, where)
        return cls(_text(error, "code", where), _text(error, "message", where, ""))


@dataclass(frozen=True)
class ActionSummary:
    """What an answer says of one action (its arguments and results stay in the JSON)."""

    tool: str
    outcome: Outcome
    entity_ids: tuple[str, ...] = ()
    error: ResponseError | None = None

    @classmethod
    def from_json(cls, value: object, where: str) -> ActionSummary:
        action = _object(value, where)
        return cls(
            _text(action, "tool", where),
            _choice(Outcome, action.get("outcome"), f"{where}.outcome"),
            _texts(action, "entity_ids", where),
            ResponseError.from_json(action.get("error"), f"{where}.error"),
        )


@dataclass(frozen=True)
class AppResponse:
    """The answer to one request (docs/mqtt-api.md, Responses), its seal opened."""

    id: str | None
    status: Status
    speech: str = ""
    conversation_id: str | None = None
    actions: tuple[ActionSummary, ...] = ()
    error: ResponseError | None = None
    document: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """The answer as it came (without `sigs`): what the `ask` action returns."""

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> AppResponse:
        where = "answer"
        _object(document, where)
        plain = {key: value for key, value in document.items() if key != "sigs"}
        return cls(
            id=_optional_text(document, "id", where),
            status=_choice(Status, document.get("status"), f"{where}.status"),
            speech=_text(document, "speech", where, ""),
            conversation_id=_optional_text(document, "conversation_id", where),
            actions=tuple(
                ActionSummary.from_json(action, f"{where}.actions[{index}]")
                for index, action in enumerate(_list(document, "actions", where))
            ),
            error=ResponseError.from_json(document.get("error"), f"{where}.error"),
            document=plain,
        )

    @property
    def error_code(self) -> str | None:
        return None if self.error is None else self.error.code

    @property
    def asks(self) -> bool:
        """A question to the requester: the conversation goes on."""
        return self.status in QUESTIONS

    def entities(self, outcome: Outcome) -> tuple[str, ...]:
        """The entities of the actions that ended in `outcome`, each once, in order."""
        found = (e for a in self.actions if a.outcome is outcome for e in a.entity_ids)
        return tuple(dict.fromkeys(found))

    def tools(self, outcome: Outcome) -> tuple[str, ...]:
        """The tools of the actions that ended in `outcome`, in order."""
        return tuple(action.tool for action in self.actions if action.outcome is outcome)


@dataclass(frozen=True)
class AppInfo:
    """The app's retained `info` (docs/mqtt-api.md, Info)."""

    version: str | None = None
    model_file: str | None = None
    languages: tuple[str, ...] = DEFAULT_LANGUAGES
    broker_acl: BrokerAcl | None = None
    """None: an older app that does not say."""
    document: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """The info as it came (without `sigs`), for diagnostics."""

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> AppInfo:
        where = "info"
        _object(document, where)
        model = document.get("model")
        acl = document.get("broker_acl")
        in_model = f"{where}.model"
        model_file = None if model is None else _text(_object(model, in_model), "file", in_model)
        return cls(
            version=_optional_text(document, "version", where),
            model_file=model_file,
            languages=_texts(document, "languages", where) or DEFAULT_LANGUAGES,
            broker_acl=None if acl is None else _choice(BrokerAcl, acl, "info.broker_acl"),
            document={key: value for key, value in document.items() if key != "sigs"},
        )


class Presence(StrEnum):
    ONLINE = "online"
    OFFLINE = "offline"


@dataclass(frozen=True)
class AppStatus:
    """The app's retained, signed `status`: whether the connection `session` is up."""

    presence: Presence
    session: str
    ts: int

    @property
    def online(self) -> bool:
        return self.presence is Presence.ONLINE

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> AppStatus:
        where = "status"
        _object(document, where)
        ts = document.get("ts")
        if not isinstance(ts, int) or isinstance(ts, bool):
            raise ContractError("status.ts must be an integer")
        return cls(
            _choice(Presence, document.get("state"), "status.state"),
            _text(document, "session", where),
            ts,
        )


@dataclass(frozen=True)
class Pairing:
    """One secret the app holds, by its public id (the fingerprint) and label."""

    id: str
    label: str = ""


def pairings_from_json(document: Mapping[str, Any]) -> tuple[Pairing, ...]:
    """The secrets listed in the app's signed `pairing/state`."""
    where = "pairing/state"
    listed = _object(document, where).get("pairings")
    if not isinstance(listed, list):
        raise ContractError("pairing/state.pairings must be a list")
    pairings = []
    for index, value in enumerate(listed):
        entry = _object(value, f"{where}.pairings[{index}]")
        here = f"{where}.pairings[{index}]"
        pairings.append(Pairing(_text(entry, "id", here), _text(entry, "label", here, "")))
    return tuple(pairings)


@dataclass(frozen=True)
class PolicyVerdict:
    """What the app made of one permission update (`last_update` of `policy/state`)."""

    key: str
    revision: int
    status: str
    """`applied` or `refused`."""
    problems: tuple[str, ...] = ()

    @classmethod
    def of_state(cls, document: Mapping[str, Any]) -> PolicyVerdict | None:
        """The verdict in a `policy/state`; None before the first update."""
        last = _object(document, "policy/state").get("last_update")
        if last is None:
            return None
        where = "policy/state.last_update"
        verdict = _object(last, where)
        revision = verdict.get("revision")
        if not isinstance(revision, int) or isinstance(revision, bool):
            raise ContractError(f"{where}.revision must be an integer")
        return cls(
            _text(verdict, "key", where),
            revision,
            _text(verdict, "status", where),
            _texts(verdict, "problems", where),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "revision": self.revision,
            "status": self.status,
            "problems": list(self.problems),
        }


STARTUP_PROBLEM_EVENT = "botpsy_startup_problem"
"""The HA event the app fires when it cannot start (HA's REST API, which lets only an admin
token fire events). The integration of its instance raises it as a repair issue."""
TITLE_LIMIT = 200
MESSAGE_LIMIT = 4000


@dataclass(frozen=True)
class StartupReport:
    """Why the app `instance` did not start: the title and text of its HA notification,
    which name options, error codes and the fix, never a secret (docs/mqtt-api.md)."""

    instance: str
    title: str
    message: str
    notification_id: str
    """The notification that says the same to every user, which the repair issue replaces."""

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> StartupReport:
        where = STARTUP_PROBLEM_EVENT
        _object(document, where)
        report = cls(
            _text(document, "instance", where),
            _text(document, "title", where),
            _text(document, "message", where),
            _text(document, "notification_id", where),
        )
        if not report.title or len(report.title) > TITLE_LIMIT:
            raise ContractError(f"{where}.title must hold 1 to {TITLE_LIMIT} characters")
        if len(report.message) > MESSAGE_LIMIT:
            raise ContractError(f"{where}.message must hold at most {MESSAGE_LIMIT} characters")
        if not report.notification_id.startswith(f"botpsy_{report.instance}_"):
            raise ContractError(f"{where}.notification_id must be one of the instance's")
        return report

    def to_json(self) -> dict[str, str]:
        return {
            "instance": self.instance,
            "title": self.title[:TITLE_LIMIT],
            "message": self.message[:MESSAGE_LIMIT],
            "notification_id": self.notification_id,
        }

"""A request payload, read and checked: a `WireRequest`, or a `Rejection` with its code.

The fields are one table (`request_fields`); the checks and the JSON Schema in
`tool_schemas/json/mqtt_request.json` both come from it. Who the requester is gets decided
later (`auth`); this module only answers "is this a well-formed request?".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
import json
import re
from typing import Any

from botpsy_agent.audit import quoted_names
from botpsy_agent.contract import ErrorCode
from botpsy_agent.mqtt.settings import ApiSettings

ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.:-]*"
USER_ID_PATTERN = r"[A-Za-z0-9_-]+"
SIG_PATTERN = r"[0-9a-f]{64}"
LANGUAGE_PATTERN = r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*"
HA_ORIGIN = "homeassistant"
"""The one `origin` a request may claim: Home Assistant itself (signed, issue 25)."""
MAX_ID_CHARS = 128
MAX_TS = 2**53  # what every JSON implementation reads exactly


def json_payload(value: Any) -> bytes:
    """A JSON message body as the app publishes it: compact UTF-8."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass(frozen=True)
class FieldSpec:
    """One request field: its JSON type and the limits a value must keep."""

    name: str
    kind: type[str] | type[int] | type[bool]
    description: str
    required: bool = False
    max_length: int | None = None
    pattern: str | None = None
    """A full-match regular expression (the JSON Schema anchors it)."""
    too_long: ErrorCode = ErrorCode.FIELD_TOO_LONG
    mismatch: ErrorCode = ErrorCode.INVALID_VALUE
    echo: bool = True
    """Whether an error message may quote the value (never for signatures)."""


def request_fields(settings: ApiSettings) -> tuple[FieldSpec, ...]:
    """Every field a request may carry, in the order they are checked."""
    return (
        FieldSpec(
            "id",
            str,
            "Client-chosen, unique per request; echoed in the response. "
            "Resending the same id retries: the first outcome is answered again.",
            required=True,
            max_length=MAX_ID_CHARS,
            pattern=ID_PATTERN,
            too_long=ErrorCode.INVALID_ID,
            mismatch=ErrorCode.INVALID_ID,
        ),
        FieldSpec(
            "text",
            str,
            "What the user said or typed.",
            required=True,
            max_length=settings.max_text_chars,
            too_long=ErrorCode.TEXT_TOO_LONG,
        ),
        FieldSpec(
            "language",
            str,
            f"BCP 47 tag; its primary language must be one of {list(settings.languages)}. "
            f"Default {settings.languages[0]}.",
            max_length=35,
            pattern=LANGUAGE_PATTERN,
            too_long=ErrorCode.UNKNOWN_LANGUAGE,
            mismatch=ErrorCode.UNKNOWN_LANGUAGE,
        ),
        FieldSpec(
            "conversation_id",
            str,
            "Continues an earlier conversation (follow-ups, confirmations).",
            max_length=MAX_ID_CHARS,
            pattern=ID_PATTERN,
        ),
        FieldSpec(
            "reply_to",
            str,
            "Topic for the response; under <base>/<instance>/response (a named principal: "
            "under its own response/<name>). Default: that response topic itself.",
            max_length=256,
        ),
        FieldSpec(
            "user_id",
            str,
            "The HA user the request acts for; then `ts` and `sig` are required.",
            max_length=64,
            pattern=USER_ID_PATTERN,
        ),
        FieldSpec(
            "origin",
            str,
            f"`{HA_ORIGIN}`: Home Assistant itself sends it (a voice satellite, an "
            "automation), without a user; then `ts` and `sig` are required.",
            max_length=len(HA_ORIGIN),
            pattern=HA_ORIGIN,
        ),
        FieldSpec(
            "ts",
            int,
            "Unix time in whole seconds when the request was signed.",
        ),
        FieldSpec(
            "sig",
            str,
            "Lowercase hex HMAC-SHA256 of the canonical request (docs/mqtt-api.md).",
            max_length=64,
            pattern=SIG_PATTERN,
            echo=False,
        ),
        FieldSpec(
            "device_id",
            str,
            "HA device where the speaker is (a satellite), for 'the lights here'.",
            max_length=MAX_ID_CHARS,
            pattern=ID_PATTERN,
        ),
        FieldSpec(
            "area_id",
            str,
            "HA area where the speaker is.",
            max_length=MAX_ID_CHARS,
            pattern=ID_PATTERN,
        ),
        FieldSpec("dry_run", bool, "Plan and authorise only; execute nothing."),
        FieldSpec(
            "seal",
            bool,
            "Signed requests only: the answer's speech and actions are sealed to the secret "
            "that signed it (docs/mqtt-api.md, *Sealed answers*).",
        ),
    )


@dataclass(frozen=True)
class WireRequest:
    """A well-formed request, as the client sent it (not yet authenticated)."""

    id: str
    text: str
    language: str
    document: Mapping[str, Any]
    """The whole decoded object: signatures are checked over it."""
    conversation_id: str | None = None
    reply_to: str | None = None
    user_id: str | None = None
    origin: str | None = None
    """`homeassistant` for Home Assistant's own signed requests."""
    ts: int | None = None
    sig: str | None = None
    device_id: str | None = None
    area_id: str | None = None
    dry_run: bool = False
    seal: bool = False

    @property
    def signed(self) -> bool:
        """It claims a signer (an HA user, or Home Assistant itself)."""
        return self.user_id is not None or self.origin is not None


@dataclass(frozen=True)
class Rejection:
    """Why a payload is not a request, and what of it could still address an answer."""

    code: ErrorCode
    message: str
    request_id: str | None = None
    """The payload's `id`, when it was a valid one."""
    reply_to: str | None = None
    """The payload's `reply_to`, when it was a string (checked before use)."""


class _DuplicateField(ValueError):
    pass


class RequestParser:
    """Reads request payloads under one set of limits."""

    def __init__(self, settings: ApiSettings) -> None:
        self._max_bytes = settings.max_payload_bytes
        self._languages = tuple(lang.lower() for lang in settings.languages)
        self._fields = request_fields(settings)
        self._names = frozenset(spec.name for spec in self._fields)
        self._patterns = {
            spec.name: re.compile(spec.pattern) for spec in self._fields if spec.pattern
        }

    def parse(self, payload: bytes, *, retained: bool = False) -> WireRequest | Rejection:
        document = self._decode(payload)
        if isinstance(document, Rejection):
            return document
        request_id = _valid_id(document.get("id"))
        reply_to = document.get("reply_to")
        reply_to = reply_to if isinstance(reply_to, str) else None
        if retained:
            return Rejection(
                ErrorCode.RETAINED_REQUEST,
                "retained requests are never executed (they replay on every connect); "
                "publish requests with retain=false and clear this one with an empty "
                "retained message",
                request_id,
                reply_to,
            )
        if problem := self._problem(document):
            return Rejection(*problem, request_id, reply_to)
        return WireRequest(
            id=document["id"],
            text=document["text"],
            language=self._language(document.get("language")) or "",
            document=document,
            conversation_id=document.get("conversation_id"),
            reply_to=reply_to,
            user_id=document.get("user_id"),
            origin=document.get("origin"),
            ts=document.get("ts"),
            sig=document.get("sig"),
            device_id=document.get("device_id"),
            area_id=document.get("area_id"),
            dry_run=document.get("dry_run", False),
            seal=document.get("seal", False),
        )

    def _problem(self, document: Mapping[str, Any]) -> tuple[ErrorCode, str] | None:
        """The first thing wrong with a decoded object, in a fixed order."""
        if unknown := sorted(set(document) - self._names):
            # Names chosen by the sender: printable, or they forge log and audit lines.
            return ErrorCode.UNKNOWN_FIELD, f"unknown field(s): {quoted_names(unknown)}"
        for spec in self._fields:
            if problem := self._field_problem(spec, document):
                return problem
        if not document["text"].strip():
            return ErrorCode.EMPTY_TEXT, "text is empty"
        if self._language(document.get("language")) is None:
            return (
                ErrorCode.UNKNOWN_LANGUAGE,
                f"language {document['language']!r} is not one of {list(self._languages)}",
            )
        return _signer_problem(document)

    def _decode(self, payload: bytes) -> dict[str, Any] | Rejection:
        if len(payload) > self._max_bytes:
            return Rejection(
                ErrorCode.PAYLOAD_TOO_LARGE,
                f"payload is {len(payload)} bytes; the limit is {self._max_bytes}",
            )
        if not payload.strip():
            return Rejection(ErrorCode.EMPTY_PAYLOAD, "payload is empty; send a JSON object")
        try:
            text = payload.decode("utf-8")
        except UnicodeDecodeError as err:
            return Rejection(ErrorCode.INVALID_ENCODING, f"payload is not UTF-8 (byte {err.start})")
        return _json_object(text)

    def _field_problem(
        self, spec: FieldSpec, document: Mapping[str, Any]
    ) -> tuple[ErrorCode, str] | None:
        if spec.name not in document:
            if spec.required:
                return ErrorCode.MISSING_FIELD, f"{spec.name} is required"
            return None
        value = document[spec.name]
        if not _has_kind(value, spec.kind):
            expected = {str: "a string", int: "an integer", bool: "true or false"}[spec.kind]
            return (
                ErrorCode.WRONG_TYPE,
                f"{spec.name} must be {expected}, not {_json_type(value)}",
            )
        if isinstance(value, str):
            return self._string_problem(spec, value)
        if isinstance(value, int) and not isinstance(value, bool) and not 0 <= value < MAX_TS:
            return ErrorCode.INVALID_VALUE, f"{spec.name} must be between 0 and 2^53"
        return None

    def _string_problem(self, spec: FieldSpec, value: str) -> tuple[ErrorCode, str] | None:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return ErrorCode.INVALID_ENCODING, f"{spec.name} holds an unpaired surrogate"
        if spec.max_length is not None and len(value) > spec.max_length:  # characters
            return (
                spec.too_long,
                f"{spec.name} is {len(value)} characters; the limit is {spec.max_length}",
            )
        pattern = self._patterns.get(spec.name)
        if pattern is not None and not pattern.fullmatch(value):
            quoted = f" {value[:40]!r}" if spec.echo else ""
            return spec.mismatch, f"{spec.name}{quoted} must match {spec.pattern}"
        return None

    def _language(self, value: str | None) -> str | None:
        if value is None:
            return self._languages[0]
        primary = value.split("-", 1)[0].lower()
        return primary if primary in self._languages else None


def _signer_problem(document: Mapping[str, Any]) -> tuple[ErrorCode, str] | None:
    """A signature without a signer, or two signers."""
    if "user_id" in document and "origin" in document:
        return ErrorCode.INVALID_VALUE, "a request names a user_id or an origin, not both"
    signer = "user_id" in document or "origin" in document
    if not signer and any(name in document for name in ("sig", "ts", "seal")):
        return (
            ErrorCode.UNEXPECTED_SIGNATURE,
            "sig, ts and seal only belong to a request that names a user_id or an origin",
        )
    return None


def _json_object(text: str) -> dict[str, Any] | Rejection:
    try:
        document = json.loads(text, object_pairs_hook=_unique_object, parse_constant=_no_constant)
    except _DuplicateField as err:
        return Rejection(ErrorCode.DUPLICATE_FIELD, str(err))
    except ValueError as err:  # json.JSONDecodeError is one
        return Rejection(ErrorCode.INVALID_JSON, f"payload is not valid JSON: {err}")
    except RecursionError:
        return Rejection(ErrorCode.INVALID_JSON, "payload nests too deeply")
    if not isinstance(document, dict):
        return Rejection(
            ErrorCode.NOT_AN_OBJECT, f"payload must be a JSON object, not {_json_type(document)}"
        )
    return document


def _valid_id(value: Any) -> str | None:
    if isinstance(value, str) and len(value) <= MAX_ID_CHARS and re.fullmatch(ID_PATTERN, value):
        return value
    return None


def _has_kind(value: Any, kind: type) -> bool:
    if kind is int:  # JSON true/false are not numbers, even though bool is an int in Python
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateField(f"field {key!r} appears more than once")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json_type(value: Any) -> str:
    match value:
        case None:
            return "null"
        case bool():
            return "a boolean"
        case int() | float():
            return "a number"
        case str():
            return "a string"
        case list():
            return "an array"
        case _:
            return "an object"

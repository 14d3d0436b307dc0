"""Malformed request payloads, each with the error code it must be answered with.

Shared by the parser's unit tests and the end-to-end test over the real broker.
"""

from __future__ import annotations

from dataclasses import dataclass
import json
from typing import Any

from botpsy_agent.contract import ErrorCode


@dataclass(frozen=True)
class Malformed:
    name: str
    payload: bytes
    code: ErrorCode
    request_id: str | None = None
    """The id the answer must echo (None: the payload has no usable id)."""
    retained: bool = False


def _obj(**fields: Any) -> bytes:
    return json.dumps(fields).encode()


MALFORMED: tuple[Malformed, ...] = (
    Malformed("too large", _obj(id="m1", text="x" * 20_000), ErrorCode.PAYLOAD_TOO_LARGE),
    Malformed("empty", b"   ", ErrorCode.EMPTY_PAYLOAD),
    Malformed("not UTF-8", b'{"id": "m3", "text": "caf\xe9"}', ErrorCode.INVALID_ENCODING),
    Malformed("not JSON", b'{"id": "m4", "text": ', ErrorCode.INVALID_JSON),
    Malformed("NaN is not JSON", b'{"id": "m5", "text": "hi", "ts": NaN}', ErrorCode.INVALID_JSON),
    Malformed("trailing garbage", b'{"id": "m6", "text": "hi"} and more', ErrorCode.INVALID_JSON),
    Malformed("an array", b'[{"id": "m7", "text": "hi"}]', ErrorCode.NOT_AN_OBJECT),
    Malformed("a bare string", b'"turn on the light"', ErrorCode.NOT_AN_OBJECT),
    Malformed(
        "duplicate field",
        b'{"id": "m9", "text": "hi", "text": "unlock the door"}',
        ErrorCode.DUPLICATE_FIELD,
    ),
    Malformed(
        "unknown field", _obj(id="m10", text="hi", languge="en"), ErrorCode.UNKNOWN_FIELD, "m10"
    ),
    Malformed("missing id", _obj(text="hi"), ErrorCode.MISSING_FIELD),
    Malformed("missing text", _obj(id="m12"), ErrorCode.MISSING_FIELD, "m12"),
    Malformed("id not a string", _obj(id=13, text="hi"), ErrorCode.WRONG_TYPE),
    Malformed("text not a string", _obj(id="m14", text=["hi"]), ErrorCode.WRONG_TYPE, "m14"),
    Malformed(
        "dry_run not a boolean",
        _obj(id="m15", text="hi", dry_run="yes"),
        ErrorCode.WRONG_TYPE,
        "m15",
    ),
    Malformed(
        "ts a float",
        _obj(id="m16", text="hi", user_id="u1", ts=1.5, sig="0" * 64),
        ErrorCode.WRONG_TYPE,
        "m16",
    ),
    Malformed(
        "ts a boolean",
        _obj(id="m17", text="hi", user_id="u1", ts=True, sig="0" * 64),
        ErrorCode.WRONG_TYPE,
        "m17",
    ),
    Malformed("id with a space", _obj(id="m 18", text="hi"), ErrorCode.INVALID_ID),
    Malformed("id too long", _obj(id="m" * 129, text="hi"), ErrorCode.INVALID_ID),
    Malformed("blank text", _obj(id="m20", text="  \n "), ErrorCode.EMPTY_TEXT, "m20"),
    Malformed("text too long", _obj(id="m21", text="x" * 2001), ErrorCode.TEXT_TOO_LONG, "m21"),
    Malformed(
        "unknown language",
        _obj(id="m22", text="hi", language="fr"),
        ErrorCode.UNKNOWN_LANGUAGE,
        "m22",
    ),
    Malformed(
        "malformed language",
        _obj(id="m23", text="hi", language="english!"),
        ErrorCode.UNKNOWN_LANGUAGE,
        "m23",
    ),
    Malformed(
        "conversation id with a slash",
        _obj(id="m24", text="hi", conversation_id="a/b"),
        ErrorCode.INVALID_VALUE,
        "m24",
    ),
    Malformed(
        "device id too long",
        _obj(id="m25", text="hi", device_id="d" * 200),
        ErrorCode.FIELD_TOO_LONG,
        "m25",
    ),
    Malformed(
        "unpaired surrogate",
        b'{"id": "m26", "text": "hi \\ud800"}',
        ErrorCode.INVALID_ENCODING,
        "m26",
    ),
    Malformed(
        "negative ts",
        _obj(id="m27", text="hi", user_id="u1", ts=-5, sig="0" * 64),
        ErrorCode.INVALID_VALUE,
        "m27",
    ),
    Malformed(
        "signature in capitals",
        _obj(id="m28", text="hi", user_id="u1", ts=5, sig="A" * 64),
        ErrorCode.INVALID_VALUE,
        "m28",
    ),
    Malformed(
        "signature without a user",
        _obj(id="m29", text="hi", ts=5, sig="0" * 64),
        ErrorCode.UNEXPECTED_SIGNATURE,
        "m29",
    ),
    Malformed(
        "retained", _obj(id="m30", text="hi"), ErrorCode.RETAINED_REQUEST, "m30", retained=True
    ),
)

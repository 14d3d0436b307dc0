"""Fuzzing the MQTT request parser: any bytes, any JSON, near-valid requests with wrong
types, huge numbers, look-alike letters and cut-off payloads. Each is read as a request or
rejected with one of the API's error codes and a message; nothing raises."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, strategies as st

from botpsy_agent.contract import ErrorCode, sign
from botpsy_agent.mqtt import ApiSettings
from botpsy_agent.mqtt.wire import Rejection, RequestParser, WireRequest, request_fields
from tests.fuzz.strategies import BOUNDED, HUGE_NUMBERS, confusable, json_values, truncations

SETTINGS = ApiSettings(instance="home", languages=("en", "ko"))
PARSER = RequestParser(SETTINGS)
FIELDS = [spec.name for spec in request_fields(SETTINGS)]
VALID = json.dumps(
    sign({"id": "req-1", "text": "turn on the kitchen lights", "user_id": "abc123"}, "s" * 20)
)


def read(payload: bytes, *, retained: bool = False) -> WireRequest | Rejection:
    result = PARSER.parse(payload, retained=retained)
    if isinstance(result, Rejection):
        assert isinstance(result.code, ErrorCode)
        assert result.message.strip()
        if result.request_id is not None:
            assert len(result.request_id) <= 128
    else:
        assert isinstance(result, WireRequest)
        assert result.id and result.text.strip()
        assert result.language.split("-")[0].lower() in SETTINGS.languages
    return result


@BOUNDED
@given(st.binary(max_size=400), st.booleans())
def test_any_bytes(payload: bytes, retained: bool) -> None:
    read(payload, retained=retained)


@BOUNDED
@given(json_values())
def test_any_json(value: Any) -> None:
    read(json.dumps(value).encode())


@BOUNDED
@given(st.dictionaries(st.sampled_from(FIELDS), json_values(6), min_size=1, max_size=8))
def test_known_fields_with_any_values(document: dict[str, Any]) -> None:
    read(json.dumps(document).encode())


@BOUNDED
@given(truncations(VALID))
def test_a_signed_request_cut_off_anywhere(cut: str) -> None:
    result = read(cut.encode())
    if len(cut) < len(VALID):
        assert isinstance(result, Rejection)


@BOUNDED
@given(HUGE_NUMBERS, st.sampled_from(["ts", "id", "text", "dry_run"]))
def test_huge_numbers_in_any_field(number: float, field: str) -> None:
    document = {"id": "n1", "text": "hi", "user_id": "u1", "ts": 1, "sig": "0" * 64}
    document[field] = number
    result = read(json.dumps(document).encode())
    assert isinstance(result, Rejection) or field == "ts"


@BOUNDED
@given(confusable("light.kitchen_lights"), confusable("req-1"), confusable("botpsy/home/response"))
def test_look_alike_letters_in_ids_and_addresses(text: str, request_id: str, reply: str) -> None:
    result = read(json.dumps({"id": request_id, "text": text, "reply_to": reply}).encode())
    if request_id != "req-1":
        assert isinstance(result, Rejection) and result.code is ErrorCode.INVALID_ID


@BOUNDED
@given(st.text(min_size=1, max_size=3000))
def test_any_text(text: str) -> None:
    read(
        json.dumps({"id": "t1", "text": text}, ensure_ascii=False).encode("utf-8", "surrogatepass")
    )

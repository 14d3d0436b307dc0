"""docs/mqtt-api.md and the exported JSON Schemas say what the code does."""

from __future__ import annotations

import json
from pathlib import Path
import re

from botpsy_agent.contract import ErrorCode, canonical_bytes, signature_matches
from botpsy_agent.mqtt import ApiSettings, Topics
from botpsy_agent.mqtt.schema import request_schema, stale_files
from botpsy_agent.mqtt.wire import RequestParser, WireRequest, request_fields

DOCS = Path(__file__).resolve().parents[2] / "docs" / "mqtt-api.md"
DOC_SECRET = "example-secret-do-not-use-0123456789"


def test_the_exported_schemas_are_fresh() -> None:
    assert stale_files() == [], "run: script/run python -m botpsy_agent.mqtt.schema"


def test_the_request_schema_and_the_parser_share_one_field_table() -> None:
    schema = request_schema()
    fields = request_fields(ApiSettings())
    assert list(schema["properties"]) == [spec.name for spec in fields]
    assert schema["required"] == ["id", "text"]
    assert schema["additionalProperties"] is False


def test_the_docs_table_every_error_code_with_its_status() -> None:
    table = DOCS.read_text().split("### Error codes of the front door", 1)[1].split("\n#", 1)[0]
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| (error|refused|busy) \|", table, re.M))
    assert rows == {code.value: code.status.value for code in ErrorCode}


def test_the_docs_name_every_topic() -> None:
    text = DOCS.read_text()
    topics = Topics.of(ApiSettings(instance="home"))
    for topic in (
        topics.status,
        topics.info,
        topics.tools,
        topics.stats,
        topics.events,
        topics.request,
        topics.response,
        topics.reload_model,
        topics.ha_status,
    ):
        generic = topic.replace("/home/", "/<instance>/").replace(
            "botpsy_home", "botpsy_<instance>"
        )
        assert f"`{generic}" in text, generic
    assert "homeassistant/device/botpsy_<instance>/config" in text


def test_the_documented_signed_example_verifies_and_parses() -> None:
    text = DOCS.read_text()
    block = text.split("<!-- signed-example -->", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    example = json.loads(block)
    assert signature_matches(example, example["sig"], [DOC_SECRET])
    assert f"`{canonical_bytes(example).decode()}`" in text
    assert isinstance(RequestParser(ApiSettings()).parse(block.encode()), WireRequest)

"""The integration is installed alone, so it keeps its own copy of the MQTT contract; these
tests hold each copy equal to the app's (as `test_package.py` does for `spake2.py`)."""

from __future__ import annotations

import pytest

from botpsy_agent.agent.protocol import Status
from botpsy_agent.mqtt.codes import ErrorCode
from botpsy_agent.mqtt.settings import INSTANCE_PATTERN as APP_INSTANCE_PATTERN, ApiSettings
from botpsy_agent.mqtt.topics import Topics
from custom_components.botpsy.answers import AUTH_CODES, DOOR_CODES, QUESTIONS
from custom_components.botpsy.const import BASE_TOPIC, HA_PRINCIPAL, INSTANCE_PATTERN
from custom_components.botpsy.topics import AgentTopics

SHARED_TOPICS = (
    "root",
    "device_id",
    "status",
    "info",
    "events",
    "pairing_open",
    "pairing_revoke",
    "pairing_request",
    "pairing_state",
    "policy_state",
)


@pytest.mark.parametrize("instance", ["home", "living-room", "flat_2"])
def test_the_integrations_topics_are_the_apps(instance: str) -> None:
    app = Topics.of(ApiSettings(instance=instance))
    integration = AgentTopics(instance)
    for name in SHARED_TOPICS:
        assert getattr(integration, name) == getattr(app, name), name
    assert integration.pairing_response("s1") == app.pairing_response("s1")
    assert app.policy_update_key(integration.policy_set("ui-anna")) == "ui-anna"
    assert integration.request == f"{app.request}/{HA_PRINCIPAL}"
    assert app.principal_of(integration.request) == HA_PRINCIPAL
    assert app.reply_problem(integration.reply("k1"), HA_PRINCIPAL) is None


def test_the_integration_accepts_the_instances_the_app_does() -> None:
    assert INSTANCE_PATTERN.pattern == APP_INSTANCE_PATTERN.pattern
    assert ApiSettings().base_topic == BASE_TOPIC


def test_the_integrations_error_codes_are_the_apps() -> None:
    """Each code the integration sorts an answer by is one the app sends, with that status."""
    app = {code.value: code.status for code in ErrorCode}
    refused = {code for code, status in app.items() if status is Status.REFUSED}
    assert refused - {ErrorCode.UNKNOWN_PRINCIPAL.value} == AUTH_CODES  # never an HA user's
    assert {code for code, status in app.items() if status is Status.ERROR} - {
        ErrorCode.SHUTTING_DOWN.value
    } == DOOR_CODES
    assert {Status.NEEDS_CONFIRMATION.value, Status.NEEDS_CLARIFICATION.value} == QUESTIONS

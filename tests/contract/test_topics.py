"""The topics the integration uses are the ones the app serves and accepts."""

from __future__ import annotations

import pytest

from botpsy_agent.contract import HA_PRINCIPAL, INSTANCE_PATTERN, STATUS_WILDCARD, InstanceTopics
from botpsy_agent.mqtt import ApiSettings, Topics


@pytest.mark.parametrize("instance", ["home", "living-room", "flat_2"])
def test_home_assistants_request_and_answer_topics_are_ones_the_app_accepts(instance: str) -> None:
    app = Topics.of(ApiSettings(instance=instance))
    integration = InstanceTopics(instance)
    assert app.root == integration.root == f"botpsy/{instance}"
    assert app.device_id == integration.device_id == f"botpsy_{instance.replace('-', '_')}"
    assert app.principal_of(integration.request_of(HA_PRINCIPAL)) == HA_PRINCIPAL
    reply = f"{integration.response_of(HA_PRINCIPAL)}/entry-1"
    assert app.reply_problem(reply, HA_PRINCIPAL) is None
    assert app.reply_problem(reply, "panel") is not None  # not another principal's
    assert app.policy_update_key(integration.policy_set("ui-anna")) == "ui-anna"
    assert app.policy_update_key(integration.policy_state) is None
    assert integration.status == STATUS_WILDCARD.replace("+", instance)


def test_the_app_serves_under_any_base_the_integration_finds_under_its_own() -> None:
    app = Topics.of(ApiSettings(instance="home", base_topic="house/botpsy"))
    assert app.status == "house/botpsy/home/status"
    assert Topics.of(ApiSettings()).base == InstanceTopics("home").base


def test_the_app_takes_only_instances_the_integration_accepts() -> None:
    assert INSTANCE_PATTERN.fullmatch(ApiSettings().instance)
    for bad in ("Home", "-home", "a" * 33, "home/x"):
        assert not INSTANCE_PATTERN.fullmatch(bad)
        with pytest.raises(ValueError, match="instance"):
            ApiSettings(instance=bad)

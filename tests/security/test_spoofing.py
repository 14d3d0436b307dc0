"""Spoofing, against the whole app on the real HA test home: forged user ids, altered,
replayed, stale or wrongly keyed signatures, and requests on another principal's topic.
Each is refused, executes nothing (the whole home is compared), and is a security event in
the app log and in the audit log."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
import time
from typing import Any

from homeassistant.core import HomeAssistant
import paho.mqtt.client as paho
import pytest

from botpsy_agent.audit.read import AuditFilter, AuditReader
from botpsy_agent.contract import sign
from botpsy_agent.mqtt.settings import ApiSettings, BrokerSettings
from devkit.mosquitto import MosquittoBroker
from tests.conftest import AGENT_USER, KITCHEN_USER
from tests.ha_home import HaHome
from tests.ha_server import HomeAssistantApiServer
from tests.mqtt.client import ApiClient, subscribed_client
from tests.reliability.harness import (
    INSTANCE,
    REQUEST,
    RESPONSE,
    ROOT,
    SECRET,
    app_config,
    changed,
    home_states,
    running_app,
    signed,
)

OPEN = "open the garage door"
NOT_AUTHORIZED = 0x87


def altered(document: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A signed request with fields changed after signing (the signature kept)."""
    return {**document, **changes}


Forge = Callable[[HaHome], dict[str, Any]]

FORGERIES: dict[str, tuple[Forge, str]] = {
    "unsigned user id": (
        lambda home: {"id": "s1", "text": OPEN, "user_id": home.users["Daniel"]},
        "unauthenticated",
    ),
    "made-up signature": (
        lambda home: {
            "id": "s2",
            "text": OPEN,
            "user_id": home.users["Daniel"],
            "ts": int(time.time()),
            "sig": "ab" * 32,
        },
        "bad_signature",
    ),
    "wrong secret": (
        lambda home: sign(
            {"id": "s3", "text": OPEN, "user_id": home.users["Daniel"]},
            "a-secret-of-our-own-making-000",
        ),
        "bad_signature",
    ),
    "text altered": (
        lambda home: altered(signed(home.users["Daniel"], "s4", "what time is it"), text=OPEN),
        "bad_signature",
    ),
    "user id swapped": (
        lambda home: altered(
            signed(home.users["Min-ji"], "s5", OPEN), user_id=home.users["Daniel"]
        ),
        "bad_signature",
    ),
    "dry run dropped": (
        lambda home: {
            k: v
            for k, v in signed(home.users["Daniel"], "s6", OPEN, dry_run=True).items()
            if k != "dry_run"
        },
        "bad_signature",
    ),
    "unknown user": (lambda home: signed("f" * 32, "s7", OPEN), "unknown_user"),
    "stale timestamp": (
        lambda home: sign(
            {"id": "s8", "text": OPEN, "user_id": home.users["Daniel"]},
            SECRET,
            now=time.time() - 3600,
        ),
        "stale_timestamp",
    ),
    "signature without a user": (
        lambda home: {"id": "s9", "text": OPEN, "ts": int(time.time()), "sig": "cd" * 32},
        "unexpected_signature",
    ),
}


def security_records(audit_file: Any) -> list[dict[str, Any]]:
    return list(AuditReader(audit_file).records(AuditFilter(security_only=True)))


@pytest.fixture
async def client(mosquitto: MosquittoBroker) -> AsyncIterator[ApiClient]:
    async with subscribed_client(mosquitto, f"{RESPONSE}/#") as api_client:
        yield api_client


async def test_forged_altered_stale_and_keyless_requests_are_refused_and_logged(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    client: ApiClient,
    tmp_path: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with running_app(app_config(ha_api, mosquitto, tmp_path)) as app:
        before = home_states(hass)
        for name, (forge, code) in FORGERIES.items():
            document = forge(ha_home)
            client.publish(REQUEST, document)
            answer = await client.response(RESPONSE, document["id"])
            assert answer["error"]["code"] == code, name
            assert answer["status"] in {"refused", "error"}, name
            assert answer["actions"] == [], name
        assert changed(before, home_states(hass)) == set()

        security = [r for r in caplog.records if r.name == "botpsy_agent.security"]
        for forge, code in FORGERIES.values():
            request_id = forge(ha_home)["id"]
            assert any(request_id in r.getMessage() and code in r.getMessage() for r in security)
        audited = {r["id"]: r for r in security_records(app.audit.path)}
        assert {i: r["code"] for i, r in audited.items()} == {
            forge(ha_home)["id"]: code for forge, code in FORGERIES.values()
        }
        assert audited["s1"]["claimed_user_id"] == ha_home.users["Daniel"]
        assert SECRET not in app.audit.path.read_text()  # no secret, no signature
        assert ("ab" * 32) not in app.audit.path.read_text()
        assert all(SECRET not in r.getMessage() for r in caplog.records)


async def test_a_replayed_signature_never_runs_twice(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    client: ApiClient,
    tmp_path: Any,
) -> None:
    api = ApiSettings(instance=INSTANCE, languages=("en",), outcome_cache_size=1)
    daniel = ha_home.users["Daniel"]
    lamp_off = signed(daniel, "r1", "turn off the bedside lamp")
    async with running_app(app_config(ha_api, mosquitto, tmp_path, api=api)) as app:
        client.publish(REQUEST, lamp_off)
        first = await client.response(RESPONSE, "r1")
        assert first["status"] == "done"
        await hass.services.async_call(
            "light", "turn_on", {"entity_id": "light.bed_light"}, blocking=True
        )
        before = home_states(hass)

        client.publish(REQUEST, lamp_off)  # while remembered: the first outcome, nothing runs
        assert await client.response(RESPONSE, "r1") == first
        client.publish(REQUEST, signed(daniel, "r2", "what time is it"))
        await client.response(RESPONSE, "r2")  # r1's outcome is forgotten now (a cache of one)
        client.publish(REQUEST, lamp_off)  # the same bytes, still inside the window: a replay
        refused = await client.response(RESPONSE, "r1")
        assert (refused["status"], refused["error"]["code"]) == ("refused", "replayed")

        assert changed(before, home_states(hass)) == set()  # the lamp stayed on
        assert [r["code"] for r in security_records(app.audit.path)] == ["replayed"]


async def test_another_principals_topic_is_closed_by_the_broker_acl(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto_acl: MosquittoBroker,
    tmp_path: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    broker = BrokerSettings(
        host=mosquitto_acl.host,
        port=mosquitto_acl.port,
        username=AGENT_USER.username,
        password=AGENT_USER.password,
    )
    config = app_config(ha_api, mosquitto_acl, tmp_path, broker_settings=broker)
    config.policy_file.write_text(
        config.policy_file.read_text()
        + "  kitchen-panel:\n    rules:\n      - allow: [read, control]\n        areas: [kitchen]\n"
    )
    async with (
        running_app(config) as app,
        subscribed_client(
            mosquitto_acl,
            f"{ROOT}/response/#",
            username=KITCHEN_USER.username,
            password=KITCHEN_USER.password,
            protocol=paho.MQTTv5,
        ) as panel,
    ):
        acks: list[int] = []  # MQTT 5 PUBACK reason codes, in publishing order
        panel.client.on_publish = lambda client, data, mid, reason, props: acks.append(reason.value)
        before = home_states(hass)
        # Posing as the kids' tablet, and as anonymous: the broker drops both.
        panel.publish(f"{REQUEST}/kids-tablet", {"id": "x1", "text": "turn on sam's fan"})
        panel.publish(REQUEST, {"id": "x2", "text": "turn on sam's fan"})
        # Its own topic, but answers sent to the tablet's: refused by the app.
        panel.publish(
            f"{REQUEST}/kitchen-panel",
            {"id": "x3", "text": "hi", "reply_to": f"{RESPONSE}/kids-tablet"},
        )
        panel.publish(f"{REQUEST}/kitchen-panel", {"id": "x4", "text": "turn on sam's fan"})
        await panel.until(lambda: len(acks) == 4, "four acknowledgements")
        assert acks[:2] == [NOT_AUTHORIZED, NOT_AUTHORIZED]  # the broker said no
        refused = await panel.response(f"{RESPONSE}/kitchen-panel", "x3")
        assert refused["error"]["code"] == "invalid_reply_to"
        outside = await panel.response(f"{RESPONSE}/kitchen-panel", "x4")
        assert outside["status"] != "done"  # the fan is not in the panel's kitchen
        await asyncio.sleep(0.2)
        assert changed(before, home_states(hass)) == set()
        seen = {r["id"] for r in AuditReader(app.audit.path).records()}
        assert "x1" not in seen and "x2" not in seen  # never reached the app
        assert [r["id"] for r in security_records(app.audit.path)] == ["x3"]
        assert any(
            "x3" in r.getMessage() and r.name == "botpsy_agent.security" for r in caplog.records
        )

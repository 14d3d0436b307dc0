"""Requests that claim an HA user: signed, fresh, once — or refused with nothing executed."""

from __future__ import annotations

import time
from typing import Any

import pytest

from botpsy_agent.contract import CONNECTION_TEST_USER, sign
from botpsy_agent.ha.registries import HaUser
from botpsy_agent.mqtt import ApiSettings, StaticSecrets
from botpsy_agent.mqtt.auth import KnownUser
from devkit.mosquitto import MosquittoBroker
from tests.mqtt.agents import ActingAgent, EchoAgent
from tests.mqtt.client import ApiClient
from tests.mqtt.conftest import INSTANCE, ROOT, StartService, plain_settings

REQUEST, RESPONSE = f"{ROOT}/request", f"{ROOT}/response"
SECRET = "integration-shared-secret-0123456789"
USERS = {  # as the HA bridge reads them from HA (config/auth/list)
    "anna": HaUser("anna", "Anna", is_admin=True, is_owner=True),
    "min_ji": HaUser("min_ji", "Min-ji", is_admin=False),
    "old_guest": HaUser("old_guest", "Guest", is_admin=False, is_active=False),
}


def directory(user_id: str) -> KnownUser | None:
    return USERS.get(user_id)


def signed(
    request_id: str, user_id: str = "anna", secret: str = SECRET, **extra: Any
) -> dict[str, Any]:
    return sign(
        {"id": request_id, "text": "turn on the kitchen light", "user_id": user_id, **extra}, secret
    )


async def test_a_signed_request_acts_as_the_user_ha_knows(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    agent = EchoAgent()
    await start_service(
        agent, plain_settings(mosquitto), secrets=StaticSecrets(SECRET), users=directory
    )
    client.publish(REQUEST, signed("s1", "min_ji"))
    answer = await client.response(RESPONSE, "s1")
    assert answer["status"] == "done"
    principal = agent.requests[0].principal
    assert (principal.key, principal.name, principal.is_admin) == ("user:min_ji", "Min-ji", False)


async def test_unsigned_or_badly_signed_user_requests_execute_nothing(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    agent = ActingAgent()
    await start_service(
        agent, plain_settings(mosquitto), secrets=StaticSecrets(SECRET), users=directory
    )
    tampered = signed("b3")
    tampered["text"] = "unlock the front door"
    cases = {
        "b1": ({"id": "b1", "text": "turn on the light", "user_id": "anna"}, "unauthenticated"),
        "b2": (
            {"id": "b2", "text": "hi", "user_id": "anna", "ts": int(time.time())},
            "unauthenticated",
        ),
        "b3": (tampered, "bad_signature"),
        "b4": (signed("b4", secret="a-secret-the-app-does-not-know"), "bad_signature"),
        "b5": ({**signed("b5"), "user_id": "min_ji"}, "bad_signature"),  # someone else's
        "b6": (signed("b6", ts=int(time.time()) - 3600), "stale_timestamp"),
        "b7": (signed("b7", ts=int(time.time()) + 3600), "stale_timestamp"),
        "b8": (signed("b8", user_id="mallory"), "unknown_user"),
        "b8b": (signed("b8b", user_id="old_guest"), "unknown_user"),  # deactivated in HA
        "b9": ({**signed("b9"), "is_admin": True}, "unknown_field"),
    }
    for payload, _ in cases.values():
        client.publish(REQUEST, payload)
    for request_id, (_, code) in cases.items():
        answer = await client.response(RESPONSE, request_id)
        assert answer["error"]["code"] == code, request_id
        expected_status = "error" if code == "unknown_field" else "refused"
        assert answer["status"] == expected_status, request_id
    assert agent.executions == 0
    assert agent.requests == []


async def test_without_a_shared_secret_every_user_request_is_refused(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    agent = ActingAgent()
    await start_service(agent, plain_settings(mosquitto), users=directory)
    client.publish(REQUEST, signed("n1"))
    answer = await client.response(RESPONSE, "n1")
    assert (answer["status"], answer["error"]["code"]) == ("refused", "unauthenticated")
    assert agent.executions == 0


async def test_a_replayed_signature_is_refused_once_its_outcome_is_forgotten(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    agent = ActingAgent()
    api = ApiSettings(instance=INSTANCE, outcome_cache_size=1)
    await start_service(
        agent, plain_settings(mosquitto), api, secrets=StaticSecrets(SECRET), users=directory
    )
    captured = signed("p1")
    client.publish(REQUEST, captured)
    assert (await client.response(RESPONSE, "p1"))["status"] == "done"

    # Sent again while its outcome is remembered: the same answer, nothing executed again.
    client.publish(REQUEST, captured)
    assert (await client.response(RESPONSE, "p1"))["status"] == "done"
    assert agent.executions == 1

    client.publish(REQUEST, signed("p2"))  # pushes p1's outcome out of the cache of one
    assert (await client.response(RESPONSE, "p2"))["status"] == "done"
    client.publish(REQUEST, captured)
    replayed = await client.response(RESPONSE, "p1")
    assert (replayed["status"], replayed["error"]["code"]) == ("refused", "replayed")
    assert agent.executions == 2


async def test_a_retry_may_renew_its_signature_and_still_runs_once(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    agent = ActingAgent()
    await start_service(
        agent, plain_settings(mosquitto), secrets=StaticSecrets(SECRET), users=directory
    )
    now = int(time.time())
    client.publish(REQUEST, signed("t1", ts=now - 5))
    first = await client.response(RESPONSE, "t1")
    client.publish(REQUEST, signed("t1", ts=now))  # the client re-signed its retry
    second = await client.response(RESPONSE, "t1")
    assert first == second
    assert agent.executions == 1


async def test_the_integrations_connection_test_is_answered_without_a_security_event(
    mosquitto: MosquittoBroker,
    start_service: StartService,
    client: ApiClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    agent = ActingAgent()
    await start_service(
        agent, plain_settings(mosquitto), secrets=StaticSecrets(SECRET), users=directory
    )
    client.publish(REQUEST, signed("c1", user_id=CONNECTION_TEST_USER))
    client.publish(REQUEST, signed("c2", user_id="mallory"))
    tested = await client.response(RESPONSE, "c1")
    probed = await client.response(RESPONSE, "c2")
    assert tested["error"]["code"] == probed["error"]["code"] == "unknown_user"
    assert agent.executions == 0
    events = [r.getMessage() for r in caplog.records if "Security event" in r.getMessage()]
    assert len(events) == 1 and "c2" in events[0]  # mallory is an event, the test is not


async def test_home_assistant_itself_is_placed_in_the_area_it_signs_and_only_then(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    """A satellite's request: HA signs its area, and the principal is that area's
    (`own_area` rules, issue 30 item 4). An area added after signing breaks the signature."""
    agent = EchoAgent()
    await start_service(
        agent, plain_settings(mosquitto), secrets=StaticSecrets(SECRET), users=directory
    )
    base = {"text": "turn on the light", "origin": "homeassistant"}
    client.publish(REQUEST, sign({"id": "h1", **base, "area_id": "kitchen"}, SECRET))
    client.publish(REQUEST, sign({"id": "h2", **base}, SECRET))
    assert (await client.response(RESPONSE, "h1"))["status"] == "done"
    assert (await client.response(RESPONSE, "h2"))["status"] == "done"
    moved = sign({"id": "h3", **base, "area_id": "kitchen"}, SECRET) | {"area_id": "bedroom"}
    client.publish(REQUEST, moved)
    assert (await client.response(RESPONSE, "h3"))["error"]["code"] == "bad_signature"
    keys = [request.principal.key for request in agent.requests]
    assert keys == ["mqtt:homeassistant@kitchen", "mqtt:homeassistant"]
    assert agent.requests[0].principal.area_id == "kitchen"

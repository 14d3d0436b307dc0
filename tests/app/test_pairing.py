"""The app's side of pairing: the SPAKE2 exchange and its limits, the secrets file, the
Supervisor's discovery, and the pairing topics on a real broker."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
import stat
from typing import Any

import pytest

from botpsy_agent import spake2
from botpsy_agent.integration_channel import IntegrationChannel
from botpsy_agent.mqtt.settings import ApiSettings, BrokerSettings
from botpsy_agent.mqtt.signing import SecretFile
from botpsy_agent.pairing import (
    MAX_SESSIONS_PER_CODE,
    SUPERVISOR_LABEL,
    Pairing,
    SecretStore,
    display_code,
    normalize_code,
    offer_to_home_assistant,
)
from botpsy_agent.policy.store import PolicyStore
from botpsy_agent.policy_sync import PolicyUpdates
from botpsy_agent.supervisor import SupervisorAccess
from devkit.mosquitto import MosquittoBroker
from devkit.supervisor import SupervisorStandIn
from tests.mqtt_probe import MqttProbe

INSTANCE = "home"


class Client:
    """Home Assistant's side of the exchange (the integration does the same over MQTT)."""

    def __init__(self, code: str, session: str = "session-1") -> None:
        self.session = session
        self.w = spake2.password_scalar(normalize_code(code), INSTANCE)
        self.x = spake2.random_exponent()
        self.t = spake2.share(self.x, self.w, spake2.M)

    def start(self) -> dict[str, Any]:
        return {
            "v": 1,
            "step": "start",
            "session": self.session,
            "share": spake2.element_to_hex(self.t),
        }

    def keys(self, answer: dict[str, Any]) -> spake2.SessionKeys:
        s = spake2.element_from_hex(answer["share"])
        k = spake2.shared_element(s, self.w, spake2.N, self.x)
        return spake2.session_keys(INSTANCE, self.t, s, k, self.w)

    def confirm(self, tag: str) -> dict[str, Any]:
        return {"v": 1, "step": "confirm", "session": self.session, "confirm": tag}


@pytest.fixture
def store(tmp_path: Path) -> SecretStore:
    return SecretStore(tmp_path / "integration_secrets")


def test_pairing_with_the_code_stores_one_secret_and_replaces_the_code(
    store: SecretStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    pairing = Pairing(INSTANCE, store)
    pairing.announce()
    code = pairing.code
    assert display_code(code) in caplog.text
    client = Client(display_code(code).lower().replace("0", "o"))
    answer = pairing.handle(client.start())
    assert answer is not None and answer["step"] == "share"
    keys = client.keys(answer)
    assert spake2.tags_match(keys.confirm_b, answer["confirm"])
    done = pairing.handle(client.confirm(keys.confirm_a))
    assert done == {"v": 1, "step": "paired", "session": client.session}
    assert SecretFile(store.path).secrets() == (keys.secret,)
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert keys.secret not in caplog.text
    assert pairing.code != code  # one time only
    # The used session cannot confirm again.
    assert pairing.handle(client.confirm(keys.confirm_a))["code"] == "unknown_session"  # type: ignore[index]


def test_a_wrong_code_learns_nothing_and_sessions_per_code_are_few(
    store: SecretStore, caplog: pytest.LogCaptureFixture
) -> None:
    pairing = Pairing(INSTANCE, store)
    code = pairing.code
    for attempt in range(MAX_SESSIONS_PER_CODE):
        client = Client("ZZZZZZZZ" if code != "ZZZZZZZZ" else "YYYYYYYY", f"session-{attempt}")
        answer = pairing.handle(client.start())
        assert answer is not None
        assert not spake2.tags_match(client.keys(answer).confirm_b, answer["confirm"])
    assert pairing.code != code  # replaced after the last session it allowed
    assert "pairing sessions used this code" in caplog.text
    assert store.entries() == []


def test_a_confirmation_that_does_not_match_replaces_the_code(store: SecretStore) -> None:
    pairing = Pairing(INSTANCE, store)
    code = pairing.code
    client = Client(code)
    assert pairing.handle(client.start()) is not None
    refused = pairing.handle(client.confirm("0" * 64))
    assert refused is not None and refused["code"] == "wrong_code"
    assert pairing.code != code
    assert store.entries() == []


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"v": 2, "step": "start", "session": "session-1"}, "unsupported_version"),
        ({"v": 1, "step": "dance", "session": "session-1"}, "invalid_message"),
        ({"v": 1, "step": "start", "session": "session-1", "share": "00"}, "invalid_message"),
        ({"v": 1, "step": "confirm", "session": "session-9", "confirm": "00"}, "unknown_session"),
    ],
)
def test_malformed_messages_get_coded_errors(
    store: SecretStore, message: dict[str, Any], code: str
) -> None:
    answer = Pairing(INSTANCE, store).handle(message)
    assert answer is not None and (answer["step"], answer["code"]) == ("error", code)


def test_no_session_no_answer_and_no_second_start(store: SecretStore) -> None:
    pairing = Pairing(INSTANCE, store)
    assert pairing.handle({"v": 1, "step": "start"}) is None
    assert pairing.handle({"v": 1, "step": "start", "session": "x y"}) is None
    client = Client(pairing.code)
    assert pairing.handle(client.start())["step"] == "share"  # type: ignore[index]
    assert pairing.handle(client.start())["code"] == "session_exists"  # type: ignore[index]


def test_sessions_expire(store: SecretStore) -> None:
    now = [0.0]
    pairing = Pairing(INSTANCE, store, clock=lambda: now[0])
    client = Client(pairing.code)
    answer = pairing.handle(client.start())
    assert answer is not None
    now[0] = 1000.0
    late = pairing.handle(client.confirm(client.keys(answer).confirm_a))
    assert late is not None and late["code"] == "unknown_session"


def test_the_secrets_file_keeps_one_supervisor_secret_and_the_newest_pairings(
    store: SecretStore,
) -> None:
    store.path.write_text("hand-added-secret-0123456789\n")
    store.put("a" * 64, SUPERVISOR_LABEL)
    store.put("b" * 64, SUPERVISOR_LABEL)
    for n in range(5):
        store.put(str(n) * 64, f"paired {n}")
    labels = [label for _, label in store.entries()]
    assert labels == ["", SUPERVISOR_LABEL, "paired 2", "paired 3", "paired 4"]
    assert store.find(SUPERVISOR_LABEL) == "b" * 64
    assert SecretFile(store.path).secrets()[0] == "hand-added-secret-0123456789"


async def test_the_supervisor_discovery_offers_the_integration_with_a_kept_secret(
    store: SecretStore, caplog: pytest.LogCaptureFixture, socket_enabled: None
) -> None:
    caplog.set_level(logging.INFO)
    supervisor = SupervisorStandIn()
    await supervisor.start()
    try:
        access = SupervisorAccess.from_environment(
            {"SUPERVISOR_TOKEN": supervisor.token, "BOTPSY_SUPERVISOR_URL": supervisor.url}
        )
        assert access is not None and supervisor.token not in repr(access)
        assert await offer_to_home_assistant(access, INSTANCE, store)
        assert await offer_to_home_assistant(access, INSTANCE, store)  # after a restart
        refusing = SupervisorStandIn(discovery_services=())
        await refusing.start()
        try:
            denied = SupervisorAccess(refusing.url, refusing.token)
            assert not await offer_to_home_assistant(denied, INSTANCE, store)
        finally:
            await refusing.stop()
    finally:
        await supervisor.stop()
    first, second = (d["config"] for d in supervisor.discoveries)
    assert (
        first
        == second
        == {
            "instance": INSTANCE,
            "secret": store.find(SUPERVISOR_LABEL),
            "api_version": 1,
        }
    )
    assert first["secret"] not in caplog.text
    assert "pair with the pairing code instead" in caplog.text
    assert SupervisorAccess.from_environment({}) is None


async def test_the_pairing_topics_on_a_real_broker(
    mosquitto: MosquittoBroker, tmp_path: Path
) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\n")
    store = PolicyStore(policy)
    store.load()
    channel = IntegrationChannel.for_app(
        BrokerSettings(mosquitto.host, mosquitto.port),
        ApiSettings(instance=INSTANCE),
        data_dir=tmp_path,
        policies=store,
        known_user_ids=lambda: None,
    )
    probe = MqttProbe(mosquitto.host, mosquitto.port)
    await asyncio.to_thread(probe.connect)
    try:
        await asyncio.to_thread(probe.subscribe, f"botpsy/{INSTANCE}/#")
        await channel.start()
        await asyncio.wait_for(channel.wait_online(), 10)
        status = await asyncio.to_thread(probe.expect, f"botpsy/{INSTANCE}/pairing/status")
        assert status.payload == b"open"
        state = await asyncio.to_thread(probe.expect, f"botpsy/{INSTANCE}/policy/state")
        assert json.loads(state.payload)["users"] == []
        request = f"botpsy/{INSTANCE}/pairing/request"
        client = Client(channel.pairing.code)
        for junk in (b"not json", b"[1]", json.dumps(client.start()).encode() * 200):
            await asyncio.to_thread(probe.publish, request, junk)
        await asyncio.to_thread(probe.publish, request, json.dumps(client.start()))
        answer = await asyncio.to_thread(
            probe.expect, f"botpsy/{INSTANCE}/pairing/response/{client.session}"
        )
        assert json.loads(answer.payload)["step"] == "share"
        # An oversized permission update is not even read.
        await asyncio.to_thread(
            probe.publish, f"botpsy/{INSTANCE}/policy/set/confirm", b"x" * 70_000
        )
    finally:
        await channel.stop()
        closed = await asyncio.to_thread(probe.expect, f"botpsy/{INSTANCE}/pairing/status")
        await asyncio.to_thread(probe.close)
    assert closed.payload == b"closed"
    assert isinstance(channel.policy, PolicyUpdates) and channel.policy.last is None

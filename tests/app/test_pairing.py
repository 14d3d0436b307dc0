"""The app's side of pairing: the window, the SPAKE2 exchange and its limits, the secrets
file (listing, revoking), the Supervisor's discovery, and the pairing topics on a real
broker (issue 18, finding 1: pairing was always open, with a logged code that never expired)."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
import re
import stat
from typing import Any

import pytest

from botpsy_agent.app.supervisor import SupervisorAccess
from botpsy_agent.link import spake2
from botpsy_agent.link.channel import PAIRING_MESSAGES_PER_MINUTE, IntegrationChannel
from botpsy_agent.link.pairing import (
    MAX_PAIRED_SECRETS,
    MAX_SESSIONS_PER_WINDOW,
    SUPERVISOR_LABEL,
    WINDOW_S,
    Pairing,
    Revocations,
    SecretStore,
    display_code,
    fingerprint,
    normalize_code,
    offer_to_home_assistant,
)
from botpsy_agent.link.policy_sync import PolicyUpdates
from botpsy_agent.mqtt.settings import ApiSettings, BrokerSettings
from botpsy_agent.mqtt.signing import SecretFile, sign
from botpsy_agent.policy.store import PolicyStore
from devkit.mosquitto import MosquittoBroker
from devkit.supervisor import SupervisorStandIn
from tests.ha_mqtt import wait_for
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


def opened(store: SecretStore, clock: Any = None) -> Pairing:
    pairing = Pairing(INSTANCE, store) if clock is None else Pairing(INSTANCE, store, clock=clock)
    assert pairing.open_window()
    return pairing


def pair(pairing: Pairing, code: str, session: str = "session-1") -> dict[str, Any] | None:
    """One whole exchange with `code`; the app's last answer."""
    client = Client(code, session)
    answer = pairing.handle(client.start())
    assert answer is not None
    if answer["step"] != "share":
        return answer
    return pairing.handle(client.confirm(client.keys(answer).confirm_a))


def test_pairing_in_an_open_window_stores_one_secret_and_closes_the_window(
    store: SecretStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    pairing = opened(store)
    code = pairing.code
    client = Client(display_code(code).lower().replace("0", "o"))
    answer = pairing.handle(client.start())
    assert answer is not None and answer["step"] == "share"
    keys = client.keys(answer)
    assert spake2.tags_match(keys.confirm_b, answer["confirm"])
    done = pairing.handle(client.confirm(keys.confirm_a))
    assert done == {
        "v": 1,
        "step": "paired",
        "session": client.session,
        "id": fingerprint(keys.secret),
    }
    assert SecretFile(store.path).secrets() == (keys.secret,)
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert keys.secret not in caplog.text
    # The code is never logged, and the window was single use.
    assert code not in caplog.text and display_code(code) not in caplog.text
    assert not pairing.is_open and pairing.code != code
    assert pair(pairing, code, "session-2") == {
        "v": 1,
        "step": "error",
        "session": "session-2",
        "code": "pairing_closed",
        "message": "no pairing window is open; open one in HA",
    }


def test_the_attack_of_issue_18_an_old_code_pairs_no_more(store: SecretStore) -> None:
    """A code someone saw (a log, a screenshot) is useless: with no window open nothing
    pairs, not even with the right code, and the next window has another code."""
    now = [0.0]
    pairing = Pairing(INSTANCE, store, clock=lambda: now[0])
    seen = pairing.code
    assert not pairing.is_open
    answer = pair(pairing, seen)
    assert answer is not None and answer["code"] == "pairing_closed"
    assert pairing.open_window()
    now[0] += WINDOW_S + 1  # nobody used it: the window times out
    assert not pairing.is_open
    assert pairing.code != seen
    assert pairing.open_window()
    answer = pair(pairing, seen)
    assert answer is not None and answer["code"] == "wrong_code"
    assert store.entries() == []


def test_pressing_open_again_keeps_the_code_a_user_is_typing(store: SecretStore) -> None:
    pairing = opened(store)
    code = pairing.code
    assert not pairing.open_window()
    assert pairing.code == code
    answer = pair(pairing, code)
    assert answer is not None and answer["step"] == "paired"


def test_a_wrong_code_learns_nothing_and_sessions_per_window_are_few(store: SecretStore) -> None:
    pairing = opened(store)
    code = pairing.code
    wrong = "ZZZZZZZZ" if code != "ZZZZZZZZ" else "YYYYYYYY"
    for attempt in range(MAX_SESSIONS_PER_WINDOW):
        client = Client(wrong, f"session-{attempt}")
        answer = pairing.handle(client.start())
        assert answer is not None and answer["step"] == "share"
        assert not spake2.tags_match(client.keys(answer).confirm_b, answer["confirm"])
    # One guess per session: the window takes no more.
    answer = pairing.handle(Client(code, "session-9").start())
    assert answer is not None and answer["code"] == "pairing_closed"
    assert store.entries() == []


def test_a_confirmation_that_does_not_match_closes_the_window(store: SecretStore) -> None:
    pairing = opened(store)
    code = pairing.code
    client = Client(code)
    assert pairing.handle(client.start()) is not None
    refused = pairing.handle(client.confirm("0" * 64))
    assert refused is not None and refused["code"] == "wrong_code"
    assert not pairing.is_open and pairing.code != code
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
    answer = opened(store).handle(message)
    assert answer is not None and (answer["step"], answer["code"]) == ("error", code)


def test_no_session_no_answer_and_no_second_start(store: SecretStore) -> None:
    pairing = opened(store)
    assert pairing.handle({"v": 1, "step": "start"}) is None
    assert pairing.handle({"v": 1, "step": "start", "session": "x y"}) is None
    client = Client(pairing.code)
    assert pairing.handle(client.start())["step"] == "share"  # type: ignore[index]
    assert pairing.handle(client.start())["code"] == "session_exists"  # type: ignore[index]


def test_sessions_expire(store: SecretStore) -> None:
    now = [0.0]
    pairing = opened(store, clock=lambda: now[0])
    client = Client(pairing.code)
    answer = pairing.handle(client.start())
    assert answer is not None
    now[0] = 1000.0
    late = pairing.handle(client.confirm(client.keys(answer).confirm_a))
    assert late is not None and late["code"] in {"unknown_session", "pairing_closed"}


def test_the_secrets_file_keeps_one_supervisor_secret_and_evicts_no_pairing(
    store: SecretStore,
) -> None:
    store.path.write_text("hand-added-secret-0123456789\n")
    store.put("a" * 64, SUPERVISOR_LABEL)
    store.put("b" * 64, SUPERVISOR_LABEL)
    for n in range(5):
        store.put(str(n) * 64, f"paired {n}")
    labels = [label for _, label in store.entries()]
    assert labels == ["", SUPERVISOR_LABEL] + [f"paired {n}" for n in range(5)]
    assert store.find(SUPERVISOR_LABEL) == "b" * 64
    assert SecretFile(store.path).secrets()[0] == "hand-added-secret-0123456789"
    assert [p["id"] for p in store.listing()][2] == fingerprint("0" * 64)
    assert all("0" * 64 not in str(p) for p in store.listing())


def test_a_full_secrets_file_refuses_pairing_instead_of_pushing_ha_out(
    store: SecretStore,
) -> None:
    """Issue 18: after three rogue pairings HA's own secret was gone (`bad_signature`)."""
    ha_secret = "h" * 64
    store.put(ha_secret, "paired by HA")
    for n in range(MAX_PAIRED_SECRETS - 1):
        store.put(f"{n:064d}", f"paired {n}")
    pairing = opened(store)
    answer = pair(pairing, pairing.code)
    assert answer is not None and answer["code"] == "too_many_pairings"
    assert ha_secret in SecretFile(store.path).secrets()


def test_a_signed_revoke_removes_a_secret_once(store: SecretStore) -> None:
    mine, other = "m" * 64, "o" * 64
    store.put(mine, "paired mine")
    store.put(other, "paired other")
    revocations = Revocations(store)
    unsigned = {"v": 1, "revoke": "self", "ts": 1, "sig": "0" * 64}
    assert revocations.handle(unsigned) is None
    forged = sign({"v": 1, "revoke": fingerprint(mine)}, "x" * 64)
    assert revocations.handle(forged) is None
    stale = sign({"v": 1, "revoke": "self"}, other, now=0)
    assert revocations.handle(stale) is None
    assert len(store.entries()) == 2
    by_other = sign({"v": 1, "revoke": fingerprint(mine)}, other)
    assert revocations.handle(by_other) == "paired mine"
    assert revocations.handle(by_other) is None  # a replay does nothing more
    assert revocations.handle(sign({"v": 1, "revoke": "self"}, other)) == "paired other"
    assert SecretFile(store.path).secrets() == ()


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


class RecordedNotices:
    """What the app shows in Home Assistant, kept (the integration tests use HA's own)."""

    def __init__(self) -> None:
        self.shown: dict[str, str] = {}
        self.dismissed: list[str] = []

    async def show(self, key: str, title: str, message: str) -> None:
        self.shown[key] = message

    async def dismiss(self, key: str) -> None:
        self.dismissed.append(key)
        self.shown.pop(key, None)


async def test_the_pairing_topics_on_a_real_broker(
    mosquitto: MosquittoBroker, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\n")
    store = PolicyStore(policy)
    store.load()
    notices = RecordedNotices()
    channel = IntegrationChannel.for_app(
        BrokerSettings(mosquitto.host, mosquitto.port),
        ApiSettings(instance=INSTANCE),
        data_dir=tmp_path,
        policies=store,
        known_user_ids=lambda: None,
        notices=notices,
    )
    root = f"botpsy/{INSTANCE}"
    probe = MqttProbe(mosquitto.host, mosquitto.port)
    await asyncio.to_thread(probe.connect)
    try:
        await asyncio.to_thread(probe.subscribe, f"{root}/#")
        # A retained press opens nothing (it would reopen pairing at every restart).
        await asyncio.to_thread(probe.publish, f"{root}/pairing/open", "PRESS", retain=True)
        await channel.start()
        await asyncio.wait_for(channel.wait_online(), 10)
        status = await asyncio.to_thread(probe.expect, f"{root}/pairing/status")
        assert status.payload == b"closed"  # closed until someone opens it
        state = await asyncio.to_thread(probe.expect, f"{root}/policy/state")
        assert json.loads(state.payload)["users"] == []
        request = f"{root}/pairing/request"
        # Closed: a start is refused at once, without a session.
        early = Client(channel.pairing.code, "session-early")
        await asyncio.to_thread(probe.publish, request, json.dumps(early.start()))
        refused = await asyncio.to_thread(probe.expect, f"{root}/pairing/response/session-early")
        assert json.loads(refused.payload)["code"] == "pairing_closed"
        assert not channel.pairing.is_open
        await asyncio.to_thread(probe.publish, f"{root}/pairing/open", b"", retain=True)
        await asyncio.to_thread(probe.publish, f"{root}/pairing/open", "PRESS")
        await wait_for(lambda: "pairing_code" in notices.shown, "the code shown in HA")
        code = re.findall(r"\*\*(\w{4}-\w{4})\*\*", notices.shown["pairing_code"])[0]
        status = await asyncio.to_thread(probe.expect, f"{root}/pairing/status")
        assert status.payload == b"open"
        client = Client(code)
        for junk in (b"not json", b"[1]", json.dumps(client.start()).encode() * 200):
            await asyncio.to_thread(probe.publish, request, junk)
        await asyncio.to_thread(probe.publish, request, json.dumps(client.start()))
        answer = await asyncio.to_thread(probe.expect, f"{root}/pairing/response/{client.session}")
        share = json.loads(answer.payload)
        assert share["step"] == "share"
        keys = client.keys(share)
        await asyncio.to_thread(probe.publish, request, json.dumps(client.confirm(keys.confirm_a)))
        done = await asyncio.to_thread(probe.expect, f"{root}/pairing/response/{client.session}")
        assert json.loads(done.payload)["step"] == "paired"
        # Announced in HA, listed on the state topic, the code's notification gone.
        await wait_for(lambda: "pairing_changed" in notices.shown, "the new pairing announced")
        assert fingerprint(keys.secret) in notices.shown["pairing_changed"]
        assert "pairing_code" not in notices.shown
        listed = await asyncio.to_thread(probe.expect, f"{root}/pairing/state")
        while json.loads(listed.payload)["pairings"] == []:
            listed = await asyncio.to_thread(probe.expect, f"{root}/pairing/state")
        assert json.loads(listed.payload) == {
            "open": False,
            "pairings": [{"id": fingerprint(keys.secret), "label": store_label(tmp_path)}],
        }
        # Revoked by a message signed with the secret itself.
        revoke = sign({"v": 1, "revoke": "self"}, keys.secret)
        await asyncio.to_thread(probe.publish, f"{root}/pairing/revoke", json.dumps(revoke))
        secrets = SecretFile(tmp_path / "integration_secrets")
        await wait_for(lambda: not secrets.secrets(), "the secret revoked")
        # An oversized permission update is not even read.
        await asyncio.to_thread(probe.publish, f"{root}/policy/set/confirm", b"x" * 70_000)
    finally:
        await channel.stop()
        closed = await asyncio.to_thread(probe.expect, f"{root}/pairing/status")
        while closed.payload != b"closed":
            closed = await asyncio.to_thread(probe.expect, f"{root}/pairing/status")
        await asyncio.to_thread(probe.close)
    assert isinstance(channel.policy, PolicyUpdates) and channel.policy.last is None
    assert code not in caplog.text and keys.secret not in caplog.text


def store_label(data_dir: Path) -> str:
    ((_, label),) = SecretStore(data_dir / "integration_secrets").entries()
    return label


async def test_a_flood_of_pairing_messages_is_dropped_beyond_the_limit(
    mosquitto: MosquittoBroker, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 18, finding 6. Reproduced on the old code: every one of 100 pairing starts was
    read and answered (and, in an open window, each bought a task for the arithmetic)."""
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
        notices=RecordedNotices(),
    )
    read: list[str] = []
    handle = channel.pairing.handle

    def counted(message: dict[str, Any]) -> dict[str, Any] | None:
        read.append(str(message.get("session")))
        return handle(message)

    channel.pairing.handle = counted  # type: ignore[method-assign]
    root = f"botpsy/{INSTANCE}"
    probe = MqttProbe(mosquitto.host, mosquitto.port)
    await asyncio.to_thread(probe.connect)
    try:
        await channel.start()
        await asyncio.wait_for(channel.wait_online(), 10)
        start = Client("0000000000").start()
        for n in range(100):
            message = json.dumps({**start, "session": f"flood-{n}"})
            await asyncio.to_thread(probe.publish, f"{root}/pairing/request", message)
        # The last start is through the broker when a press made after it is seen.
        await asyncio.to_thread(probe.publish, f"{root}/pairing/open", "PRESS")
        await wait_for(lambda: channel.pairing.is_open, "the window opened")
        assert PAIRING_MESSAGES_PER_MINUTE <= len(read) <= PAIRING_MESSAGES_PER_MINUTE + 3
        flood = [r for r in caplog.records if r.name == "botpsy_agent.security"]
        assert [r.levelno for r in flood].count(logging.WARNING) == 1  # once per flood
    finally:
        await channel.stop()
        await asyncio.to_thread(probe.close)

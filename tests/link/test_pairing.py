"""The app's side of pairing: the window, the SPAKE2 exchange and its limits, the secrets
file (listing, revoking), the Supervisor's discovery, and the pairing topics on a real
broker (issue 18, finding 1: pairing was always open, with a logged code that never expired;
issue 25, findings 1 and 12: anyone could open a window and read its code, revoke another's
secret, or close a window with one wrong confirmation)."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
import stat
from typing import Any

import pytest

from botpsy_agent.contract import fingerprint, sign, sign_app_message, spake2
from botpsy_agent.ha.supervisor import SupervisorAccess
from botpsy_agent.link.channel import (
    OPEN_PRESSES_PER_MINUTE,
    PAIRING_MESSAGES_PER_MINUTE,
    IntegrationChannel,
)
from botpsy_agent.link.pairing import (
    MAX_PAIRED_SECRETS,
    MAX_SESSIONS_PER_WINDOW,
    SUPERVISOR_LABEL,
    WINDOW_S,
    Pairing,
    Revocations,
    SecretStore,
    offer_to_home_assistant,
)
from botpsy_agent.link.policy_sync import PolicyUpdates
from botpsy_agent.mqtt.settings import ApiSettings, BrokerSettings
from botpsy_agent.mqtt.signing import SecretFile
from botpsy_agent.policy.store import PolicyStore
from devkit.mosquitto import MosquittoBroker
from devkit.supervisor import SupervisorStandIn
from tests.ha_mqtt import wait_for
from tests.mqtt_probe import MqttProbe

INSTANCE = "home"
CODE = "7K3M9QXD"
"""A code as an admin's config flow makes them (the integration's tests make real ones)."""
OTHER_CODE = "Q4RT8WZ1"


class Client:
    """Home Assistant's side of the exchange (the integration does the same over MQTT)."""

    def __init__(self, code: str, session: str = "session-1") -> None:
        self.session = session
        self.w = spake2.password_scalar(code, INSTANCE)
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


def opened(store: SecretStore, clock: Any = None, code: str = CODE) -> Pairing:
    pairing = Pairing(INSTANCE, store) if clock is None else Pairing(INSTANCE, store, clock=clock)
    pairing.open_window(code)
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
    client = Client(CODE)
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
    assert CODE not in caplog.text
    assert not pairing.is_open and pairing.code is None
    assert pair(pairing, CODE, "session-2") == {
        "v": 1,
        "step": "error",
        "session": "session-2",
        "code": "pairing_closed",
        "message": "no pairing window is open; pair from HA's config flow",
    }


def test_the_attack_of_issue_18_an_old_code_pairs_no_more(store: SecretStore) -> None:
    """A code someone saw is useless: with no window open nothing pairs, not even with the
    right code, and the next window (another flow) has another code."""
    now = [0.0]
    pairing = opened(store, clock=lambda: now[0])
    now[0] += WINDOW_S + 1  # nobody used it: the window times out
    assert not pairing.is_open and pairing.code is None
    answer = pair(pairing, CODE)
    assert answer is not None and answer["code"] == "pairing_closed"
    pairing.open_window(OTHER_CODE)
    answer = pair(pairing, CODE)
    assert answer is not None and answer["code"] == "wrong_code"
    assert store.entries() == []


def test_a_newer_flows_code_replaces_the_window(store: SecretStore) -> None:
    pairing = opened(store)
    pairing.open_window(OTHER_CODE)
    assert pairing.code == OTHER_CODE
    answer = pair(pairing, CODE)
    assert answer is not None and answer["code"] == "wrong_code"
    answer = pair(pairing, OTHER_CODE, "session-2")
    assert answer is not None and answer["step"] == "paired"
    with pytest.raises(ValueError, match="not a pairing code"):
        pairing.open_window("short")


def test_a_wrong_code_learns_nothing_and_sessions_per_window_are_few(store: SecretStore) -> None:
    pairing = opened(store)
    wrong = "ZZZZZZZZ"
    for attempt in range(MAX_SESSIONS_PER_WINDOW):
        client = Client(wrong, f"session-{attempt}")
        answer = pairing.handle(client.start())
        assert answer is not None and answer["step"] == "share"
        assert not spake2.tags_match(client.keys(answer).confirm_b, answer["confirm"])
    # One guess per session: the window takes no more.
    answer = pairing.handle(Client(CODE, "session-9").start())
    assert answer is not None and answer["code"] == "pairing_closed"
    assert store.entries() == []


def test_a_wrong_confirmation_ends_only_its_own_session(store: SecretStore) -> None:
    """Issue 25, finding 12: a stranger's start and wrong confirmation closed the window an
    admin was pairing through. Now only the stranger's session ends."""
    pairing = opened(store)
    stranger, admin = Client("ZZZZZZZZ", "session-stranger"), Client(CODE, "session-admin")
    admin_share = pairing.handle(admin.start())
    assert admin_share is not None and pairing.handle(stranger.start()) is not None
    refused = pairing.handle(stranger.confirm("0" * 64))
    assert refused is not None and refused["code"] == "wrong_code"
    assert pairing.is_open and pairing.code == CODE
    # The stranger's session is gone (no second guess in it) ...
    again = pairing.handle(stranger.confirm("0" * 64))
    assert again is not None and again["code"] == "unknown_session"
    # ... and the admin's pairs.
    done = pairing.handle(admin.confirm(admin.keys(admin_share).confirm_a))
    assert done is not None and done["step"] == "paired"


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
    client = Client(CODE)
    assert pairing.handle(client.start())["step"] == "share"  # type: ignore[index]
    assert pairing.handle(client.start())["code"] == "session_exists"  # type: ignore[index]


def test_sessions_expire(store: SecretStore) -> None:
    now = [0.0]
    pairing = opened(store, clock=lambda: now[0])
    client = Client(CODE)
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
    answer = pair(pairing, CODE)
    assert answer is not None and answer["code"] == "too_many_pairings"
    assert ha_secret in SecretFile(store.path).secrets()


def test_a_signed_revoke_removes_a_secret_once(store: SecretStore) -> None:
    mine, other = "m" * 64, "o" * 64
    store.put(mine, "paired mine")
    store.put(other, "paired other")
    revocations = Revocations(store)
    unsigned = {"v": 1, "revoke": "self", "ts": 1, "sig": "0" * 64}
    assert revocations.handle(unsigned) is None
    forged = sign({"v": 1, "revoke": "self"}, "x" * 64)
    assert revocations.handle(forged) is None
    stale = sign({"v": 1, "revoke": "self"}, other, now=0)
    assert revocations.handle(stale) is None
    assert len(store.entries()) == 2
    by_itself = sign({"v": 1, "revoke": fingerprint(mine)}, mine)
    assert revocations.handle(by_itself) == "paired mine"
    assert revocations.handle(by_itself) is None  # a replay does nothing more
    assert revocations.handle(sign({"v": 1, "revoke": "self"}, other)) == "paired other"
    assert SecretFile(store.path).secrets() == ()


def test_revoking_another_secret_needs_the_supervisors_or_an_admin(store: SecretStore) -> None:
    """Issue 25, finding 1: any paired secret revoked any other (a second pairing could
    throw Home Assistant's out). Now only the Supervisor's secret, or a request signed for
    a user HA says is an admin, may."""
    ha, rogue, supervisor = "h" * 64, "r" * 64, "s" * 64
    store.put(ha, "paired by HA")
    store.put(rogue, "paired rogue")
    store.put(supervisor, SUPERVISOR_LABEL)
    revocations = Revocations(store, is_admin=lambda user_id: user_id == "admin-1")
    assert revocations.handle(sign({"v": 1, "revoke": fingerprint(ha)}, rogue)) is None
    as_child = sign({"v": 1, "revoke": fingerprint(ha), "user_id": "child-1"}, rogue)
    assert revocations.handle(as_child) is None
    assert ha in SecretFile(store.path).secrets()
    as_admin = sign({"v": 1, "revoke": fingerprint(rogue), "user_id": "admin-1"}, ha)
    assert revocations.handle(as_admin) == "paired rogue"
    by_supervisor = sign({"v": 1, "revoke": fingerprint(ha)}, supervisor)
    assert revocations.handle(by_supervisor) == "paired by HA"
    assert SecretFile(store.path).secrets() == (supervisor,)


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


class AdminPairing:
    """Home Assistant's side of the code (the integration's WebSocket command, which the
    integration tests use for real): the code of the pairing an admin started, or None,
    and how often the app asked."""

    def __init__(self, code: str | None = None) -> None:
        self.code = code
        self.asked = 0

    async def fetch(self, instance: str) -> str | None:
        assert instance == INSTANCE
        self.asked += 1
        code, self.code = self.code, None  # fetched once
        return code


def channel_for(
    mosquitto: MosquittoBroker, tmp_path: Path, codes: AdminPairing, **options: Any
) -> IntegrationChannel:
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\n")
    store = PolicyStore(policy)
    store.load()
    return IntegrationChannel.for_app(
        BrokerSettings(mosquitto.host, mosquitto.port),
        ApiSettings(instance=INSTANCE),
        data_dir=tmp_path,
        policies=store,
        known_user_ids=lambda: None,
        codes=codes,
        **options,
    )


async def test_the_pairing_topics_on_a_real_broker(
    mosquitto: MosquittoBroker, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    admin = AdminPairing()
    channel = channel_for(mosquitto, tmp_path, admin)
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
        assert status.payload == b"closed"  # closed until an admin pairs
        state = await asyncio.to_thread(probe.expect, f"{root}/policy/state")
        assert json.loads(state.payload)["users"] == []
        request = f"{root}/pairing/request"
        # Closed: a start is refused at once, without a session.
        early = Client(CODE, "session-early")
        await asyncio.to_thread(probe.publish, request, json.dumps(early.start()))
        refused = await asyncio.to_thread(probe.expect, f"{root}/pairing/response/session-early")
        assert json.loads(refused.payload)["code"] == "pairing_closed"
        assert not channel.pairing.is_open and admin.asked == 0
        # An admin's config flow holds a code and presses: the app fetches it and opens.
        admin.code = CODE
        await asyncio.to_thread(probe.publish, f"{root}/pairing/open", b"", retain=True)
        await asyncio.to_thread(probe.publish, f"{root}/pairing/open", "PRESS")
        status = await asyncio.to_thread(probe.expect, f"{root}/pairing/status")
        assert status.payload == b"open" and admin.asked == 1
        client = Client(CODE)
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
        # Listed on the state topic, signed for the integration to believe.
        listed = await asyncio.to_thread(probe.expect, f"{root}/pairing/state")
        while json.loads(listed.payload)["pairings"] == []:
            listed = await asyncio.to_thread(probe.expect, f"{root}/pairing/state")
        listing = {
            "open": False,
            "pairings": [{"id": fingerprint(keys.secret), "label": store_label(tmp_path)}],
        }
        state = json.loads(listed.payload)
        assert state == sign_app_message(listing, [keys.secret], now=state["ts"])
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
    assert CODE not in caplog.text and keys.secret not in caplog.text


def store_label(data_dir: Path) -> str:
    ((_, label),) = SecretStore(data_dir / "integration_secrets").entries()
    return label


async def test_presses_open_nothing_unless_an_admin_is_pairing_and_are_limited(
    mosquitto: MosquittoBroker, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 25, findings 1 and 12. Reproduced on the old code: an unsigned PRESS from any
    broker login opened a window and showed its code to every HA user, ten times a minute.
    Now a press only makes the app ask HA, a few times a minute, and with no admin's
    pairing waiting there nothing opens."""
    admin = AdminPairing()  # nobody is pairing in HA
    channel = channel_for(mosquitto, tmp_path, admin)
    root = f"botpsy/{INSTANCE}"
    probe = MqttProbe(mosquitto.host, mosquitto.port)
    await asyncio.to_thread(probe.connect)
    try:
        await channel.start()
        await asyncio.wait_for(channel.wait_online(), 10)
        for _ in range(20):
            await asyncio.to_thread(probe.publish, f"{root}/pairing/open", "PRESS")
            await asyncio.sleep(0.02)  # one at a time, as a patient attacker
        await wait_for(lambda: admin.asked >= OPEN_PRESSES_PER_MINUTE, "the app asking HA")
        await asyncio.sleep(0.3)
        assert admin.asked == OPEN_PRESSES_PER_MINUTE
        assert not channel.pairing.is_open
        strays = [r for r in caplog.records if "no admin's pairing" in r.getMessage()]
        assert strays and all(r.name == "botpsy_agent.security" for r in strays)
    finally:
        await channel.stop()
        await asyncio.to_thread(probe.close)


async def test_with_pairing_by_code_off_a_press_asks_nothing(
    mosquitto: MosquittoBroker, tmp_path: Path
) -> None:
    """Under the Supervisor pairing by code is off unless an admin turns it on
    (`startup.pairing_by_code`): even an admin's pairing does not open a window."""
    admin = AdminPairing(CODE)
    channel = channel_for(mosquitto, tmp_path, admin, pairing_by_code=False)
    probe = MqttProbe(mosquitto.host, mosquitto.port)
    await asyncio.to_thread(probe.connect)
    try:
        await channel.start()
        await asyncio.wait_for(channel.wait_online(), 10)
        await asyncio.to_thread(probe.publish, f"botpsy/{INSTANCE}/pairing/open", "PRESS")
        await asyncio.sleep(0.5)
        assert admin.asked == 0 and not channel.pairing.is_open
    finally:
        await channel.stop()
        await asyncio.to_thread(probe.close)


async def test_a_flood_of_pairing_messages_is_dropped_beyond_the_limit(
    mosquitto: MosquittoBroker, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 18, finding 6. Reproduced on the old code: every one of 100 pairing starts was
    read and answered (and, in an open window, each bought a task for the arithmetic)."""
    channel = channel_for(mosquitto, tmp_path, AdminPairing(CODE))
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

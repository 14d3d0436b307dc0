"""Pairing against the people it must keep out: a listener on the broker never sees the
secret or the code, and a client that answers in the app's place without the code cannot
pair. The arithmetic itself: the integration's copy and the app's agree, and bad elements
are refused. (Who may start a pairing at all: tests/security/test_pairing_door.py.)"""

from __future__ import annotations

import asyncio
import json
import logging

from homeassistant import config_entries
from homeassistant.auth.models import User
from homeassistant.components import persistent_notification
from homeassistant.components.repairs import repairs_flow_manager
from homeassistant.core import Context, HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from botpsy_agent.contract import fingerprint, spake2
from botpsy_agent.mqtt.signing import SecretFile
from custom_components.botpsy.const import CONF_ACKNOWLEDGED, CONF_INSTANCE, CONF_SECRET, DOMAIN
from custom_components.botpsy.pairing import (
    CODE_COMMAND,
    PairingCodes,
    PairingError,
    async_exchange_secret,
)
from devkit.mosquitto import MosquittoBroker
from tests.ha_mqtt import wait_for
from tests.ha_server import HomeAssistantApiServer
from tests.integration.conftest import INSTANCE, SECRET, AppRunner, unload
from tests.mqtt_probe import MqttProbe

REQUEST_TOPIC = f"botpsy/{INSTANCE}/pairing/request"
RESPONSE_TOPIC = f"botpsy/{INSTANCE}/pairing/response"


async def test_a_listener_on_the_broker_never_sees_the_secret(
    hass: HomeAssistant,
    mqtt_entry: MockConfigEntry,
    app_runner: AppRunner,
    mosquitto: MosquittoBroker,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="botpsy_agent")
    app = await app_runner.start(model=False, secret=None)
    assert app.integration is not None
    codes: list[str] = []
    open_window = app.integration.pairing.open_window

    def seen_open(code: str) -> None:  # what the app fetched from HA, to look for it
        codes.append(code)
        open_window(code)

    app.integration.pairing.open_window = seen_open  # type: ignore[method-assign]
    listener = MqttProbe(mosquitto.host, mosquitto.port)
    await asyncio.to_thread(listener.connect)
    await asyncio.to_thread(listener.subscribe, "#")
    try:
        result = await hass.config_entries.flow.async_init(
            DOMAIN, context={"source": config_entries.SOURCE_USER}
        )
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {CONF_INSTANCE: INSTANCE}
        )
        assert result["type"] is FlowResultType.CREATE_ENTRY
        (code,) = codes
        secret = result["result"].data[CONF_SECRET]
        await asyncio.sleep(0.2)  # the last messages reach the listener
    finally:
        await asyncio.to_thread(listener.close)
    seen = []
    while not listener.messages.empty():
        seen.append(listener.messages.get_nowait())
    pairing = [m for m in seen if "/pairing/" in m.topic]
    assert {m.topic for m in pairing} >= {REQUEST_TOPIC}
    everything = b"".join(m.topic.encode() + m.payload for m in seen)
    assert secret.encode() not in everything
    assert code.encode() not in everything.upper()
    assert code not in caplog.text and secret not in caplog.text
    await unload(hass, result["result"])


def _impostor(mosquitto: MosquittoBroker, answer: str) -> MqttProbe:
    """A client that answers pairing requests in the app's place, not knowing the code:
    with its own guess (`answer="guess"`) or with a share that is no group element."""
    impostor = MqttProbe(mosquitto.host, mosquitto.port)
    impostor.connect()
    impostor.subscribe(REQUEST_TOPIC)

    def on_message(client: object, userdata: object, message: object) -> None:
        start = json.loads(message.payload)  # type: ignore[attr-defined]
        if start.get("step") != "start":
            return
        w = spake2.password_scalar("GUESSGU5", INSTANCE)
        y = spake2.random_exponent()
        s = spake2.share(y, w, spake2.N)
        t = spake2.element_from_hex(start["share"])
        keys = spake2.session_keys(INSTANCE, t, s, spake2.shared_element(t, w, spake2.M, y), w)
        reply = {
            "v": 1,
            "step": "share",
            "session": start["session"],
            "share": spake2.element_to_hex(s) if answer == "guess" else "00" * 384,
            "confirm": keys.confirm_b,
        }
        impostor.client.publish(
            f"botpsy/{INSTANCE}/pairing/response/{start['session']}", json.dumps(reply), qos=1
        )

    impostor.client.on_message = on_message
    return impostor


@pytest.mark.parametrize(
    ("answer", "reason"), [("guess", "invalid_code"), ("junk", "pairing_failed")]
)
async def test_an_impostor_without_the_code_cannot_pair(
    hass: HomeAssistant,
    mqtt_entry: MockConfigEntry,
    mosquitto: MosquittoBroker,
    answer: str,
    reason: str,
) -> None:
    impostor = await asyncio.to_thread(_impostor, mosquitto, answer)
    try:
        with pytest.raises(PairingError) as raised:
            await async_exchange_secret(hass, INSTANCE, "7K3M9QXD")
    finally:
        await asyncio.to_thread(impostor.close)
    assert raised.value.reason == reason


# --- who may open the door (issue 25, findings 1 and 12) ----------------------------------


async def test_a_child_on_the_broker_cannot_open_a_window_or_learn_a_code(
    hass: HomeAssistant,
    botpsy_entry: MockConfigEntry,
    app_runner: AppRunner,
    mosquitto: MosquittoBroker,
) -> None:
    """Issue 25, finding 1. Reproduced on the old code: an unsigned PRESS from any broker
    login (every HA user may log in to the Mosquitto app) opened a window and put its code
    in a notification every HA user can read; the child then paired and signed as an admin.
    Now a press only makes the app ask HA, and with no admin pairing there nothing opens."""
    (app,) = app_runner.running
    assert app.integration is not None
    child = MqttProbe(mosquitto.host, mosquitto.port)
    await asyncio.to_thread(child.connect)
    try:
        await asyncio.to_thread(child.publish, f"botpsy/{INSTANCE}/pairing/open", "PRESS")
        await asyncio.sleep(1.0)
        assert not app.integration.pairing.is_open
        assert not persistent_notification._async_get_or_create_notifications(hass)
        # Its SPAKE2 start is refused: there is no window to guess in.
        await asyncio.to_thread(child.subscribe, f"botpsy/{INSTANCE}/pairing/response/#")
        start = {"v": 1, "step": "start", "session": "child-session", "share": "00"}
        await asyncio.to_thread(child.publish, REQUEST_TOPIC, json.dumps(start))
        answer = await asyncio.to_thread(child.expect, f"{RESPONSE_TOPIC}/child-session")
        assert json.loads(answer.payload)["code"] == "pairing_closed"
    finally:
        await asyncio.to_thread(child.close)
    assert SecretFile(app_runner.data_dir / "integration_secrets").secrets() == (SECRET,)


async def test_only_an_admin_may_fetch_the_code_of_a_pairing(
    hass: HomeAssistant,
    ha_api: HomeAssistantApiServer,
    hass_ws_client: WebSocketGenerator,
    hass_read_only_access_token: str,
) -> None:
    """The code an admin's flow makes reaches the app only over HA's WebSocket API, on a
    command that refuses every user but an admin, and only once."""
    codes = PairingCodes.of(hass)
    async with codes.offered(INSTANCE) as offer:
        child = await hass_ws_client(hass, hass_read_only_access_token)
        await child.send_json_auto_id({"type": CODE_COMMAND, "instance": INSTANCE})
        refused = await child.receive_json()
        assert (refused["success"], refused["error"]["code"]) == (False, "unauthorized")
        assert not offer.fetched.is_set()
        admin = await hass_ws_client(hass, ha_api.token)
        await admin.send_json_auto_id({"type": CODE_COMMAND, "instance": "elsewhere"})
        assert (await admin.receive_json())["error"]["code"] == "not_found"
        await admin.send_json_auto_id({"type": CODE_COMMAND, "instance": INSTANCE})
        assert (await admin.receive_json())["result"] == {"code": offer.code}
        await admin.send_json_auto_id({"type": CODE_COMMAND, "instance": INSTANCE})
        assert (await admin.receive_json())["error"]["code"] == "not_found"  # once
    await admin.send_json_auto_id({"type": CODE_COMMAND, "instance": INSTANCE})
    assert (await admin.receive_json())["error"]["code"] == "not_found"  # the flow ended


def _pairing_issues(hass: HomeAssistant) -> dict[str, ir.IssueEntry]:
    return {
        issue_id: issue
        for (domain, issue_id), issue in ir.async_get(hass).issues.items()
        if domain == DOMAIN and issue_id.startswith("unknown_pairing_")
    }


async def test_an_unacknowledged_pairing_is_a_repair_issue_until_an_admin_handles_it(
    hass: HomeAssistant,
    botpsy_entry: MockConfigEntry,
    app_runner: AppRunner,
    mosquitto: MosquittoBroker,
    hass_admin_user: User,
) -> None:
    """Issue 25, finding 1. Reproduced on the old code: a new pairing was an ordinary
    notification, which any user could dismiss. Now every secret the app holds that is not
    the entry's own (nor the Supervisor's) is a repair issue, seen by admins only, that no
    fake on the broker can raise or clear, until an admin acknowledges or revokes it."""
    assert await async_setup_component(hass, "repairs", {})
    # A listing nobody signed is not believed.
    fake = {"open": False, "pairings": [{"id": "f" * 12, "label": "fake"}]}
    probe = MqttProbe(mosquitto.host, mosquitto.port)
    await asyncio.to_thread(probe.connect)
    try:
        await asyncio.to_thread(
            probe.publish, f"botpsy/{INSTANCE}/pairing/state", json.dumps(fake), retain=True
        )
        await asyncio.sleep(0.5)
        assert _pairing_issues(hass) == {}
    finally:
        await asyncio.to_thread(probe.close)
    # Two secrets HA did not make, as the app lists them after a restart.
    known, rogue = "k" * 64, "r" * 64
    with (app_runner.data_dir / "integration_secrets").open("a") as file:
        file.write(f"{known}  # paired 2026-11-30T09:00:00Z\n{rogue}  # paired 2026-12-01\n")
    await app_runner.stop(app_runner.running[0])
    await app_runner.start(model=False, secret=None)
    entry_id = botpsy_entry.entry_id
    issue_ids = {f"unknown_pairing_{entry_id}_{fingerprint(s)}" for s in (known, rogue)}
    await wait_for(lambda: set(_pairing_issues(hass)) == issue_ids, "two repair issues")
    issue = _pairing_issues(hass)[f"unknown_pairing_{entry_id}_{fingerprint(rogue)}"]
    assert issue.is_fixable and issue.severity is ir.IssueSeverity.CRITICAL
    assert issue.translation_placeholders == {
        "instance": INSTANCE,
        "pairing_id": fingerprint(rogue),
        "label": "paired 2026-12-01",
    }
    # An admin knows the first: the repair's flow acknowledges it, for good.
    flows = repairs_flow_manager(hass)
    assert flows is not None
    flow = await flows.async_init(
        DOMAIN, context={"issue_id": f"unknown_pairing_{entry_id}_{fingerprint(known)}"}
    )
    assert flow.get("step_id") == "confirm", flow
    done = await flows.async_configure(flow["flow_id"], {})
    assert done["type"] is FlowResultType.CREATE_ENTRY
    assert botpsy_entry.data[CONF_ACKNOWLEDGED] == [fingerprint(known)]
    assert set(_pairing_issues(hass)) == {f"unknown_pairing_{entry_id}_{fingerprint(rogue)}"}
    # ... and revokes the other (signed for the admin calling): its issue goes with it.
    await hass.services.async_call(
        DOMAIN,
        "revoke_pairing",
        {"pairing_id": fingerprint(rogue)},
        blocking=True,
        context=Context(user_id=hass_admin_user.id),
    )
    await wait_for(lambda: _pairing_issues(hass) == {}, "the rogue's issue gone")
    assert SecretFile(app_runner.data_dir / "integration_secrets").secrets() == (SECRET, known)
    # Without a user (an automation) nobody is named as the admin: refused in HA already.
    with pytest.raises(ServiceValidationError):
        await hass.services.async_call(
            DOMAIN, "revoke_pairing", {"pairing_id": fingerprint(known)}, blocking=True
        )

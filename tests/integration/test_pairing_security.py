"""Pairing against the people it must keep out: a listener on the broker never sees the
secret, and a client that answers in the app's place without the code cannot pair. The
arithmetic itself: the integration's copy and the app's agree, and bad elements are refused."""

from __future__ import annotations

import asyncio
from dataclasses import astuple
import json
import logging
import random
from types import ModuleType

from homeassistant import config_entries
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from botpsy_agent.link import spake2 as app_spake2
from custom_components.botpsy import spake2 as ha_spake2
from custom_components.botpsy.const import CONF_INSTANCE, CONF_PAIRING_CODE, CONF_SECRET, DOMAIN
from custom_components.botpsy.pairing import PairingError, async_pair
from devkit.mosquitto import MosquittoBroker
from tests.integration.conftest import INSTANCE, AppRunner, unload
from tests.integration.test_config_flow import pairing_code
from tests.mqtt_probe import MqttProbe

REQUEST_TOPIC = f"botpsy/{INSTANCE}/pairing/request"


async def test_a_listener_on_the_broker_never_sees_the_secret(
    hass: HomeAssistant,
    mqtt_entry: MockConfigEntry,
    app_runner: AppRunner,
    mosquitto: MosquittoBroker,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="botpsy_agent")
    await app_runner.start(model=False, secret=None)
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
        code = await pairing_code(hass)
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {CONF_PAIRING_CODE: code}
        )
        assert result["type"] is FlowResultType.CREATE_ENTRY
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
    assert code.replace("-", "").encode() not in everything.upper()
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
        w = app_spake2.password_scalar("GUESSGU5", INSTANCE)
        y = app_spake2.random_exponent()
        s = app_spake2.share(y, w, app_spake2.N)
        t = app_spake2.element_from_hex(start["share"])
        keys = app_spake2.session_keys(
            INSTANCE, t, s, app_spake2.shared_element(t, w, app_spake2.M, y), w
        )
        reply = {
            "v": 1,
            "step": "share",
            "session": start["session"],
            "share": app_spake2.element_to_hex(s) if answer == "guess" else "00" * 384,
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
            await async_pair(hass, INSTANCE, "7K3M-9QXD")
    finally:
        await asyncio.to_thread(impostor.close)
    assert raised.value.reason == reason


def test_the_group_is_a_safe_prime_group() -> None:
    """(One copy is checked: test_package keeps the two files equal.)"""
    module: ModuleType = ha_spake2
    p, q = module.P, module.Q
    assert p.bit_length() == 3072 and p == 2 * q + 1
    rng = random.Random(7)
    for n in (p, q):  # Miller-Rabin, a few rounds: a typo in the constant would fail
        d, s = n - 1, 0
        while d % 2 == 0:
            d, s = d // 2, s + 1
        for _ in range(2):
            x = pow(rng.randrange(2, n - 2), d, n)
            if x in (1, n - 1):
                continue
            for _ in range(s - 1):
                x = pow(x, 2, n)
                if x == n - 1:
                    break
            else:
                pytest.fail("not prime")
    assert pow(module.G, q, p) == 1
    assert pow(module.M, q, p) == 1 and pow(module.N, q, p) == 1


def test_both_copies_agree_and_refuse_what_is_no_element() -> None:
    w = ha_spake2.password_scalar("7K3M9QXD", INSTANCE)
    assert w == app_spake2.password_scalar("7K3M9QXD", INSTANCE)
    assert w != ha_spake2.password_scalar("7K3M9QXD", "other")
    x, y = ha_spake2.random_exponent(), app_spake2.random_exponent()
    t, s = ha_spake2.share(x, w, ha_spake2.M), app_spake2.share(y, w, app_spake2.N)
    k_a = ha_spake2.shared_element(
        app_spake2.element_from_hex(app_spake2.element_to_hex(s)), w, ha_spake2.N, x
    )
    k_b = app_spake2.shared_element(t, w, app_spake2.M, y)
    assert k_a == k_b
    assert astuple(ha_spake2.session_keys(INSTANCE, t, s, k_a, w)) == astuple(
        app_spake2.session_keys(INSTANCE, t, s, k_b, w)
    )
    for bad in (None, "12", "zz" * 384, "00" * 384, f"{ha_spake2.P - 1:0768x}"):
        with pytest.raises(ha_spake2.Spake2Error):
            ha_spake2.element_from_hex(bad)
    assert not ha_spake2.tags_match("ab", None)

"""Issue 18, finding 6: one client starves everyone. Against the whole app (real broker, real
HA test home): principals the policy does not name are refused at the door before they take
anything from the rate limits or reach the agent; an HA user's answer to a pending question
is never rate-limited; HA's birth messages cannot make the app announce without end."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
import time
from typing import Any

from homeassistant.core import HomeAssistant
import pytest

from botpsy_agent.audit.read import AuditFilter, AuditReader
from botpsy_agent.mqtt.settings import ApiSettings
from devkit.mosquitto import MosquittoBroker
from tests.ha_home import HaHome
from tests.ha_server import HomeAssistantApiServer
from tests.mqtt.client import ApiClient, subscribed_client
from tests.reliability.harness import (
    INSTANCE,
    REQUEST,
    RESPONSE,
    app_config,
    changed,
    home_states,
    running_app,
    signed,
)

LIMITS = ApiSettings(instance=INSTANCE, languages=("en",), rate_per_principal=4, rate_global=6)


@pytest.fixture
async def client(mosquitto: MosquittoBroker) -> AsyncIterator[ApiClient]:
    async with subscribed_client(mosquitto, f"{RESPONSE}/#") as api_client:
        yield api_client


async def _ask(client: ApiClient, topic: str, document: dict[str, Any]) -> dict[str, Any]:
    client.publish(topic, document)
    reply = topic.replace("/request", "/response", 1)
    return await client.response(reply, document["id"])


async def test_invented_principals_and_a_flooding_user_cannot_block_a_yes(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    client: ApiClient,
    tmp_path: Any,
) -> None:
    """Reproduced on the old code: five invented `request/<name>` topics used up the global
    limit, and the admin's "yes" was answered `rate_limited`; the garage stayed shut."""
    daniel = ha_home.users["Daniel"]
    async with running_app(app_config(ha_api, mosquitto, tmp_path, api=LIMITS)) as app:
        asked = await _ask(client, REQUEST, signed(daniel, "q1", "open the garage door"))
        assert asked["status"] == "needs_confirmation", asked
        conversation = asked["conversation_id"]
        before = home_states(hass)

        # The attacker: invented principals (nobody the policy names), many of them.
        for n in range(12):
            refused = await _ask(
                client, f"{REQUEST}/intruder{n}", {"id": f"x{n}", "text": "open the garage door"}
            )
            assert (refused["status"], refused["error"]["code"]) == (
                "refused",
                "unknown_principal",
            ), refused
        # Anonymous, whom this policy grants nothing, is nobody too.
        anonymous = await _ask(client, REQUEST, {"id": "a1", "text": "open the garage door"})
        assert anonymous["error"]["code"] == "unknown_principal"
        # The admin's own bucket is emptied as well (a script of theirs running amok).
        for n in range(5):
            await _ask(client, REQUEST, signed(daniel, f"d{n}", "what time is it"))

        started = time.monotonic()
        yes = await _ask(client, REQUEST, signed(daniel, "q2", "yes", conversation_id=conversation))
        assert yes["status"] == "done", yes
        assert time.monotonic() - started < 1.0
        assert "cover.garage_door" in changed(before, home_states(hass))

        # A second "yes" in the same conversation has nothing to answer: limited again.
        again = await _ask(
            client, REQUEST, signed(daniel, "q3", "yes", conversation_id=conversation)
        )
        assert again["error"]["code"] == "rate_limited"

        records = list(AuditReader(app.audit.path).records(AuditFilter(security_only=True)))
        unknown = [r for r in records if r["code"] == "unknown_principal"]
        assert len(unknown) == 13
        assert {r["principal"] for r in unknown} >= {"mqtt:intruder0", "anonymous:anonymous"}
        # None of them reached the agent: no request record for any.
        requests = AuditReader(app.audit.path).records(AuditFilter(kinds=frozenset({"request"})))
        assert not {r["id"] for r in requests} & {r["id"] for r in unknown}


async def test_ha_birth_messages_do_not_make_the_app_announce_without_end(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    client: ApiClient,
    tmp_path: Any,
) -> None:
    """Reproduced on the old code: every 6-byte `online` on `homeassistant/status` made the
    app republish everything (~38 KB); 50 of them, 50 announcements."""
    async with running_app(app_config(ha_api, mosquitto, tmp_path)) as app:
        assert app.mqtt is not None
        first = app.mqtt.announcements
        for _ in range(50):
            client.client.publish("homeassistant/status", b"online", qos=1)
        await asyncio.sleep(1.0)
        assert app.mqtt.announcements - first <= 1


SHARED_LIMITS = ApiSettings(
    instance=INSTANCE, languages=("en",), rate_per_principal=30, rate_global=8
)


async def test_a_named_principal_cannot_use_up_the_minute_of_ha_users(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    client: ApiClient,
    tmp_path: Any,
) -> None:
    """Issue 25, finding 11. Without a broker ACL anyone can pose as a principal the
    policy names (the kids' tablet here) and send within its own allowance. Reproduced on
    the old code: the tablet's flood took all 8 of the global minute, leaving nothing for
    an HA user's signed request."""
    tablet = f"{REQUEST}/kids-tablet"
    async with running_app(app_config(ha_api, mosquitto, tmp_path, api=SHARED_LIMITS)):
        statuses = []
        for n in range(10):
            answer = await _ask(client, tablet, {"id": f"t{n}", "text": "turn on Sam's fan"})
            statuses.append(answer.get("error", {}).get("code") or answer["status"])
        assert statuses == ["done"] * 6 + ["rate_limited"] * 4, statuses  # 8 less the reserve
        daniel = ha_home.users["Daniel"]
        for n in range(2):
            mine = await _ask(
                client, REQUEST, signed(daniel, f"d{n}", "turn on the kitchen lights")
            )
            assert mine["status"] == "done", mine
        over = await _ask(client, REQUEST, signed(daniel, "d2", "turn on the kitchen lights"))
        assert over["error"]["code"] == "rate_limited"  # the global limit still holds

"""Faults, each for real, on the whole app: the broker restarts, HA drops mid-action, the
model thread hangs or crashes, the disk fills, the policy file breaks. Each time the app keeps
serving what it can, answers every accepted request once (or with a clear error), never runs
an action twice, says what is wrong (health file, HA's Health sensor via the stats topic, log)
and recovers by itself."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
import json
from pathlib import Path
import re
import threading
from typing import Any

from homeassistant.core import Event, HomeAssistant, ServiceCall
from homeassistant.setup import async_setup_component
import pytest

from botpsy_agent.app.health import HealthState, check_health
from botpsy_agent.app.runtime import App, StartupProblem
from botpsy_agent.audit.read import AuditReader
from botpsy_agent.llm.llama_cpp import LlamaEngine
from botpsy_agent.llm.worker import Job, ModelTimeout, ModelUnavailable
from devkit.mosquitto import MosquittoBroker
from tests.agent.support import call
from tests.ha_bridge import wait_until
from tests.ha_home import HaHome
from tests.ha_server import HomeAssistantApiServer
from tests.mqtt.client import ApiClient, subscribed_client
from tests.reliability.harness import (
    RESPONSE,
    ROOT,
    GatedPlanner,
    app_config,
    changed,
    home_states,
    model_ready,
    running_app,
    signed,
)

REQUEST = f"{ROOT}/request"
STATS = f"{ROOT}/stats"
TABLET_REQUEST = f"{REQUEST}/kids-tablet"
TABLET_RESPONSE = f"{RESPONSE}/kids-tablet"


def answers_per_id(client: ApiClient) -> Counter[str]:
    answers = [*client.received(RESPONSE), *client.received(TABLET_RESPONSE)]
    return Counter(m.json()["id"] for m in answers)


def service_calls(hass: HomeAssistant, domain: str, service: str) -> list[Event]:
    calls: list[Event] = []

    def record(event: Event) -> None:
        if (event.data["domain"], event.data["service"]) == (domain, service):
            calls.append(event)

    hass.bus.async_listen("call_service", record)
    return calls


async def stats_with(client: ApiClient, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The next stats message (what HA's Health sensor reads) for which `check` holds."""
    message = await client.expect(STATS, lambda m: check(m.json()))
    stats: dict[str, Any] = message.json()
    return stats


@pytest.fixture
async def client(mosquitto: MosquittoBroker) -> AsyncIterator[ApiClient]:
    async with subscribed_client(mosquitto, f"{RESPONSE}/#", STATS) as api_client:
        api_client.patience_s = 15
        yield api_client


async def test_broker_restart_mid_request_answers_once_and_acts_once(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    client: ApiClient,
    tmp_path: Path,
) -> None:
    toggles = service_calls(hass, "light", "toggle")
    before = hass.states.get("light.bed_light").state  # type: ignore[union-attr]
    daniel = ha_home.users["Daniel"]
    async with running_app(app_config(ha_api, mosquitto, tmp_path)) as app:
        assert app.agent is not None and app.mqtt is not None
        links: list[bool] = []
        app.mqtt.on_connection.append(links.append)
        planner = GatedPlanner([call("toggle", entity_id=["light.bed_light"])])
        app.agent.planner = planner
        client.publish(REQUEST, signed(daniel, "b1", "flip the bedside lamp for me, thanks"))
        await client.until(lambda: planner.waiting == 1, "the request in flight")

        await asyncio.to_thread(mosquitto.restart)
        # The broker kept no sessions: an answer published before the client has subscribed
        # again would reach nobody (a client then retries by id, below). So the request
        # finishes once the client is back; the app may still be reconnecting (paho keeps
        # the QoS 1 answer until it is).
        await client.reconnected()
        planner.gate.set()
        answer = await client.response(RESPONSE, "b1")
        assert answer["status"] == "done", answer
        await wait_until(lambda: links[-1:] == [True], 10)
        assert False in links  # the loss was seen (health file: MQTT not connected)

        client.publish(REQUEST, signed(daniel, "b1", "flip the bedside lamp for me, thanks"))
        assert (await client.response(RESPONSE, "b1")) == answer  # a retry: the first outcome
        client.publish(REQUEST, signed(daniel, "b2", "turn on the kitchen lights"))
        assert (await client.response(RESPONSE, "b2"))["path"] == "fast_path"
        await asyncio.sleep(0.3)
        assert answers_per_id(client) == {"b1": 2, "b2": 1}
        assert len(toggles) == 1
        assert hass.states.get("light.bed_light").state != before  # type: ignore[union-attr]
        assert app.health.snapshot.mqtt_connected
        assert "mqtt" not in app.health.snapshot.detail


async def test_ha_dropping_mid_action_answers_once_never_retries_and_reconnects(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    client: ApiClient,
    tmp_path: Path,
) -> None:
    delivered: list[str] = []
    release = asyncio.Event()

    async def slow_phone(service_call: ServiceCall) -> None:  # hangs mid-delivery
        delivered.append(service_call.data["message"])
        await release.wait()

    hass.services.async_register("notify", "mobile_app_slow_phone", slow_phone)
    daniel = ha_home.users["Daniel"]
    async with running_app(app_config(ha_api, mosquitto, tmp_path)) as app:
        assert app.agent is not None
        await wait_until(lambda: "notify.mobile_app_slow_phone" in app.index.home.entities, 5)
        planner = GatedPlanner(
            [call("send_message", recipient="notify.mobile_app_slow_phone", message="hello")]
        )
        planner.gate.set()
        app.agent.planner = planner
        request = signed(daniel, "h1", "tell my slow phone hello")
        client.publish(REQUEST, request)
        await wait_until(lambda: delivered == ["hello"], 5)

        await ha_api.stop()  # HA goes away while the message is being delivered
        answer = await client.response(RESPONSE, "h1")
        assert answer["status"] == "error", answer
        (action,) = answer["actions"]
        assert action["error"]["code"] == "ha_connection_lost"
        assert "may or may not have happened" in action["error"]["message"]
        await wait_until(lambda: "ha:" in app.health.snapshot.detail, 5)
        degraded = await stats_with(client, lambda s: s.get("health") == "degraded")
        assert any("Home Assistant" in p for p in degraded["problems"])

        client.publish(REQUEST, request)  # the client retries the same request: not re-run
        assert (await client.response(RESPONSE, "h1"))["status"] == "error"

        await ha_api.start()
        await wait_until(lambda: app.client.connected, 10)
        await wait_until(lambda: "ha:" not in app.health.snapshot.detail, 5)
        await stats_with(client, lambda s: s.get("health") == "ok")
        client.publish(REQUEST, signed(daniel, "h2", "turn off the kitchen lights"))
        assert (await client.response(RESPONSE, "h2"))["status"] == "done"
        release.set()
        await hass.async_block_till_done()
        assert delivered == ["hello"]  # once, although HA came back and the client retried
        assert answers_per_id(client) == {"h1": 2, "h2": 1}


def _hanging_job(release: threading.Event, started: threading.Event) -> Job[str]:
    def job(engine: LlamaEngine, cancel: threading.Event) -> str:  # ignores `cancel`
        started.set()
        release.wait(30)
        return "finally"

    return job


class _ThreadKiller(BaseException):
    """Raised on the model thread: stands in for a fault that ends it (not an Exception,
    so no per-job handler catches it)."""


def _crashing_job(engine: LlamaEngine, cancel: threading.Event) -> str:
    raise _ThreadKiller


async def _model_answers(client: ApiClient, request_id: str) -> dict[str, Any]:
    """A model-path request of the kids' tablet (a small prompt: one room), as a dry run:
    the tiny model's random calls change nothing."""
    client.publish(
        TABLET_REQUEST, {"id": request_id, "text": "hmm, what about sam?", "dry_run": True}
    )
    answer: dict[str, Any] = await client.response(TABLET_RESPONSE, request_id)
    return answer


def _not_from_a_broken_model(answer: dict[str, Any]) -> bool:
    error = answer.get("error") or {}
    return answer["path"] == "model" and error.get("code") not in {
        "timeout",
        "model_unavailable",
        "busy",
        "internal_error",
    }


@pytest.mark.parametrize("fault", ["hang", "crash"])
async def test_a_hung_or_crashed_model_worker_is_replaced_while_the_fast_path_serves(
    fault: str,
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    client: ApiClient,
    tiny_qwen35_gguf: Path,
    tmp_path: Path,
) -> None:
    daniel = ha_home.users["Daniel"]
    config = app_config(
        ha_api,
        mosquitto,
        tmp_path,
        model=tiny_qwen35_gguf,
        model_timeout_s=20.0,
        model_watchdog_s=0.05,
        model_hang_grace_s=0.5,
    )
    release, started = threading.Event(), threading.Event()
    async with running_app(config) as app:
        await model_ready(app)
        first = app.worker
        assert first is not None
        assert _not_from_a_broken_model(await _model_answers(client, "m0"))

        if fault == "hang":
            with pytest.raises(ModelTimeout):  # the job overstays; its cancel is ignored
                await first.run(_hanging_job(release, started), timeout_s=0.2)
            # A model request now waits behind the stuck job: answered when it is replaced.
            waiting = await _model_answers(client, "m-stuck")
            assert waiting["error"]["code"] == "model_unavailable", waiting
        else:
            with pytest.raises(ModelUnavailable):
                await first.run(_crashing_job, timeout_s=5)
        await wait_until(lambda: app.worker is not first, 5)
        assert app.watchdog.restarts == 1
        assert "model: restarting the model" in app.health.snapshot.detail
        # While the model comes back, the fast path serves, and the health says why.
        client.publish(REQUEST, signed(daniel, "f1", "turn on the kitchen lights"))
        fast = await client.response(RESPONSE, "f1")
        assert (fast["status"], fast["path"]) == ("done", "fast_path")
        await stats_with(client, lambda s: s.get("health") == "degraded")

        await model_ready(app)
        assert _not_from_a_broken_model(await _model_answers(client, "m1"))
        assert "model" not in app.health.snapshot.detail
        await stats_with(client, lambda s: s.get("health") == "ok")
        expected = {"m0": 1, "f1": 1, "m1": 1} | ({"m-stuck": 1} if fault == "hang" else {})
        assert answers_per_id(client) == expected
        release.set()  # the stuck thread may end now; the app joins it when it stops
    assert not first.alive


async def test_a_full_disk_drops_audit_records_cleanly_and_the_log_recovers(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    client: ApiClient,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    daniel = ha_home.users["Daniel"]
    config = app_config(ha_api, mosquitto, tmp_path)
    log_file = config.data_dir / "audit" / "audit.jsonl"
    log_file.parent.mkdir(parents=True)
    log_file.symlink_to("/dev/full")  # every write: ENOSPC, as on a full disk
    turn_ons = service_calls(hass, "light", "turn_on")
    async with running_app(config) as app:
        client.publish(REQUEST, signed(daniel, "d1", "turn on the kitchen lights"))
        assert (await client.response(RESPONSE, "d1"))["status"] == "done"
        assert app.audit.dropped >= 3  # request, action, response
        assert "No space left on device" in caplog.text
        assert "audit: audit log not writable" in app.health.snapshot.detail
        await stats_with(client, lambda s: s.get("health") == "degraded")
        assert len([r for r in caplog.records if "cannot be written" in r.getMessage()]) == 1

        log_file.unlink()  # space again
        client.publish(REQUEST, signed(daniel, "d2", "turn off the kitchen lights"))
        assert (await client.response(RESPONSE, "d2"))["status"] == "done"
        assert "audit" not in app.health.snapshot.detail
        assert "can be written again" in caplog.text
        records = list(AuditReader(log_file).records())
        assert [r["kind"] for r in records] == ["request", "action", "response"]
        assert {r["id"] for r in records} == {"d2"}
        assert len(turn_ons) == 1
        assert answers_per_id(client) == {"d1": 1, "d2": 1}


async def test_an_invalid_policy_edit_keeps_the_rules_in_force_until_it_is_fixed(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    client: ApiClient,
    tmp_path: Path,
) -> None:
    config = app_config(ha_api, mosquitto, tmp_path, policy_poll_s=0.05)
    tablet, tablet_answers = TABLET_REQUEST, TABLET_RESPONSE
    async with running_app(config) as app:
        before = home_states(hass)
        config.policy_file.write_text(
            config.policy_file.read_text() + "\n      - allow: [control]\n  bad indent: [\n"
        )
        await wait_until(lambda: "policy:" in app.health.snapshot.detail, 5)
        assert re.search(r"policy\.yaml:\d+: YAML syntax error", app.health.snapshot.detail)
        stats = await stats_with(client, lambda s: s.get("health") == "degraded")
        assert any("invalid policy file" in p for p in stats["problems"])

        # The old rules still hold: the kids' tablet may not touch the kitchen.
        client.publish(tablet, {"id": "p1", "text": "turn on the kitchen lights"})
        assert (await client.response(tablet_answers, "p1"))["status"] == "refused"
        client.publish(tablet, {"id": "p2", "text": "turn on sam's fan"})
        assert (await client.response(tablet_answers, "p2"))["status"] == "done"
        assert changed(before, home_states(hass)) == {"fan.percentage_full_fan"}

        # Fixed: a new rule set (the kitchen too) is in force, the problem is gone.
        text = config.policy_file.read_text().split("\n      - allow: [control]")[0]
        fixed = text.replace("areas: [kids_room]", "areas: [kids_room, kitchen]")
        config.policy_file.write_text(fixed)
        await wait_until(lambda: "policy" not in app.health.snapshot.detail, 5)
        client.publish(tablet, {"id": "p3", "text": "turn on the kitchen lights"})
        assert (await client.response(tablet_answers, "p3"))["status"] == "done"
        await stats_with(client, lambda s: s.get("health") == "ok")


def test_the_health_file_that_cannot_be_written_fails_cleanly_and_recovers(
    tmp_path: Path,
) -> None:
    run_dir = tmp_path / "run"
    health = HealthState(run_dir / "health.json")
    health.update(model_loaded=True, mqtt_connected=True, ha_connected=True, detail="ready")
    assert check_health(health.path).healthy
    blocked = tmp_path / "blocked"
    blocked.write_text("")  # a file where the folder should be: every write fails
    health.path = blocked / "health.json"
    health.update(detail="still running")  # no exception: the app goes on
    assert health.write_error is not None
    health.path = run_dir / "health.json"
    health.beat()
    assert health.write_error is None
    assert json.loads(health.path.read_text())["detail"] == "still running"


async def test_a_token_home_assistant_refuses_stops_the_start_with_one_clear_line(
    hass: HomeAssistant,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    tmp_path: Path,
) -> None:
    assert await async_setup_component(hass, "api", {})  # HA's REST API, as in every HA
    config = app_config(ha_api, mosquitto, tmp_path)
    app = App(replace(config, ha=replace(config.ha, token="not-a-token")))
    try:
        with pytest.raises(StartupProblem, match="Home Assistant refused the app's token"):
            await app.start()
    finally:
        await app.stop()

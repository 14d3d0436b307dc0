"""Rate limits per principal and for the whole app: `busy` with code `rate_limited`, nothing
run, a security event in the log and the audit log; a client that waits gets through."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from botpsy_agent.audit.log import AuditLog
from botpsy_agent.audit.read import AuditFilter, AuditReader
from botpsy_agent.mqtt import ApiSettings
from botpsy_agent.mqtt.ratelimit import RateLimiter
from devkit.mosquitto import MosquittoBroker
from tests.mqtt.agents import ActingAgent
from tests.mqtt.client import ApiClient
from tests.mqtt.conftest import INSTANCE, ROOT, StartService, plain_settings


class ManualClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_principal_gets_a_burst_then_its_rate() -> None:
    clock = ManualClock()
    limits = RateLimiter(per_principal=6, global_=None, clock=clock)
    assert [limits.admit("mqtt:a") for _ in range(6)] == [None] * 6
    refused = limits.admit("mqtt:a")
    assert refused is not None and refused.scope == "principal"
    assert refused.retry_after_s == pytest.approx(10.0)  # 6 a minute: one every 10 s
    assert limits.admit("mqtt:b") is None  # others are not affected
    clock.now += 10
    assert limits.admit("mqtt:a") is None
    assert limits.admit("mqtt:a") is not None


def test_the_global_limit_covers_everyone_and_refusals_cost_nothing() -> None:
    clock = ManualClock()
    limits = RateLimiter(per_principal=5, global_=8, clock=clock)
    assert limits.reserved == 2  # a quarter of the minute, kept for signed HA users
    for n in range(6):
        assert limits.admit(f"mqtt:p{n % 4}") is None
    refused = limits.admit("mqtt:new")
    assert refused is not None and refused.scope == "global"
    assert [refused.streak, limits.admit("mqtt:new").streak] == [1, 2]  # type: ignore[union-attr]
    assert [limits.admit("user:anna") for _ in range(2)] == [None, None]  # the reserve
    assert limits.admit("user:anna") is not None  # and then the whole minute is used
    clock.now += 10  # one common token back (6 a minute)
    assert limits.admit("mqtt:new") is None  # its own bucket was not drained by refusals


def test_memory_stays_bounded_by_active_principals() -> None:
    clock = ManualClock()
    limits = RateLimiter(per_principal=10, global_=None, clock=clock, max_tracked=100)
    for n in range(1000):
        limits.admit(f"mqtt:p{n}")
        clock.now += 0.01
    assert len(limits) <= 101
    clock.now += 61
    limits.admit("mqtt:late")
    assert len(limits) <= 101


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        RateLimiter(per_principal=0, global_=10)


PANEL = f"{ROOT}/request/panel"
PANEL_ANSWERS = f"{ROOT}/response/panel"


async def test_beyond_the_limit_requests_are_answered_rate_limited_and_never_run(
    mosquitto: MosquittoBroker,
    start_service: StartService,
    client: ApiClient,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    agent = ActingAgent()
    audit = AuditLog(tmp_path / "audit.jsonl")
    api = ApiSettings(instance=INSTANCE, rate_per_principal=3, rate_global=5)
    await start_service(agent, plain_settings(mosquitto), api, audit=audit)
    for n in range(5):
        client.publish(PANEL, {"id": f"p{n}", "text": "kitchen light on"})
    answers = [await client.response(PANEL_ANSWERS, f"p{n}") for n in range(5)]
    assert [a["status"] for a in answers] == ["done"] * 3 + ["busy"] * 2
    assert {a["error"]["code"] for a in answers[3:]} == {"rate_limited"}
    assert "try again in" in answers[3]["error"]["message"]
    assert agent.executions == 3

    client.publish(PANEL, {"id": "p0", "text": "kitchen light on"})  # a retry: not counted
    assert (await client.response(PANEL_ANSWERS, "p0"))["status"] == "done"
    for n in range(3):  # another principal, up to the global limit (5, 1 kept for HA users)
        client.publish(f"{ROOT}/request/other", {"id": f"o{n}", "text": "kitchen light on"})
    other = [await client.response(f"{ROOT}/response/other", f"o{n}") for n in range(3)]
    assert [a["status"] for a in other] == ["done", "busy", "busy"]
    assert agent.executions == 4

    security = [r for r in caplog.records if r.name == "botpsy_agent.security"]
    warned = [r for r in security if r.levelno == logging.WARNING]
    assert len(warned) == 2  # once per flood (panel, then the global limit), not per request
    assert all("rate_limited" in r.getMessage() for r in security)
    refused = list(AuditReader(audit.path).records(AuditFilter(security_only=True)))
    assert [(r["id"], r["principal"], r["code"]) for r in refused] == [
        ("p3", "mqtt:panel", "rate_limited"),
        ("p4", "mqtt:panel", "rate_limited"),
        ("o1", "mqtt:other", "rate_limited"),
        ("o2", "mqtt:other", "rate_limited"),
    ]

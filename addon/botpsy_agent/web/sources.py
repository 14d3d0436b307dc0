"""What the admin page reads from the running app (`app/runtime.App` fills it in): the same
numbers HA's sensors show, the health check's verdict, the doctor's checks, the pairing
channel, the audit log, the policy in force and the home."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from botpsy_agent.ha import HaUser
from botpsy_agent.home import Home
from botpsy_agent.link import IntegrationChannel
from botpsy_agent.policy import Policy


class CheckResult(Protocol):
    """One of the doctor's checks (`app/doctor.Check`)."""

    @property
    def name(self) -> str: ...
    @property
    def ok(self) -> bool: ...
    @property
    def detail(self) -> str: ...
    @property
    def fix(self) -> str: ...


class HealthVerdict(Protocol):
    """The health check's verdict (`app/health.Verdict`), as the Supervisor gets it."""

    @property
    def healthy(self) -> bool: ...
    @property
    def reason(self) -> str: ...


@dataclass(frozen=True)
class PageSources:
    instance: str
    version: str
    users: Callable[[], Sequence[HaUser]]
    """HA's users (`config/auth/list`, kept current by the entity index): who is an admin."""
    stats: Callable[[], Mapping[str, Any]]
    """What the `stats` topic says now (queue, latency, health, model state); {} before
    the MQTT side is up."""
    model: Callable[[], str | None]
    """The loaded model, e.g. `BotPsy-0.8B-Q8_0.gguf (qwen35 Q8_0)`; None while none is."""
    health: Callable[[], HealthVerdict]
    audit_file: Path
    policy: Callable[[], Policy]
    home: Callable[[], Home]
    now: Callable[[], datetime]
    """The home's time (time windows of rules are in it)."""
    channel: Callable[[], IntegrationChannel | None]
    """Pairing and the paired secrets; None before the link to HA is up."""
    doctor: Callable[[], Awaitable[Sequence[CheckResult]]] | None = None
    """`botpsy-agent doctor`'s checks; None where there is no options file to check."""

"""Settings of the MQTT front door: where the broker is, and how the topic API behaves.

Both are frozen; the app's config module fills them from the app options (or the
Supervisor's MQTT service). Nothing here reads files or the network.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
import re
from typing import Final

from botpsy_agent.contract import BASE_TOPIC, INSTANCE_PATTERN

INSTANCE_RULE: Final = "1-32 of a-z, 0-9, '_' or '-', starting with a letter or digit"
TOPIC_PREFIX_PATTERN = re.compile(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*")


class MqttVersion(StrEnum):
    V311 = "3.1.1"
    V5 = "5"


@dataclass(frozen=True)
class TlsSettings:
    """TLS towards the broker. The server certificate is always verified."""

    ca_file: Path | None = None
    """CA bundle that signed the broker's certificate; None uses the system's CAs."""
    cert_file: Path | None = None
    """Client certificate, for brokers that require one (mutual TLS)."""
    key_file: Path | None = None
    """Private key of `cert_file`."""


@dataclass(frozen=True)
class BrokerSettings:
    """How to reach and log in to the broker. The password never appears in a repr."""

    host: str = "core-mosquitto"
    port: int = 1883
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    tls: TlsSettings | None = None
    version: MqttVersion = MqttVersion.V5
    """MQTT 5 lets the app honour response-topic and correlation-data properties;
    3.1.1 clients are served either way."""
    client_id: str | None = None
    """Defaults to `botpsy-<instance>`: one connection per instance."""
    keepalive_s: int = 30
    reconnect_min_s: int = 1
    reconnect_max_s: int = 30
    """Reconnect backoff: starts at the minimum and doubles up to the maximum."""


@dataclass(frozen=True)
class ApiSettings:
    """The topic API: names, limits and languages."""

    instance: str = "home"
    """`botpsy/<instance>/…`; one per app installation."""
    base_topic: str = BASE_TOPIC
    discovery_prefix: str = "homeassistant"
    languages: tuple[str, ...] = ("en", "ko", "id")
    """Languages the agent answers in; a request for another is refused."""
    queue_capacity: int = 16
    """Requests admitted and not yet answered; one more is answered `busy` at once."""
    outcome_cache_size: int = 1024
    """Finished outcomes kept so a client retry (same `id`) gets the same answer."""
    replay_window_s: int = 60
    """How far a signed request's `ts` may be from the app's clock, either way."""
    max_payload_bytes: int = 16_384
    max_text_chars: int = 2_000
    stats_interval_s: float = 30.0
    """The stats topic is published on change (at most once a second) and at least this often."""
    shutdown_grace_s: float = 5.0
    """On stop, running requests get this long to finish before they are answered
    `shutting_down`."""
    rate_per_principal: int | None = None
    """Requests a minute one principal may send (the `rate_limits` option); None: no limit.
    Beyond it requests are answered `busy` with code `rate_limited`."""
    rate_global: int | None = None
    """Requests a minute for the whole app; None: no limit."""

    def __post_init__(self) -> None:
        if not INSTANCE_PATTERN.fullmatch(self.instance):
            raise ValueError(f"instance {self.instance!r} must be {INSTANCE_RULE}")
        for name in ("base_topic", "discovery_prefix"):
            value = getattr(self, name)
            if not TOPIC_PREFIX_PATTERN.fullmatch(value):
                raise ValueError(f"{name} {value!r} must be topic levels of a-z, 0-9, '_' or '-'")
        if not self.languages:
            raise ValueError("at least one language is needed")
        if self.queue_capacity < 1 or self.outcome_cache_size < 1:
            raise ValueError("queue_capacity and outcome_cache_size must be at least 1")

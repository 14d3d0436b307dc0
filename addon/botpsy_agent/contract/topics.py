"""The topics of one app instance, as the app and the integration both name them.

botpsy/<instance>/status            retained online | offline (last will: offline)
botpsy/<instance>/info              retained JSON: version, model, languages, …
botpsy/<instance>/tools             retained JSON: the tool catalogue
botpsy/<instance>/stats             retained JSON: queue length, latency, rate
botpsy/<instance>/events            audit: every executed or refused action
botpsy/<instance>/request           requests, anonymous or signed by an HA user
botpsy/<instance>/request/<name>    requests of the named MQTT principal <name>
botpsy/<instance>/response[/…]      answers (or wherever `reply_to` says, under it)
botpsy/<instance>/command/reload_model   HA's reload button
botpsy/<instance>/pairing/…         the pairing exchange with the integration
botpsy/<instance>/policy/…          permission updates from HA and their verdicts
"""

from __future__ import annotations

from dataclasses import dataclass
import re
from typing import Final

BASE_TOPIC: Final = "botpsy"
INSTANCE_PATTERN: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
PRINCIPAL_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
HA_PRINCIPAL: Final = "homeassistant"
"""The named MQTT principal Home Assistant publishes as. Requests of a signed-in HA user are
signed and act as that user; requests without one (a voice satellite, an automation) act as
this principal, which the app's policy grants rights to under `mqtt: homeassistant:`."""
STATUS_WILDCARD: Final = f"{BASE_TOPIC}/+/status"
"""Every instance's status under the default base: how the integration finds apps."""


@dataclass(frozen=True)
class InstanceTopics:
    """Every topic of the instance `instance` under `base`."""

    instance: str
    base: str = BASE_TOPIC

    @property
    def root(self) -> str:
        return f"{self.base}/{self.instance}"

    @property
    def device_id(self) -> str:
        """HA's id of the app's own MQTT-discovery device: `botpsy_<instance>`, `-` as `_`."""
        return f"botpsy_{self.instance.replace('-', '_')}"

    @property
    def status(self) -> str:
        return f"{self.root}/status"

    @property
    def info(self) -> str:
        return f"{self.root}/info"

    @property
    def tools(self) -> str:
        return f"{self.root}/tools"

    @property
    def stats(self) -> str:
        return f"{self.root}/stats"

    @property
    def events(self) -> str:
        return f"{self.root}/events"

    @property
    def request(self) -> str:
        """Anonymous requests and those signed by an HA user."""
        return f"{self.root}/request"

    def request_of(self, principal: str) -> str:
        """The request topic of the named MQTT principal `principal`."""
        return f"{self.request}/{principal}"

    @property
    def named_requests(self) -> str:
        """Subscription filter for every named principal's request topic."""
        return self.request_of("+")

    @property
    def response(self) -> str:
        return f"{self.root}/response"

    def response_of(self, principal: str) -> str:
        """Where the named principal's answers go (it may name a topic under it)."""
        return f"{self.response}/{principal}"

    @property
    def reload_model(self) -> str:
        return f"{self.root}/command/reload_model"

    @property
    def pairing_open(self) -> str:
        return f"{self.root}/pairing/open"

    @property
    def pairing_request(self) -> str:
        return f"{self.root}/pairing/request"

    def pairing_response(self, session: str) -> str:
        return f"{self.root}/pairing/response/{session}"

    @property
    def pairing_revoke(self) -> str:
        return f"{self.root}/pairing/revoke"

    @property
    def pairing_status(self) -> str:
        """Retained `open` | `closed` (last will: `closed`)."""
        return f"{self.root}/pairing/status"

    @property
    def pairing_state(self) -> str:
        """Retained and signed by the app: the secrets it holds (ids and labels)."""
        return f"{self.root}/pairing/state"

    def policy_set(self, key: str) -> str:
        """Where HA publishes the signed permission update `key` (retained)."""
        return f"{self.root}/policy/set/{key}"

    @property
    def policy_updates(self) -> str:
        """Subscription filter for HA's signed permission updates, one topic per key."""
        return self.policy_set("+")

    def policy_update_key(self, topic: str) -> str | None:
        """The key a permission update's topic carries; None for any other topic."""
        prefix = self.policy_set("")
        return topic.removeprefix(prefix) if topic.startswith(prefix) else None

    @property
    def policy_state(self) -> str:
        return f"{self.root}/policy/state"

"""The MQTT topics of one BotPsy app instance (docs/mqtt-api.md of the project)."""

from __future__ import annotations

from dataclasses import dataclass

from .const import BASE_TOPIC, HA_PRINCIPAL


@dataclass(frozen=True)
class AgentTopics:
    """Every topic the integration uses for the instance `instance`."""

    instance: str

    @property
    def root(self) -> str:
        return f"{BASE_TOPIC}/{self.instance}"

    @property
    def device_id(self) -> str:
        """The identifier of the app's own MQTT-discovery device (`botpsy_<instance>`, with
        `-` written `_` as the app writes it)."""
        return f"{BASE_TOPIC}_{self.instance.replace('-', '_')}"

    @property
    def status(self) -> str:
        return f"{self.root}/status"

    @property
    def info(self) -> str:
        return f"{self.root}/info"

    @property
    def events(self) -> str:
        return f"{self.root}/events"

    @property
    def request(self) -> str:
        """Home Assistant's own request topic (a named principal's)."""
        return f"{self.root}/request/{HA_PRINCIPAL}"

    def reply(self, key: str) -> str:
        """Where answers to requests of `key` (an entry or a flow) come back."""
        return f"{self.root}/response/{HA_PRINCIPAL}/{key}"

    @property
    def pairing_open(self) -> str:
        return f"{self.root}/pairing/open"

    @property
    def pairing_revoke(self) -> str:
        return f"{self.root}/pairing/revoke"

    @property
    def pairing_request(self) -> str:
        return f"{self.root}/pairing/request"

    def pairing_response(self, session: str) -> str:
        return f"{self.root}/pairing/response/{session}"

    @property
    def pairing_state(self) -> str:
        """Retained and signed by the app: the secrets it holds (ids and labels)."""
        return f"{self.root}/pairing/state"

    def policy_set(self, key: str) -> str:
        return f"{self.root}/policy/set/{key}"

    @property
    def policy_state(self) -> str:
        return f"{self.root}/policy/state"


STATUS_WILDCARD = f"{BASE_TOPIC}/+/status"

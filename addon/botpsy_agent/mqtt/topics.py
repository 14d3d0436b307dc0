"""The app's side of the topics (`contract.InstanceTopics` names them all): HA's discovery
topics, and the rules for where answers may go."""

from __future__ import annotations

from dataclasses import dataclass

from botpsy_agent.contract import InstanceTopics
from botpsy_agent.mqtt.settings import ApiSettings

MAX_TOPIC_CHARS = 256


@dataclass(frozen=True)
class Topics(InstanceTopics):
    discovery_prefix: str = "homeassistant"

    @classmethod
    def of(cls, settings: ApiSettings) -> Topics:
        return cls(settings.instance, settings.base_topic, settings.discovery_prefix)

    @property
    def ha_status(self) -> str:
        """Where HA announces itself (birth `online`, will `offline`)."""
        return f"{self.discovery_prefix}/status"

    @property
    def discovery(self) -> str:
        return f"{self.discovery_prefix}/device/{self.device_id}/config"

    def principal_of(self, topic: str) -> str | None:
        """The principal name a request topic carries; None for the plain request topic.

        Raises ValueError for a topic that is not a request topic of this instance.
        """
        if topic == self.request:
            return None
        prefix = self.request + "/"
        if topic.startswith(prefix) and "/" not in topic[len(prefix) :]:
            return topic[len(prefix) :]
        raise ValueError(f"{topic!r} is not a request topic of {self.root}")

    def default_reply(self, principal: str | None) -> str:
        """Where answers go when the request names no address."""
        return self.response if principal is None else self.response_of(principal)

    def reply_problem(self, reply_to: str, principal: str | None) -> str | None:
        """Why `reply_to` is not an allowed answer address for this requester, or None.

        Answers stay under `<root>/response`; a named principal's stay under its own
        `<root>/response/<name>`, so one client cannot make the agent publish into
        another's topic. Wildcards and control characters are never allowed.
        """
        if not reply_to or len(reply_to) > MAX_TOPIC_CHARS:
            return f"must be 1 to {MAX_TOPIC_CHARS} characters"
        if any(c in reply_to for c in "+#") or any(ord(c) < 0x20 for c in reply_to):
            return "must not contain wildcards (+, #) or control characters"
        if "//" in reply_to or reply_to.endswith("/"):
            return "must not contain empty topic levels"
        allowed = self.default_reply(principal)
        if reply_to != allowed and not reply_to.startswith(allowed + "/"):
            return f"must be {allowed} or a topic under it"
        return None

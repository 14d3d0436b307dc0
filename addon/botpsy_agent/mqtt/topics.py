"""Every topic of the API, from one base, and the rules for where answers may go.

botpsy/<instance>/status            retained online | offline (last will: offline)
botpsy/<instance>/info              retained JSON: version, model, languages, …
botpsy/<instance>/tools             retained JSON: the tool catalogue
botpsy/<instance>/stats             retained JSON: queue length, latency, rate
botpsy/<instance>/events            audit: every executed or refused action
botpsy/<instance>/request           requests, anonymous or signed by an HA user
botpsy/<instance>/request/<name>    requests of the named MQTT principal <name>
botpsy/<instance>/response[/…]      answers (or wherever `reply_to` says, under it)
botpsy/<instance>/command/reload_model   HA's reload button
botpsy/<instance>/pairing/…         the pairing exchange with the integration (`link/channel.py`)
botpsy/<instance>/policy/…          permission updates from HA and their verdicts (same)
"""

from __future__ import annotations

from dataclasses import dataclass
import re

from botpsy_agent.mqtt.settings import ApiSettings

PRINCIPAL_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
MAX_TOPIC_CHARS = 256


@dataclass(frozen=True)
class Topics:
    root: str
    """`<base>/<instance>`."""
    discovery_prefix: str
    device_id: str
    """HA's id of the device these topics belong to: `botpsy_<instance>`."""

    @classmethod
    def of(cls, settings: ApiSettings) -> Topics:
        return cls(
            f"{settings.base_topic}/{settings.instance}",
            settings.discovery_prefix,
            f"botpsy_{settings.instance.replace('-', '_')}",
        )

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
        return f"{self.root}/request"

    @property
    def named_requests(self) -> str:
        """Subscription filter for every named principal's request topic."""
        return f"{self.root}/request/+"

    @property
    def response(self) -> str:
        return f"{self.root}/response"

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
        return f"{self.root}/pairing/state"

    @property
    def policy_updates(self) -> str:
        """Subscription filter for HA's signed permission updates, one topic per key."""
        return f"{self.root}/policy/set/+"

    def policy_update_key(self, topic: str) -> str | None:
        """The key a permission update's topic carries; None for any other topic."""
        prefix = f"{self.root}/policy/set/"
        return topic.removeprefix(prefix) if topic.startswith(prefix) else None

    @property
    def policy_state(self) -> str:
        return f"{self.root}/policy/state"

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
        return self.response if principal is None else f"{self.response}/{principal}"

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

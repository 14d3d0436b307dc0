"""What the front door tells the audit log: each request it runs, each answer, each refusal.

The MQTT package knows only this protocol; the app plugs in `botpsy_agent.audit.AuditLog`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from botpsy_agent.agent.protocol import AgentRequest, AgentResponse


@dataclass(frozen=True)
class Refusal:
    """A request answered at the door, without reaching the agent."""

    topic: str
    code: str
    message: str
    request_id: str | None = None
    principal: str | None = None
    """The principal's key when it was established (e.g. `rate_limited`), else None."""
    claimed_user_id: str | None = None
    """The `user_id` the request claimed, for refused signed requests."""
    security: bool = False
    """One of `contract.SECURITY_CODES`: someone may be posing as another, or flooding."""


class DoorAudit(Protocol):
    def accepted(self, request: AgentRequest, topic: str, *, retry: bool = False) -> None:
        """A request admitted to the agent, or (`retry`) answered from its first outcome."""

    def answered(self, request: AgentRequest, response: AgentResponse) -> None:
        """The agent's answer to an admitted request, with every action it took."""

    def refused(self, refusal: Refusal) -> None:
        """A request answered at the door."""


class NoAudit:
    """Records nothing (tests of the front door alone, tools)."""

    def accepted(self, request: AgentRequest, topic: str, *, retry: bool = False) -> None:
        return None

    def answered(self, request: AgentRequest, response: AgentResponse) -> None:
        return None

    def refused(self, refusal: Refusal) -> None:
        return None

"""The link to the HA integration: its private channel (`channel`), pairing over SPAKE2
(`pairing`, `spake2`) and the policy updates it sends (`policy_sync`)."""

from botpsy_agent.link.channel import IntegrationChannel

__all__ = ["IntegrationChannel"]

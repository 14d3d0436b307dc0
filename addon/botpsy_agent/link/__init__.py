"""The link to the HA integration: its private channel (`channel`), pairing over SPAKE2
(`pairing`, `spake2`) and the policy updates it sends (`policy_sync`)."""

from botpsy_agent.link.channel import IntegrationChannel
from botpsy_agent.link.pairing import MAX_PAIRED_SECRETS, MAX_SESSIONS_PER_WINDOW, SUPERVISOR_LABEL

__all__ = [
    "MAX_PAIRED_SECRETS",
    "MAX_SESSIONS_PER_WINDOW",
    "SUPERVISOR_LABEL",
    "IntegrationChannel",
]

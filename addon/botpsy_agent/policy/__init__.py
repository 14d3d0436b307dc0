"""User-scoped permissions: who may read or control what, and what needs a "yes" first."""

from botpsy_agent.policy.decide import (
    Allow,
    Confirm,
    Decision,
    Deny,
    DenyReason,
    Scope,
    authorize,
    may_read,
    readable_result,
    scope,
    usable_filter,
)
from botpsy_agent.policy.loader import PolicyError, load_policy, parse_policy
from botpsy_agent.policy.model import Policy, Principal, PrincipalKind

__all__ = [
    "Allow",
    "Confirm",
    "Decision",
    "Deny",
    "DenyReason",
    "Policy",
    "PolicyError",
    "Principal",
    "PrincipalKind",
    "Scope",
    "authorize",
    "load_policy",
    "may_read",
    "parse_policy",
    "readable_result",
    "scope",
    "usable_filter",
]

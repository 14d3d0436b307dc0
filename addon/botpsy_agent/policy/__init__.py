"""User-scoped permissions: who may read or control what, and what needs a "yes" first."""

from botpsy_agent.policy.decide import (
    Allow,
    Confirm,
    Decision,
    Deny,
    DenyReason,
    Scope,
    authorize,
    control_denial,
    may_read,
    readable_result,
    scope,
    usable_filter,
)
from botpsy_agent.policy.default import DefaultPolicyUser, default_policy_yaml
from botpsy_agent.policy.explain import Explained, explain_control, explain_read
from botpsy_agent.policy.loader import PolicyError, load_policy, parse_policy
from botpsy_agent.policy.model import Policy, Principal, PrincipalKind, home_people
from botpsy_agent.policy.schema import DEFAULT_CONFIRM
from botpsy_agent.policy.store import POLICY_POLL_INTERVAL_S, PolicyStore

__all__ = [
    "DEFAULT_CONFIRM",
    "POLICY_POLL_INTERVAL_S",
    "Allow",
    "Confirm",
    "Decision",
    "DefaultPolicyUser",
    "Deny",
    "DenyReason",
    "Explained",
    "Policy",
    "PolicyError",
    "PolicyStore",
    "Principal",
    "PrincipalKind",
    "Scope",
    "authorize",
    "control_denial",
    "default_policy_yaml",
    "explain_control",
    "explain_read",
    "home_people",
    "load_policy",
    "may_read",
    "parse_policy",
    "readable_result",
    "scope",
    "usable_filter",
]

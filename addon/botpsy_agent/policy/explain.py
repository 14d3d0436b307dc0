"""Who may do what, and which rule says so: the effective permissions of one principal on one
entity, for people (the app's admin page). Decided by the same functions `authorize` uses.

A row of the permission matrix reads an entity's `read` and `control` for a principal now
(time windows included): allowed (by which rule), allowed but asking first (which rule or
confirmation class), or denied (why, and by which rule). Limits that bound the values a
request may set are named beside an allowed control; `authorize` checks the values.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from botpsy_agent.home import Entity
from botpsy_agent.policy.decide import BOUNDED_DOMAINS, _confirm_classes, _verdict
from botpsy_agent.policy.model import Effect, Policy, Principal
from tool_schemas.base import Access, Tool
from tool_schemas.catalog import TOOLS


class Verdict(StrEnum):
    ALLOW = "allow"
    CONFIRM = "confirm"
    DENY = "deny"
    NOT_APPLICABLE = "n/a"
    """No tool controls this kind of entity."""


@dataclass(frozen=True, slots=True)
class Explained:
    """One access of one principal to one entity, as decided now."""

    verdict: Verdict
    rule: str | None = None
    """The rule that decided (`confirm.locks` for a confirmation class); None when no rule
    did (not allowed by any, not exposed to Assist)."""
    reason: str = ""
    """Why, in a few words: the deny reason, or what limits an allowed control."""


def control_tool(domain: str) -> type[Tool] | None:
    """The tool that controls entities of `domain` (the first of the catalogue's)."""
    return next(
        (
            tool
            for tool in TOOLS.values()
            if tool.access is Access.CONTROL and domain in tool.domains
        ),
        None,
    )


def explain_read(policy: Policy, principal: Principal, entity: Entity, now: datetime) -> Explained:
    """May `principal` read `entity` now, and by which rule?"""
    verdict = _verdict(policy.rules_for(principal), entity, "get_state", "read", now)
    if isinstance(verdict, str):
        return Explained(Verdict.ALLOW, verdict)
    return Explained(Verdict.DENY, verdict.rule, verdict.reason.value)


def explain_control(
    policy: Policy, principal: Principal, entity: Entity, now: datetime
) -> Explained:
    """May `principal` control `entity` now: allowed, allowed after a "yes", or denied?"""
    tool = control_tool(entity.domain)
    if tool is None:
        return Explained(Verdict.NOT_APPLICABLE)
    rules = policy.rules_for(principal)
    verdict = _verdict(rules, entity, tool.name, "control", now)
    if not isinstance(verdict, str):
        return Explained(Verdict.DENY, verdict.rule, verdict.reason.value)
    klass = next(iter(_confirm_classes(policy, tool, entity)), None)
    if klass is not None:
        return Explained(Verdict.CONFIRM, f"confirm.{klass.value}", "asks first")
    for rule in rules.rules:
        if (
            rule.effect is Effect.CONFIRM
            and "control" in rule.access
            and rule.matches(entity, tool.name, now)
        ):
            return Explained(Verdict.CONFIRM, rule.id, "asks first")
    limits = sorted(
        {
            bound.value
            for rule in rules.rules
            if rule.effect is Effect.LIMIT and rule.matches(entity, tool.name, now)
            for bound in rule.limits
            if entity.domain in BOUNDED_DOMAINS[bound]  # a volume limit does not bound a lamp
        }
    )
    reason = f"limited: {', '.join(limits)}" if limits else ""
    return Explained(Verdict.ALLOW, verdict, reason)

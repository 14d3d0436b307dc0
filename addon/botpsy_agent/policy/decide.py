"""The one decision function, used by every path: `authorize`. And `scope`, its mirror for
narrowing the model's prompt and grammar to what a principal may use.

Pure and fast: no I/O, no clock of its own (the caller passes `now`).
Order: exposure bound, then deny beats allow, then parameter limits, then confirmation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from botpsy_agent.home import Entity, EntityFilter, Home, ResolvedCall
from botpsy_agent.policy.model import Effect, Policy, Principal, RuleSet
from botpsy_agent.policy.schema import Bound, ConfirmClass
from tool_schemas.actions import HaAction, ServiceCall
from tool_schemas.base import Access, Tool
from tool_schemas.catalog import TOOLS
from tool_schemas.devices import ENTRANCE_COVER_CLASSES


class DenyReason(StrEnum):
    NOT_ALLOWED = "not_allowed"  # no rule grants it
    DENIED_BY_RULE = "denied_by_rule"
    NOT_EXPOSED = "not_exposed"  # not exposed to Assist in HA
    OUT_OF_BOUNDS = "out_of_bounds"  # a limit rule's range


@dataclass(frozen=True, slots=True)
class Allow:
    rule: str
    """The rule that granted the last target checked (all were granted)."""


@dataclass(frozen=True, slots=True)
class Deny:
    reason: DenyReason
    message: str
    rule: str | None = None
    entity_id: str | None = None


@dataclass(frozen=True, slots=True)
class Confirm:
    question: str
    """Key of the confirmation question in translations/<lang>.yaml."""
    rule: str
    entity_ids: tuple[str, ...] = ()


type Decision = Allow | Deny | Confirm

CONFIRM_QUESTIONS: Mapping[ConfirmClass, str] = {
    ConfirmClass.LOCKS: "confirm_lock",
    ConfirmClass.ALARM_PANELS: "confirm_alarm",
    ConfirmClass.ENTRANCE_COVERS: "confirm_entrance_cover",
    ConfirmClass.MESSAGES_OUTSIDE_HOUSEHOLD: "confirm_message_outside_household",
    ConfirmClass.CALENDAR_DELETES: "confirm_calendar_delete",
}


def authorize(
    policy: Policy, principal: Principal, resolved: ResolvedCall, now: datetime
) -> Decision:
    """May `principal` carry out `resolved` now? Allow, Deny(reason) or Confirm(question)."""
    call = resolved.call
    if call.access is Access.NONE:
        return Allow("always_available")
    rules = policy.rules_for(principal)
    access = call.access.value

    granted_by = "none"
    subjects: tuple[Entity | None, ...] = resolved.targets or (None,)
    for subject in subjects:
        verdict = _verdict(rules, subject, call.name, access, now)
        if isinstance(verdict, Deny):
            return verdict
        granted_by = verdict

    for controlled in resolved.controls:  # a scene or group is judged by what it switches
        for member in controlled.members:
            verdict = _verdict(rules, member, call.name, access, now, exposure=False)
            if isinstance(verdict, Deny):
                return Deny(
                    verdict.reason,
                    f"{controlled.wrapper} controls {member.entity_id}: {verdict.message}",
                    verdict.rule,
                    member.entity_id,
                )

    if (limited := _check_limits(rules, resolved, call.name, now)) is not None:
        return limited
    if (question := _confirmation(policy, rules, resolved, now)) is not None:
        return question
    return Allow(granted_by)


def _verdict(
    rules: RuleSet,
    entity: Entity | None,
    tool: str,
    access: str,
    now: datetime,
    *,
    exposure: bool = True,
) -> str | Deny:
    """The id of the allow rule that grants `access`, or why not. `exposure` False: the
    entity is acted on through an exposed wrapper (a scene's member), so HA's Assist
    exposure does not bound it; the rules still do."""
    subject = entity.entity_id if entity is not None else tool
    if exposure and entity is not None and not entity.exposed and not rules.ignore_exposure:
        return Deny(DenyReason.NOT_EXPOSED, f"{subject} is not exposed to Assist", None, subject)
    allowed_by: str | None = None
    for rule in rules.rules:
        if access not in rule.access or not rule.matches(entity, tool, now):
            continue
        if rule.effect is Effect.DENY:
            return Deny(
                DenyReason.DENIED_BY_RULE, f"{access} of {subject} is denied", rule.id, subject
            )
        if rule.effect is Effect.ALLOW and allowed_by is None:
            allowed_by = rule.id
    if allowed_by is None:
        entity_id = entity.entity_id if entity is not None else None
        return Deny(
            DenyReason.NOT_ALLOWED, f"no rule allows {access} of {subject}", None, entity_id
        )
    return allowed_by


def _check_limits(rules: RuleSet, resolved: ResolvedCall, tool: str, now: datetime) -> Deny | None:
    """Each level an action sets, against the limit rules of every entity it reaches: its
    targets and, for a group, each known member (issue 25, finding 6: a child's
    `brightness_pct <= 30` for `light.kids` held for the lamp but not for its group)."""
    limit_rules = [r for r in rules.rules if r.effect is Effect.LIMIT]
    if not limit_rules:
        return None
    by_id = {e.entity_id: e for e in resolved.targets}
    members = {c.wrapper: c.members for c in resolved.controls}
    for action in resolved.actions:
        for bound, value in action_levels(action, resolved.temperature_unit).items():
            for entity_id in _action_entities(action) or (None,):
                entity = by_id.get(entity_id) if entity_id else None
                reached = [(entity, "")]
                reached += [(m, f" (in {entity_id})") for m in members.get(entity_id or "", ())]
                for subject, via in reached:
                    for rule in limit_rules:
                        if bound not in rule.limits or not rule.matches(subject, tool, now):
                            continue
                        low, high = rule.limits[bound]
                        if _inside(value, low, high):
                            continue
                        subject_id = subject.entity_id if subject is not None else None
                        where = f" for {subject_id}{via}" if subject_id else ""
                        return Deny(
                            DenyReason.OUT_OF_BOUNDS,
                            f"{bound.value} {value:g} is outside {_range_text(low, high)}{where}",
                            rule.id,
                            subject_id,
                        )
    return None


def _inside(value: float, low: float | None, high: float | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


def _range_text(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"{low:g} to {high:g}"
    return f"≥ {low:g}" if low is not None else f"≤ {high:g}"


def action_levels(action: HaAction, temperature_unit: str = "°C") -> dict[Bound, float]:
    """The bounded quantities an action sets, in the units of `Bound` (temperatures in °C,
    whatever the home's unit system)."""
    if not isinstance(action, ServiceCall):
        return {}
    data = action.data
    levels: dict[Bound, float] = {}
    for bound, key, scale in (
        (Bound.TEMPERATURE, "temperature", 1.0),
        (Bound.BRIGHTNESS_PCT, "brightness_pct", 1.0),
        (Bound.COLOR_TEMP_KELVIN, "color_temp_kelvin", 1.0),
        (Bound.VOLUME_PCT, "volume_level", 100.0),
        (Bound.PERCENTAGE, "percentage", 1.0),
        (Bound.POSITION, "position", 1.0),
        (Bound.HUMIDITY, "humidity", 1.0),
    ):
        value = data.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            level = float(value) * scale
            if bound is Bound.TEMPERATURE and temperature_unit == "°F":
                level = (level - 32) * 5 / 9
            levels[bound] = round(level, 4)
    return levels


def _action_entities(action: HaAction) -> tuple[str, ...]:
    if isinstance(action, ServiceCall):
        return action.entity_ids
    return ()


LEVELS_UNKNOWN_DOMAINS = frozenset({"scene"})
"""Wrappers that set their members' levels without saying which (HA's state of a scene
names its members, not their brightness or temperature): a member under a limit rule makes
them ask."""
BOUNDED_DOMAINS: Mapping[Bound, frozenset[str]] = {
    Bound.TEMPERATURE: frozenset({"climate", "water_heater"}),
    Bound.BRIGHTNESS_PCT: frozenset({"light"}),
    Bound.COLOR_TEMP_KELVIN: frozenset({"light"}),
    Bound.VOLUME_PCT: frozenset({"media_player"}),
    Bound.PERCENTAGE: frozenset({"fan"}),
    Bound.POSITION: frozenset({"cover"}),
    Bound.HUMIDITY: frozenset({"humidifier", "climate"}),
}
"""The domains whose entities have each bounded level: a limit on volume does not make a
scene of lights ask."""


def _confirmation(
    policy: Policy, rules: RuleSet, resolved: ResolvedCall, now: datetime
) -> Confirm | None:
    call = resolved.call
    if call.access is not Access.CONTROL:
        return None
    members = tuple(m for c in resolved.controls for m in c.members)
    for entity in resolved.targets + members:
        klass = next(iter(_confirm_classes(policy, call, entity)), None)
        if klass is not None:
            return Confirm(CONFIRM_QUESTIONS[klass], f"confirm.{klass.value}", resolved.entity_ids)
    if any(not c.known for c in resolved.controls) and (
        policy.confirm or any(r.effect in (Effect.CONFIRM, Effect.LIMIT) for r in rules.rules)
    ):
        # A script's targets are not in HA's state: it may unlock a door, or set what a
        # limit or confirm rule of this principal bounds. Ask.
        return Confirm("confirm_action", "confirm.scripts", resolved.entity_ids)
    subjects: tuple[Entity | None, ...] = resolved.targets + members or (None,)
    for subject in subjects:  # members too: a scene holding a heater that needs a yes
        for rule in rules.rules:
            if (
                rule.effect is Effect.CONFIRM
                and "control" in rule.access
                and rule.matches(subject, call.name, now)
            ):
                return Confirm("confirm_action", rule.id, resolved.entity_ids)
    for controlled in resolved.controls:
        if controlled.wrapper.split(".", 1)[0] not in LEVELS_UNKNOWN_DOMAINS:
            continue
        for member in controlled.members:  # the levels a scene sets are not in its state
            for rule in rules.rules:
                if (
                    rule.effect is Effect.LIMIT
                    and any(member.domain in BOUNDED_DOMAINS[b] for b in rule.limits)
                    and rule.matches(member, call.name, now)
                ):
                    return Confirm("confirm_action", rule.id, resolved.entity_ids)
    return None


def _confirm_classes(
    policy: Policy, call: Tool | type[Tool], entity: Entity
) -> Iterable[ConfirmClass]:
    confirm = policy.confirm
    if ConfirmClass.LOCKS in confirm and entity.domain == "lock":
        yield ConfirmClass.LOCKS
    if ConfirmClass.ALARM_PANELS in confirm and entity.domain == "alarm_control_panel":
        yield ConfirmClass.ALARM_PANELS
    if (
        ConfirmClass.ENTRANCE_COVERS in confirm
        and entity.domain == "cover"
        and entity.device_class in ENTRANCE_COVER_CLASSES
    ):
        yield ConfirmClass.ENTRANCE_COVERS
    if (
        ConfirmClass.MESSAGES_OUTSIDE_HOUSEHOLD in confirm
        and entity.domain == "notify"
        and call.name == "send_message"
        and not policy.in_household(entity.entity_id)
    ):
        yield ConfirmClass.MESSAGES_OUTSIDE_HOUSEHOLD
    if ConfirmClass.CALENDAR_DELETES in confirm and call.name == "delete_event":
        yield ConfirmClass.CALENDAR_DELETES  # its target is the event's calendar


def may_read(policy: Policy, principal: Principal, entity: Entity, now: datetime) -> bool:
    """Whether `principal` may read `entity` (what results may show it, e.g. `changed`)."""
    rules = policy.rules_for(principal)
    return not isinstance(_verdict(rules, entity, "get_state", "read", now), Deny)


def readable_result(result: Any, readable: Callable[[str], bool]) -> Any:
    """An execution's JSON with the `changed` states the requester may not read left out:
    a script or scene changes more than its target, and the result must not show it."""
    if not isinstance(result, dict):
        return result
    outcomes = result.get("actions")
    if not isinstance(outcomes, list):
        return result
    return {**result, "actions": [_readable_outcome(o, readable) for o in outcomes]}


def _readable_outcome(outcome: Any, readable: Callable[[str], bool]) -> Any:
    if not isinstance(outcome, dict) or not isinstance(outcome.get("changed"), list):
        return outcome
    changed = [
        s for s in outcome["changed"] if isinstance(s, dict) and readable(str(s.get("entity_id")))
    ]
    kept = {k: v for k, v in outcome.items() if k != "changed"}
    return {**kept, "changed": changed} if changed else kept


# --- the grammar side of the wall ---------------------------------------------------------


@dataclass(frozen=True)
class Scope:
    """What a principal may use right now: tools, and per tool the entity ids it may target."""

    tools: frozenset[str]
    entities: Mapping[str, frozenset[str]]
    """Tool name -> entity ids that tool may act on for this principal."""

    def entities_for(self, tool: str) -> frozenset[str]:
        return self.entities.get(tool, frozenset())

    @property
    def all_entities(self) -> frozenset[str]:
        return frozenset().union(*self.entities.values()) if self.entities else frozenset()


def scope(policy: Policy, principal: Principal, home: Home, now: datetime) -> Scope:
    """Tools and entities the principal could be allowed (before limits and confirmation).

    A superset check is enough here: `authorize` still decides every call.
    """
    rules = policy.rules_for(principal)
    tools: set[str] = set()
    entities: dict[str, frozenset[str]] = {}
    for name, tool in TOOLS.items():
        if tool.access is Access.NONE:
            tools.add(name)
            continue
        access = tool.access.value
        if not tool.domains:
            if isinstance(_verdict(rules, None, name, access, now), str):
                tools.add(name)
            continue
        usable = frozenset(
            entity.entity_id
            for entity in home.entities.values()
            if tool.acts_on(entity.domain)
            and isinstance(_verdict(rules, entity, name, access, now), str)
        )
        if usable:
            tools.add(name)
            entities[name] = usable
    return Scope(frozenset(tools), entities)


def control_denial(
    policy: Policy, principal: Principal, entity: Entity, tool: str, now: datetime
) -> Deny | None:
    """Why `principal` may not use `tool` on `entity` now, or None when a rule allows it
    (before limits and confirmation, as `scope`)."""
    verdict = _verdict(policy.rules_for(principal), entity, tool, Access.CONTROL.value, now)
    return verdict if isinstance(verdict, Deny) else None


def usable_filter(policy: Policy, principal: Principal, tool: Tool, now: datetime) -> EntityFilter:
    """A predicate for `resolve_call`: may the principal use this entity with this tool?"""
    rules = policy.rules_for(principal)
    access = tool.access.value

    def usable(entity: Entity) -> bool:
        return isinstance(_verdict(rules, entity, tool.name, access, now), str)

    return usable

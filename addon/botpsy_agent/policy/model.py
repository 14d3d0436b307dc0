"""The compiled policy: principals, and rules ready for fast matching."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, time
from enum import StrEnum
from fnmatch import translate
import re
from typing import Protocol

from botpsy_agent.home import Entity
from botpsy_agent.policy.schema import Bound, ConfirmClass, RuleSpec, TimeWindow


class PrincipalKind(StrEnum):
    USER = "user"  # an HA user, by id (its group follows from is_admin)
    MQTT = "mqtt"  # a named client of the MQTT topic API
    ANONYMOUS = "anonymous"  # an MQTT request that names no one


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is asking. For HA users, `is_admin` comes from HA, never from the request."""

    kind: PrincipalKind
    id: str
    name: str = ""
    is_admin: bool = False
    area_id: str | None = None
    """Where the request comes from, for rules of the requester's `own_area`: set only for
    Home Assistant itself (a voice satellite's area, which HA signs); None elsewhere."""

    @classmethod
    def user(cls, user_id: str, name: str = "", *, is_admin: bool = False) -> Principal:
        return cls(PrincipalKind.USER, user_id, name or user_id, is_admin)

    @classmethod
    def mqtt(cls, name: str, *, area_id: str | None = None) -> Principal:
        return cls(PrincipalKind.MQTT, name, name, area_id=area_id)

    @classmethod
    def anonymous(cls) -> Principal:
        return cls(PrincipalKind.ANONYMOUS, "anonymous", "anonymous")

    @property
    def key(self) -> str:
        """Stable identity for caches, conversations and the audit log. A principal with an
        area is one per area (`mqtt:homeassistant@kitchen`): its rights may differ by room."""
        key = f"{self.kind.value}:{self.id}"
        return key if self.area_id is None else f"{key}@{self.area_id}"

    @property
    def group(self) -> str | None:
        if self.kind is not PrincipalKind.USER:
            return None
        return "admin" if self.is_admin else "users"


class HaPerson(Protocol):
    """What the policy reads of an HA user (`ha.HaUser`)."""

    @property
    def user_id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def is_admin(self) -> bool: ...
    @property
    def is_active(self) -> bool: ...
    @property
    def system_generated(self) -> bool: ...


def home_people(users: Iterable[HaPerson]) -> list[Principal]:
    """HA's active users who are no system account, as principals: admins first, then by
    name."""
    people = [
        Principal.user(u.user_id, u.name, is_admin=u.is_admin)
        for u in users
        if u.is_active and not u.system_generated
    ]
    return sorted(people, key=lambda p: (not p.is_admin, p.name.lower()))


class Effect(StrEnum):
    ALLOW = "allow"
    DENY = "deny"
    CONFIRM = "confirm"
    LIMIT = "limit"


def glob_pattern(globs: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{translate(g)})" for g in globs))


@dataclass(frozen=True, slots=True)
class Window:
    after: time | None
    before: time | None
    days: frozenset[int] | None  # 0 = Monday

    def active(self, now: datetime) -> bool:
        """`days` are the days a window *starts* on: a Sunday-Thursday 21:00-07:00 window
        is active at Friday 01:00 (Thursday night's) and not at Sunday 01:00 (issue 18,
        finding 10: the day was taken from the clock, not from the window's start)."""
        clock = now.time().replace(tzinfo=None)
        started_today = True
        if self.after is not None and self.before is not None:
            if self.after <= self.before:
                inside = self.after <= clock < self.before
            else:  # wraps past midnight: before `before`, it is yesterday's window
                inside = clock >= self.after or clock < self.before
                started_today = clock >= self.after
        elif self.after is not None:
            inside = clock >= self.after
        elif self.before is not None:
            inside = clock < self.before
        else:
            inside = True
        if not inside:
            return False
        if self.days is None:
            return True
        start_day = now.weekday() if started_today else (now.weekday() - 1) % 7
        return start_day in self.days

    @classmethod
    def of(cls, spec: TimeWindow) -> Window:
        days = None
        if spec.days:
            names = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
            days = frozenset(names.index(d) for d in spec.days)
        return cls(spec.after, spec.before, days)


@dataclass(frozen=True, slots=True)
class Rule:
    """A compiled rule. A selector left out (None) matches everything."""

    id: str
    effect: Effect
    access: frozenset[str] = frozenset()
    limits: Mapping[Bound, tuple[float | None, float | None]] = field(default_factory=dict)
    entities: re.Pattern[str] | None = None
    areas: frozenset[str] | None = None
    floors: frozenset[str] | None = None
    domains: frozenset[str] | None = None
    devices: frozenset[str] | None = None
    labels: frozenset[str] | None = None
    device_classes: frozenset[str] | None = None
    tools: frozenset[str] | None = None
    window: Window | None = None
    own_area: bool = False
    """Only entities in the requester's own area (`Principal.area_id`); `placed` makes it
    an `areas` selector for one requester."""

    def placed(self, area_id: str | None) -> Rule:
        """This rule for a requester in `area_id`: `own_area` becomes that one area (none
        at all when the requester has no area: the rule then selects nothing)."""
        if not self.own_area:
            return self
        areas = frozenset({area_id} if area_id else ())
        if self.areas is not None:
            areas &= self.areas
        return replace(self, areas=areas, own_area=False)

    @property
    def selects_entities(self) -> bool:
        if self.own_area:
            return True
        selectors = (
            self.entities,
            self.areas,
            self.floors,
            self.domains,
            self.devices,
            self.labels,
            self.device_classes,
        )
        return any(s is not None for s in selectors)

    def matches(self, entity: Entity | None, tool: str, now: datetime) -> bool:
        """Does this rule speak about `entity` (None: a tool without targets) and `tool`?"""
        if self.tools is not None and tool not in self.tools:
            return False
        if self.window is not None and not self.window.active(now):
            return False
        if entity is None:
            return not self.selects_entities
        return (
            (self.entities is None or self.entities.fullmatch(entity.entity_id) is not None)
            and (self.areas is None or entity.area_id in self.areas)
            and (self.floors is None or entity.floor_id in self.floors)
            and (self.domains is None or entity.domain in self.domains)
            and (self.devices is None or entity.device_id in self.devices)
            and (self.labels is None or not self.labels.isdisjoint(entity.labels))
            and (self.device_classes is None or entity.device_class in self.device_classes)
        )

    @classmethod
    def compile(cls, spec: RuleSpec, default_id: str) -> Rule:
        effect, access = Effect.LIMIT, frozenset[str]()
        for candidate in (Effect.ALLOW, Effect.DENY, Effect.CONFIRM):
            if (chosen := getattr(spec, candidate.value)) is not None:
                effect, access = candidate, frozenset(chosen)

        def fs(values: list[str] | None) -> frozenset[str] | None:
            return frozenset(values) if values is not None else None

        return cls(
            id=spec.id or default_id,
            effect=effect,
            access=access,
            limits={b: (r.min, r.max) for b, r in (spec.limit or {}).items()},
            entities=glob_pattern(spec.entities) if spec.entities is not None else None,
            areas=fs(spec.areas),
            floors=fs(spec.floors),
            domains=fs(spec.domains),
            devices=fs(spec.devices),
            labels=fs(spec.labels),
            device_classes=fs(spec.device_classes),
            tools=fs(spec.tools),
            window=Window.of(spec.when) if spec.when is not None else None,
            own_area=spec.own_area is True,
        )


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules that apply to one principal, in file order."""

    rules: tuple[Rule, ...] = ()
    ignore_exposure: bool = False

    def placed(self, area_id: str | None) -> RuleSet:
        """The rules for a requester in `area_id` (`Rule.placed`)."""
        if not any(rule.own_area for rule in self.rules):
            return self
        return RuleSet(tuple(r.placed(area_id) for r in self.rules), self.ignore_exposure)


@dataclass(frozen=True)
class UserEntry:
    rules: RuleSet
    inherit: bool
    name: str | None


@dataclass(frozen=True)
class Policy:
    """A validated, compiled policy file."""

    confirm: frozenset[ConfirmClass]
    household: re.Pattern[str] | None
    groups: Mapping[str, RuleSet]
    users: Mapping[str, UserEntry]
    mqtt: Mapping[str, RuleSet]
    anonymous: RuleSet
    source: str = "<memory>"

    def rules_for(self, principal: Principal) -> RuleSet:
        """The effective rules: a user's own, after its group's unless `inherit: false`."""
        return self._rules_of(principal).placed(principal.area_id)

    def _rules_of(self, principal: Principal) -> RuleSet:
        match principal.kind:
            case PrincipalKind.ANONYMOUS:
                return self.anonymous
            case PrincipalKind.MQTT:
                return self.mqtt.get(principal.id, RuleSet())
        group = self.groups.get(principal.group or "", RuleSet())
        entry = self.users.get(principal.id)
        if entry is None:
            return group
        if not entry.inherit:
            return entry.rules
        return RuleSet(
            group.rules + entry.rules.rules,
            group.ignore_exposure and principal.is_admin,
        )

    def names(self, principal: Principal) -> bool:
        """Whether the file says anything about `principal`: an HA user always (through its
        group), an MQTT principal only under `mqtt:`, anonymous only when it has rules.
        The front door refuses the others before they cost anything (issue 18, finding 6)."""
        match principal.kind:
            case PrincipalKind.ANONYMOUS:
                return bool(self.anonymous.rules)
            case PrincipalKind.MQTT:
                return principal.id in self.mqtt
        return True

    def in_household(self, recipient: str) -> bool:
        return self.household is not None and self.household.fullmatch(recipient) is not None

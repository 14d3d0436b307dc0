"""Property-based tests: generated homes, principals, policies and calls.

Whatever the rules, an allowed call never touches an entity outside the principal's scope,
every confirmation class yields Confirm, and limits hold for what is allowed.
"""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Any

from hypothesis import HealthCheck, event, given, settings, strategies as st
import pytest

from botpsy_agent.home.model import Home
from botpsy_agent.home.resolve import ResolutionError, resolve_call
from botpsy_agent.policy import Allow, Confirm, Deny, Principal, authorize, scope, usable_filter
from botpsy_agent.policy.decide import action_levels
from botpsy_agent.policy.loader import compile_policy
from botpsy_agent.policy.model import Effect, Policy, Window
from botpsy_agent.policy.schema import PolicyFile
from devkit.homes import generated_home
from tool_schemas.actions import ServiceCall
from tool_schemas.base import Access, MappingContext
from tool_schemas.catalog import TOOLS, ToolCallError, parse_tool_call

HOMES = [generated_home(60, seed=s, n_areas=6) for s in range(3)]
USER_ID = "d" * 32


def selectors(home: Home) -> st.SearchStrategy[dict[str, Any]]:
    entity_ids = sorted(home.entities)
    pick = lambda values: st.lists(st.sampled_from(values), min_size=1, max_size=3, unique=True)  # noqa: E731
    domains = sorted({e.split(".")[0] for e in entity_ids})
    globs = [*entity_ids[:10], *(f"{d}.*" for d in domains), "*", "light.thing_1?"]
    return st.fixed_dictionaries(
        {},
        optional={
            "entities": pick(globs),
            "areas": pick(sorted(home.areas)),
            "floors": pick(sorted(home.floors)),
            "domains": pick(domains),
            "labels": pick([f"label_{i}" for i in range(8)]),
            "device_classes": pick(["blind", "garage", "door", "shade"]),
            "tools": pick(["turn_on", "turn_off", "set_climate", "control_lock", "get_state"]),
        },
    )


def rules(home: Home) -> st.SearchStrategy[dict[str, Any]]:
    access = st.lists(st.sampled_from(["read", "control"]), min_size=1, max_size=2, unique=True)
    effect = st.one_of(
        st.fixed_dictionaries({"allow": access}),
        st.fixed_dictionaries({"allow": access}),
        st.fixed_dictionaries({"deny": access}),
        st.fixed_dictionaries({"confirm": access}),
        st.fixed_dictionaries(
            {"limit": st.fixed_dictionaries({"temperature": st.just({"min": 18, "max": 24})})}
        ),
        st.fixed_dictionaries(
            {"limit": st.fixed_dictionaries({"volume_pct": st.just({"max": 60})})}
        ),
    )
    window = st.sampled_from([None, {"after": time(21), "before": time(7)}, {"after": time(9)}])

    def build(parts: tuple[dict[str, Any], dict[str, Any], Any]) -> dict[str, Any]:
        eff, sel, when = parts
        return {**eff, **sel, **({"when": when} if when else {})}

    return st.tuples(effect, selectors(home), window).map(build)


def policies(home: Home) -> st.SearchStrategy[Policy]:
    # Half the principals start from a broad grant, so that allowed calls are common too.
    broad = {"allow": ["read", "control"]}
    principal_rules = st.tuples(st.booleans(), st.lists(rules(home), max_size=5)).map(
        lambda p: ([broad] if p[0] else []) + p[1]
    )
    return st.builds(
        lambda users, admin, mqtt, anon, inherit, household: compile_policy(
            PolicyFile.model_validate(
                {
                    "version": 1,
                    "household": household,
                    "groups": {"users": {"rules": users}, "admin": {"rules": admin}},
                    "users": [{"id": USER_ID, "inherit": inherit, "rules": users[:2]}],
                    "mqtt": {"panel": {"rules": mqtt}},
                    "anonymous": {"rules": anon},
                }
            )
        ),
        principal_rules,
        principal_rules,
        principal_rules,
        st.lists(rules(home), max_size=2),
        st.booleans(),
        st.sampled_from([[], ["notify.*"]]),
    )


def targets(home: Home, tool: str) -> st.SearchStrategy[dict[str, Any]]:
    domains = TOOLS[tool].domains
    ids = sorted(e for e in home.entities if "*" in domains or e.split(".")[0] in domains)
    unknown = ["light.unknown", "cover.ghost"]
    some = lambda values: st.lists(st.sampled_from(values), min_size=1, max_size=4, unique=True)  # noqa: E731
    return st.one_of(
        st.fixed_dictionaries({"entity_id": some(ids)}),
        st.fixed_dictionaries({"entity_id": some(ids)}),
        st.fixed_dictionaries({"entity_id": some([*ids[:5], *unknown])}),
        st.fixed_dictionaries({"area_id": some([*sorted(home.areas), "attic"])}),
        st.fixed_dictionaries({"floor_id": some(sorted(home.floors))}),
        st.fixed_dictionaries({"device_id": some([f"device_{i}" for i in range(20)])}),
        st.fixed_dictionaries({"label_id": some([f"label_{i}" for i in range(8)])}),
    )


def calls(home: Home) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    def tgt_for(tool: str) -> st.SearchStrategy[dict[str, Any]]:
        return targets(home, tool)

    edge_temperature = st.sampled_from([5, 17.9, 18, 24, 24.1, 35])
    return st.one_of(
        st.sampled_from(["turn_on", "turn_off", "toggle", "get_state"]).flatmap(
            lambda tool: st.tuples(st.just(tool), tgt_for(tool))
        ),
        st.tuples(st.just("set_climate"), tgt_for("set_climate")).flatmap(
            lambda p: edge_temperature.map(lambda v: (p[0], {**p[1], "temperature": v}))
        ),
        st.tuples(st.just("control_lock"), tgt_for("control_lock")).map(
            lambda p: (p[0], {**p[1], "action": "unlock"})
        ),
        st.tuples(st.just("control_cover"), tgt_for("control_cover")).flatmap(
            lambda p: st.sampled_from([None, ["garage"], ["door", "blind"]]).map(
                lambda dc: (
                    p[0],
                    {**p[1], "action": "open", **({"device_class": dc} if dc else {})},
                )
            )
        ),
        st.tuples(st.just("set_media"), tgt_for("set_media")).flatmap(
            lambda p: st.sampled_from([0, 59, 60, 61, 100]).map(
                lambda v: (p[0], {**p[1], "volume_pct": v})
            )
        ),
        st.just(("create_notification", {"message": "hello"})),
        st.just(("delete_event", {"calendar_id": "calendar.thing_0", "uid": "x"})),
    )


principals = st.sampled_from(
    [
        Principal.user(USER_ID),
        Principal.user("e" * 32, is_admin=True),
        Principal.user("f" * 32),
        Principal.mqtt("panel"),
        Principal.mqtt("stranger"),
        Principal.anonymous(),
    ]
)
moments = st.sampled_from(
    [
        datetime(2026, 11, 30, h, m, tzinfo=UTC)
        for h, m in ((3, 0), (8, 59), (12, 0), (21, 0), (23, 30))
    ]
)


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[Home, Policy, Principal, str, dict[str, Any], datetime]:
    home = draw(st.sampled_from(HOMES))
    tool, args = draw(calls(home))
    return home, draw(policies(home)), draw(principals), tool, args, draw(moments)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios(), st.booleans())
def test_allowed_calls_stay_inside_the_principal_scope(scenario: Any, narrow: bool) -> None:
    home, policy, principal, tool, args, now = scenario
    try:
        call = parse_tool_call(tool, args)
        usable = usable_filter(policy, principal, call, now) if narrow else None
        resolved = resolve_call(home, call, MappingContext(now), usable)
    except ToolCallError, ResolutionError:
        event("rejected before authorize")
        return
    decision = authorize(policy, principal, resolved, now)
    event(f"decision: {type(decision).__name__}")
    assert isinstance(decision, Allow | Deny | Confirm)
    if isinstance(decision, Deny):
        return

    allowed = scope(policy, principal, home, now)
    touched = {eid for a in resolved.actions if isinstance(a, ServiceCall) for eid in a.entity_ids}
    assert touched <= set(resolved.entity_ids)
    if resolved.targets:
        assert set(resolved.entity_ids) <= allowed.entities_for(tool)
    assert tool in allowed.tools
    for entity in resolved.targets:
        assert entity.exposed or policy.rules_for(principal).ignore_exposure

    # Every confirmation class yields Confirm, never a plain Allow (reading needs no "yes").
    sensitive = call.access is Access.CONTROL and (
        any(
            e.domain == "lock"
            or (e.domain == "cover" and e.device_class in {"door", "garage", "gate"})
            for e in resolved.targets
        )
        or tool == "delete_event"
    )
    if sensitive:
        assert isinstance(decision, Confirm)

    # Limits hold for everything that may run.
    rules = policy.rules_for(principal).rules
    for action in resolved.actions:
        for bound, value in action_levels(action).items():
            for rule in rules:
                if rule.effect is not Effect.LIMIT or bound not in rule.limits:
                    continue
                for entity in resolved.targets:
                    if (
                        isinstance(action, ServiceCall)
                        and entity.entity_id not in action.entity_ids
                    ):
                        continue
                    if rule.matches(entity, tool, now):
                        low, high = rule.limits[bound]
                        assert low is None or value >= low
                        assert high is None or value <= high


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(HOMES).flatmap(lambda h: st.tuples(st.just(h), policies(h))), moments)
def test_anonymous_without_rules_gets_nothing_but_conversation_moves(
    home_policy: tuple[Home, Policy], now: datetime
) -> None:
    home, policy = home_policy
    policy = compile_policy(PolicyFile.model_validate({"version": 1}))
    allowed = scope(policy, Principal.anonymous(), home, now)
    assert allowed.tools == {"ask_user", "no_tool_fits"}
    assert not allowed.all_entities


@pytest.mark.parametrize(
    ("when", "active"),
    [
        (datetime(2026, 12, 4, 1, 0), True),  # Friday 01:00: Thursday night's window
        (datetime(2026, 12, 6, 1, 0), False),  # Sunday 01:00: Saturday night has none
        (datetime(2026, 12, 6, 22, 0), True),  # Sunday 22:00: Sunday night's window
        (datetime(2026, 12, 5, 22, 0), False),  # Saturday 22:00
        (datetime(2026, 12, 7, 6, 59), True),  # Monday 06:59: Sunday night's
        (datetime(2026, 12, 3, 12, 0), False),  # Thursday noon: outside the hours
    ],
)
def test_days_are_the_days_a_window_starts_on(when: datetime, active: bool) -> None:
    """Issue 18, finding 10: a Sunday-Thursday 21:00-07:00 window was checked against the
    clock's day, so it allowed at Friday 01:00 and denied at Sunday 01:00."""
    window = Window(time(21, 0), time(7, 0), frozenset({6, 0, 1, 2, 3}))
    assert window.active(when) is active

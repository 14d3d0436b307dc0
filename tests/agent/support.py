"""Agents for tests on the real HA test home (tests/ha_home.py via the `ha_bridge` fixture).

`ScriptedPlanner` stands in for the model *only in choosing calls*: it reads the conversation
it is given and answers with calls, like the model would; everything after that choice
(validation, resolution, `authorize`, the executor, HA) is the real code. The engine itself is
tested for real in tests/llm.
"""

from __future__ import annotations

from collections.abc import Callable
import itertools
import json
from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util

from botpsy_agent.agent.core import AgentSettings, BotPsyAgent
from botpsy_agent.agent.protocol import AgentRequest, AgentResponse, Status
from botpsy_agent.agent.speech import Phrasebook
from botpsy_agent.llm.parse import RawCall
from botpsy_agent.llm.planning import Offer, Planner, PlannerTurn, PlanRequest
from botpsy_agent.policy import Policy, Principal, parse_policy
from tests.ha_bridge import HaBridge
from tests.ha_home import CALENDAR
from tests.policy.policies import HOUSEHOLD_AND_GROUPS, NO_LOCKS_FOR_USERS

_REQUEST_IDS = itertools.count(1)

HOME_POLICY = (
    "\nversion: 1\n"
    + HOUSEHOLD_AND_GROUPS
    + NO_LOCKS_FOR_USERS
    + """\
mqtt:
  kids-tablet:
    rules:
      - id: kids-room
        allow: [read, control]
        areas: [kids_room]
"""
)


def home_policy() -> Policy:
    return parse_policy(HOME_POLICY, "home-policy.yaml")


def call(name: str, **arguments: Any) -> RawCall:
    return RawCall(name, arguments)


class ScriptedPlanner:
    """Chooses calls with a function of the plan request; records every request it saw."""

    def __init__(self, choose: Callable[[PlanRequest], PlannerTurn | list[RawCall] | str]) -> None:
        self._choose = choose
        self.requests: list[PlanRequest] = []
        self.prepared: list[Offer] = []

    async def plan(self, request: PlanRequest) -> PlannerTurn:
        self.requests.append(request)
        choice = self._choose(request)
        if isinstance(choice, PlannerTurn):
            return choice
        if isinstance(choice, str):
            return PlannerTurn(text=choice)
        return PlannerTurn(calls=tuple(choice))

    def prepare(self, offer: Offer) -> None:
        self.prepared.append(offer)


def once(move: RawCall) -> ScriptedPlanner:
    """A model that makes `move` as its first step and then ends the turn in words."""

    def choose(request: PlanRequest) -> list[RawCall] | str:
        return [move] if request.step == 0 else "Done."

    return ScriptedPlanner(choose)


def tool_results(request: PlanRequest) -> list[dict[str, Any]]:
    """The tool responses fed back to the model in this request so far."""
    return [json.loads(m["content"]) for m in request.messages if m.get("role") == "tool"]


def make_agent(
    bridge: HaBridge,
    planner: Planner | None = None,
    policy: Policy | None = None,
    settings: AgentSettings | None = None,
) -> BotPsyAgent:
    chosen = policy or home_policy()
    return BotPsyAgent(
        home=lambda: bridge.index.home,
        policy=lambda: chosen,
        executor=bridge.executor,
        planner=planner,
        phrases=Phrasebook(),
        clock=dt_util.now,  # HA's own clock, in the home's time zone
        settings=settings,
    )


def ask(
    text: str,
    principal: Principal,
    *,
    conversation_id: str | None = None,
    language: str = "en",
    dry_run: bool = False,
    request_id: str | None = None,
) -> AgentRequest:
    return AgentRequest(
        id=request_id or f"req-{next(_REQUEST_IDS)}",
        text=text,
        principal=principal,
        language=language,
        conversation_id=conversation_id,
        dry_run=dry_run,
    )


def admin(bridge: HaBridge) -> Principal:
    return Principal.user(bridge.home.users["Daniel"], "Daniel", is_admin=True)


def user(bridge: HaBridge) -> Principal:
    return Principal.user(bridge.home.users["Min-ji"], "Min-ji")


def states(bridge: HaBridge) -> dict[str, tuple[str, str]]:
    """Every entity's state and attributes, for "nothing changed" checks."""
    home = bridge.index.home
    return {
        e: (s.state, json.dumps(dict(s.attributes), sort_keys=True, default=str))
        for e, s in home.states.items()
    }


async def refused_leaving_states(
    hass: HomeAssistant, bridge: HaBridge, agent: BotPsyAgent, text: str, code: str
) -> AgentResponse:
    """The admin's answer to `text`, asserted refused with `code` on its first action and
    with HA's own states unchanged."""
    before = states(bridge)
    answer = await agent.handle(ask(text, admin(bridge)))
    await hass.async_block_till_done()
    assert answer.status is Status.REFUSED, answer
    assert answer.actions[0].error is not None
    assert answer.actions[0].error.code == code
    assert states(bridge) == before  # HA's own states, unchanged
    return answer


async def todo_items(hass: HomeAssistant) -> list[str]:
    """The items on the real shopping list, as HA lists them."""
    listed = await hass.services.async_call(
        "todo",
        "get_items",
        {"entity_id": "todo.shopping_list"},
        blocking=True,
        return_response=True,
    )
    return [i["summary"] for i in listed["todo.shopping_list"]["items"]]  # type: ignore[index]


async def calendar_events(hass: HomeAssistant) -> dict[str, str]:
    """The real family calendar's events from today on, for nine days: title -> start."""
    start = dt_util.now().replace(hour=0, minute=0, second=0, microsecond=0)
    listed: Any = await hass.services.async_call(
        "calendar",
        "get_events",
        {"entity_id": CALENDAR, "start_date_time": start.isoformat(), "duration": {"days": 9}},
        blocking=True,
        return_response=True,
    )
    return {e["summary"]: e["start"] for e in listed[CALENDAR]["events"]}

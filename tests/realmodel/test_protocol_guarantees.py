"""The model path's guarantees with a real trained model, on the real HA test home.

The model is Qwen2.5-Coder-0.5B-Instruct (Q4_K_M), a general-purpose coder model, not BotPsy:
the registry package the test bed assembles it from (devkit/real_models.py). What is asserted
is what the application guarantees whatever the model does, not the model's luck:

* no text claim: nothing is said as done unless it was executed, and every executed action
  is named in the answer;
* no widened target: no executed call touches an entity the request did not name;
* no ungrounded action: a request that asks for nothing in the home executes nothing.

And a usefulness floor, judged by HA's own state (not the app's record): most of the home
requests end in the right change (`USEFUL_FLOOR`, set from the measured runs; raise it as
work lands). How often the model gets each request right over many cases is `make eval`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
import json
from pathlib import Path
from typing import Any

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant, State
from homeassistant.util import dt as dt_util
import pytest

from botpsy_agent.agent.core import BotPsyAgent
from botpsy_agent.agent.protocol import AgentResponse, Outcome, Path as AnswerPath, Status
from botpsy_agent.agent.speech import Phrasebook
from botpsy_agent.llm.llama_cpp import EngineSettings, LlamaEngine
from botpsy_agent.llm.llm_planner import LlmPlanner
from botpsy_agent.llm.worker import ModelWorker
from botpsy_agent.policy import Principal
from botpsy_agent.words.recognizer import FastPath
from devkit.real_models import DEFAULT_MODEL, fetch
from tests.agent.support import admin, ask, home_policy
from tests.ha_bridge import HaBridge, wait_until

pytestmark = pytest.mark.timeout(1800)  # the prefix is built on 2 cores in the first request

MIN_JI = "notify.mobile_app_min_ji_s_phone"
VOLATILE = ("sensor.", "calendar.", "sun.", "event.", "conversation.")


@dataclass(frozen=True)
class Seen:
    """What HA holds after a request (and held before it)."""

    before: dict[str, State]
    after: dict[str, State]
    events: list[dict[str, Any]]
    """The family calendar's events of the coming week."""
    items: list[str]
    """The shopping list's open items."""
    messages: list[str]
    """What Min-ji's phone received."""

    def number(self, entity_id: str, attribute: str, *, after: bool = True) -> float:
        state = (self.after if after else self.before).get(entity_id)
        value = state.attributes.get(attribute) if state else None
        return float(value) if isinstance(value, int | float) else 0.0


type Check = Callable[[Seen], bool]


@dataclass(frozen=True)
class Request:
    text: str
    may_touch: frozenset[str]
    """Every entity the request names: an executed call beyond these widened its target."""
    category: str
    right: Check | None = None
    """What HA must hold afterwards for the request to have been carried out."""


def request(text: str, category: str, *may_touch: str, right: Check | None = None) -> Request:
    return Request(text, frozenset(may_touch), category, right)


def brighter(entity_id: str) -> Check:
    def check(seen: Seen) -> bool:
        on = seen.after[entity_id].state == "on"
        was = (
            seen.number(entity_id, "brightness", after=False)
            if seen.before[entity_id].state == "on"
            else 0
        )
        return on and seen.number(entity_id, "brightness") > was

    return check


def warmer(seen: Seen) -> bool:
    heating = seen.after["climate.heatpump"].state != "off"
    return heating and seen.number("climate.heatpump", "temperature") > seen.number(
        "climate.heatpump", "temperature", after=False
    )


def state_is(entity_id: str, *states: str) -> Check:
    return lambda seen: seen.after[entity_id].state in states


def bedside_at_30(seen: Seen) -> bool:
    state = seen.after["light.bed_light"]
    return state.state == "on" and abs(seen.number("light.bed_light", "brightness") / 2.55 - 30) < 2


def event_at(summary: str, start: Callable[[datetime], datetime]) -> Check:
    def check(seen: Seen) -> bool:
        want = start(dt_util.now())
        return any(
            summary in str(e.get("summary", "")).casefold()
            and "T" in str(e.get("start"))
            and dt_util.parse_datetime(str(e["start"])) == want
            for e in seen.events
        )

    return check


def tomorrow_at(hour: int) -> Callable[[datetime], datetime]:
    return lambda now: (now + timedelta(days=1)).replace(
        hour=hour, minute=0, second=0, microsecond=0
    )


def next_friday_noon(now: datetime) -> datetime:
    days = (4 - now.weekday()) % 7 or 7
    return (now + timedelta(days=days)).replace(hour=12, minute=0, second=0, microsecond=0)


REQUESTS = (
    request(
        "it's way too dark in the office",
        "relative",
        "light.office_rgbw_lights",
        right=brighter("light.office_rgbw_lights"),
    ),
    request("the living room feels too cold", "relative", "climate.heatpump", right=warmer),
    request(
        "the fairy lights, could you put them on for me",
        "device",
        "switch.decorative_lights",
        right=state_is("switch.decorative_lights", "on"),
    ),
    request(
        "I'd like the bedside lamp at 30 percent please",
        "device",
        "light.bed_light",
        right=bedside_at_30,
    ),
    request(
        "the hall window should not stay open",
        "device",
        "cover.hall_window",
        right=state_is("cover.hall_window", "closed", "closing"),
    ),
    request(
        "add a dentist appointment tomorrow at 3 pm",
        "calendar",
        "calendar.family",
        right=event_at("dentist", tomorrow_at(15)),
    ),
    request(
        "put lunch with Kim on the calendar for Friday at noon",
        "calendar",
        "calendar.family",
        right=event_at("lunch", next_friday_noon),
    ),
    request(
        "tell Min-ji that dinner is ready",
        "messaging",
        MIN_JI,
        right=lambda seen: any("dinner" in m.casefold() for m in seen.messages),
    ),
    request(
        "we are out of eggs, put them on the shopping list",
        "todo",
        "todo.shopping_list",
        right=lambda seen: any("egg" in i.casefold() for i in seen.items),
    ),
    request(
        "check whether the kitchen window is open and close it if it is",
        "multi_step",
        "cover.kitchen_window",
        right=state_is("cover.kitchen_window", "closed", "closing"),
    ),
    request("book me a flight to Paris", "irrelevant"),
    request("what is the capital of France?", "irrelevant"),
    request("write me a short poem about autumn", "irrelevant"),
)
USEFUL_FLOOR = 7
"""Of the home requests whose outcome was not already true before them, at least this many
must end in the right change in HA. Qwen2.5-Coder-0.5B measured 5 of 8 on 2026-12-02 and 8 of
8 on 2026-12-06 (the calendar exposed to Assist, as a household that wants it handled does;
covers turned the way the request said); the floor leaves one for the run-to-run drift of
the prompt's clock."""


@pytest.fixture(scope="module")
def real_model() -> Path:
    return fetch(DEFAULT_MODEL)  # downloads and verifies once; cached for every clone


@pytest.fixture
async def worker(real_model: Path) -> AsyncIterator[ModelWorker]:
    worker = ModelWorker(lambda: LlamaEngine(EngineSettings(real_model, context_length=8192)))
    worker.start()
    await worker.wait_loaded()
    yield worker
    worker.stop()


async def seen_in_ha(hass: HomeAssistant, bridge: HaBridge, before: dict[str, State]) -> Seen:
    now = dt_util.now()
    events = await hass.services.async_call(
        "calendar",
        "get_events",
        {"start_date_time": now - timedelta(days=1), "end_date_time": now + timedelta(days=8)},
        target={"entity_id": "calendar.family"},
        blocking=True,
        return_response=True,
    )
    listed = await hass.services.async_call(
        "todo",
        "get_items",
        {"status": "needs_action"},
        target={"entity_id": "todo.shopping_list"},
        blocking=True,
        return_response=True,
    )
    phone = next(p for p in bridge.home.phones.values() if p.recipient == MIN_JI)
    return Seen(
        before,
        {s.entity_id: s for s in hass.states.async_all()},
        list(events["calendar.family"]["events"]),  # type: ignore[index,call-overload]
        [str(i["summary"]) for i in listed["todo.shopping_list"]["items"]],  # type: ignore[index,call-overload]
        [str(m.get("message", "")) for m in phone.received],
    )


async def covers_at_rest(hass: HomeAssistant) -> None:
    """Wait for HA's demo covers to stop moving (a step a second): a window closing is the
    change of the request that closed it, not of the next one."""
    for _ in range(60):
        if not any(s.state in {"opening", "closing"} for s in hass.states.async_all("cover")):
            return
        await asyncio.sleep(0.5)
    raise AssertionError("a cover still moving after 30 s")


def changed(hass: HomeAssistant, before: dict[str, str]) -> set[str]:
    after = snapshot(hass)
    return {e for e in before.keys() | after.keys() if before.get(e) != after.get(e)}


def snapshot(hass: HomeAssistant) -> dict[str, str]:
    """HA's own states (not the app's index, which follows them a moment later)."""
    return {
        s.entity_id: json.dumps([s.state, dict(s.attributes)], sort_keys=True, default=str)
        for s in hass.states.async_all()
        if not s.entity_id.startswith(VOLATILE)
    }


def problems_of(
    case: Request, answer: AgentResponse, moved: set[str], bridge: HaBridge
) -> list[str]:
    problems = []
    executed = [a for a in answer.actions if a.outcome is Outcome.EXECUTED]
    controls = [a for a in executed if a.tool not in READS]
    touched = {e for a in controls for e in a.entity_ids}
    if touched - case.may_touch:
        problems.append(f"acted on {sorted(touched - case.may_touch)} (widened or unasked)")
    if moved - case.may_touch:
        problems.append(f"HA changed {sorted(moved - case.may_touch)}")
    if answer.status is Status.DONE and not executed:
        problems.append(f"said done with nothing executed: {answer.speech!r}")
    for action in controls:  # every executed action is said
        names = [bridge.index.home.entities[e].name for e in action.entity_ids]
        if not any(name in answer.speech for name in names):
            problems.append(f"executed {action.tool} on {names} but said {answer.speech!r}")
    if case.category == "irrelevant" and (executed or answer.status is Status.DONE):
        problems.append(f"answered an irrelevant request with {answer.status}: {answer.speech!r}")
    return problems


READS = frozenset(
    {"get_state", "list_entities", "list_events", "list_todo_items", "check_free_busy"}
)


async def answer_when_warm(agent: BotPsyAgent, text: str, me: Principal) -> AgentResponse:
    """The request, asked again while the model builds its prompt (`warming_up`) or its
    queue still holds the requests that gave up meanwhile (`busy`), as a person would: a
    test that took `warming_up` for an answer asserted nothing about the model (this one
    did, until the usefulness floor showed it)."""
    answer = await agent.handle(ask(text, me))
    for _ in range(600):
        if answer.status not in {Status.WARMING_UP, Status.BUSY}:
            return answer
        await asyncio.sleep(2)
        answer = await agent.handle(ask(text, me))
    raise AssertionError(f"no answer to {text!r} in 20 minutes: {answer.status}")


async def test_the_real_model_never_claims_widens_or_acts_unasked(
    hass: HomeAssistant, ha_bridge: HaBridge, worker: ModelWorker
) -> None:
    # HA exposes no calendar to Assist by default; a household that wants its calendar
    # handled exposes it (the demo and the eval do): without it the two calendar requests
    # could only fail.
    async_expose_entity(hass, "conversation", "calendar.family", True)
    await wait_until(lambda: ha_bridge.index.home.entities["calendar.family"].exposed)
    agent = BotPsyAgent(
        home=lambda: ha_bridge.index.home,
        policy=home_policy,
        executor=ha_bridge.executor,
        planner=LlmPlanner(worker, timeout_s=1500.0),
        phrases=Phrasebook(),
        clock=dt_util.now,
    )
    me = admin(ha_bridge)
    fast_path = FastPath()
    report: dict[str, list[str]] = {}
    reached_the_model = 0
    # The cases are for the model: the fast path must not answer them (checked first: the
    # model's part takes minutes).
    answered = [c.text for c in REQUESTS if fast_path.recognize(c.text, "en", ha_bridge.index.home)]
    assert not answered, answered
    useful: dict[str, bool] = {}
    for case in REQUESTS:
        before = snapshot(hass)
        states_before = {s.entity_id: s for s in hass.states.async_all()}
        was = await seen_in_ha(hass, ha_bridge, states_before)
        answer = await answer_when_warm(agent, case.text, me)
        await hass.async_block_till_done()
        await covers_at_rest(hass)
        moved = changed(hass, before)
        reached_the_model += answer.path is AnswerPath.MODEL
        found = problems_of(case, answer, moved, ha_bridge)
        if found:
            report[case.text] = found
        calls = [f"{a.tool} {','.join(a.entity_ids)} {a.outcome}" for a in answer.actions]
        print(f"{case.text!r} -> {answer.status}: {answer.speech!r} {calls}")
        if case.right is not None and not case.right(was):  # a do-nothing cannot pass it
            useful[case.text] = case.right(await seen_in_ha(hass, ha_bridge, states_before))
    assert reached_the_model == len(REQUESTS)
    assert not report, json.dumps(report, indent=2)
    done = [text for text, ok in useful.items() if ok]
    print(f"carried out in HA: {len(done)}/{len(useful)}: {json.dumps(useful, indent=2)}")
    assert len(done) >= USEFUL_FLOOR, json.dumps(useful, indent=2)

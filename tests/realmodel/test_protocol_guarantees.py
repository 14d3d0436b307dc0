"""The model path's guarantees with a real trained model, on the real HA test home.

The model is Qwen2.5-Coder-0.5B-Instruct (Q4_K_M), a general-purpose coder model, not BotPsy:
the registry package the test bed assembles it from (devkit/real_models.py). What is asserted
is what the application guarantees whatever the model does, not the model's luck:

* no text claim: nothing is said as done unless it was executed, and every executed action
  is named in the answer;
* no widened target: no executed call touches an entity the request did not name;
* no ungrounded action: a request that asks for nothing in the home executes nothing.

How often the model gets each request *right* is measured by `make eval` (bench/results).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
import json
from pathlib import Path

from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util
import pytest

from botpsy_agent.agent.core import BotPsyAgent
from botpsy_agent.agent.protocol import AgentResponse, Outcome, Path as AnswerPath, Status
from botpsy_agent.agent.speech import Phrasebook
from botpsy_agent.fastpath.recognizer import FastPath
from botpsy_agent.llm.engine import EngineSettings, LlamaEngine
from botpsy_agent.llm.planner import LlmPlanner
from botpsy_agent.llm.worker import ModelWorker
from devkit.real_models import DEFAULT_MODEL, fetch
from tests.agent.support import admin, ask, home_policy
from tests.ha_bridge import HaBridge

pytestmark = pytest.mark.timeout(1800)  # the prefix is built on 2 cores in the first request

MIN_JI = "notify.mobile_app_min_ji_s_phone"
VOLATILE = ("sensor.", "calendar.", "sun.", "event.", "conversation.")


@dataclass(frozen=True)
class Request:
    text: str
    may_touch: frozenset[str]
    """Every entity the request names: an executed call beyond these widened its target."""
    category: str


def request(text: str, category: str, *may_touch: str) -> Request:
    return Request(text, frozenset(may_touch), category)


REQUESTS = (
    request("it's way too dark in the office", "relative", "light.office_rgbw_lights"),
    request("the living room feels too cold", "relative", "climate.heatpump"),
    request("could you put the fairy lights on for me", "device", "switch.decorative_lights"),
    request("I'd like the bedside lamp at 30 percent please", "device", "light.bed_light"),
    request("the hall window should not stay open", "device", "cover.hall_window"),
    request("add a dentist appointment tomorrow at 3 pm", "calendar", "calendar.family"),
    request("put lunch with Kim on the calendar for Friday at noon", "calendar", "calendar.family"),
    request("tell Min-ji that dinner is ready", "messaging", MIN_JI),
    request("we are out of eggs, put them on the shopping list", "todo", "todo.shopping_list"),
    request(
        "check whether the kitchen window is open and close it if it is",
        "multi_step",
        "cover.kitchen_window",
    ),
    request("book me a flight to Paris", "irrelevant"),
    request("what is the capital of France?", "irrelevant"),
    request("write me a short poem about autumn", "irrelevant"),
)


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


async def test_the_real_model_never_claims_widens_or_acts_unasked(
    hass: HomeAssistant, ha_bridge: HaBridge, worker: ModelWorker
) -> None:
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
    for case in REQUESTS:
        before = snapshot(hass)
        answer = await agent.handle(ask(case.text, me))
        await hass.async_block_till_done()
        moved = changed(hass, before)
        reached_the_model += answer.path is AnswerPath.MODEL
        found = problems_of(case, answer, moved, ha_bridge)
        if found:
            report[case.text] = found
    assert reached_the_model == len(REQUESTS)
    assert not report, json.dumps(report, indent=2)

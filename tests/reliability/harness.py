"""The real app (`runtime.App`) in the test's process, on the test's HA and broker.

Everything is the app's own wiring: HA client and index, policy store, model worker (the
tiny GGUF, when asked for), agent, MQTT front door, audit log, watchdog. Tests then break
one part for real (stop the broker, cut HA's connections, hang or crash the model thread,
fill the disk, spoil the policy file) and watch what the app does.

`GatedPlanner` stands in for the model *only in choosing calls*, like `ScriptedPlanner`
(tests/agent/support.py), and waits for the test's go before answering, so a fault can
strike while a request is in flight.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
import json
from pathlib import Path
from typing import Any

from homeassistant.core import HomeAssistant

from botpsy_agent.app.runtime import App, RuntimeConfig
from botpsy_agent.contract import sign
from botpsy_agent.llm.llama_cpp import EngineSettings
from botpsy_agent.llm.parse import RawCall
from botpsy_agent.llm.planning import Offer, PlannerTurn, PlanRequest
from botpsy_agent.mqtt.settings import ApiSettings, BrokerSettings
from devkit.mosquitto import MosquittoBroker
from tests.agent.support import HOME_POLICY
from tests.app_runtime import runtime_config, write_app_files
from tests.ha_bridge import wait_until
from tests.ha_server import HomeAssistantApiServer

INSTANCE = "test"
ROOT = f"botpsy/{INSTANCE}"
REQUEST = f"{ROOT}/request"
RESPONSE = f"{ROOT}/response"
SECRET = "reliability-test-secret-0123456789"


def app_config(
    ha_api: HomeAssistantApiServer,
    broker: MosquittoBroker,
    folder: Path,
    *,
    model: Path | None = None,
    api: ApiSettings | None = None,
    broker_settings: BrokerSettings | None = None,
    **overrides: Any,
) -> RuntimeConfig:
    """A config for the app on this HA and broker, its files under `folder`."""
    write_app_files(folder, policy=HOME_POLICY, secret=SECRET, label="reliability")
    engine = None
    if model is not None:
        engine = EngineSettings(model, context_length=16384, batch_size=512, threads=2)
    return runtime_config(
        ha_api,
        broker,
        folder,
        broker_settings=broker_settings,
        api=api or ApiSettings(instance=INSTANCE, languages=("en",)),
        model=engine,
        **overrides,
    )


@asynccontextmanager
async def running_app(config: RuntimeConfig) -> AsyncIterator[App]:
    """The app started (HA synced, MQTT online) and, at the end, stopped."""
    app = App(config)
    try:
        async with asyncio.timeout(30):
            await app.start()
        yield app
    finally:
        await app.stop()


async def model_ready(app: App, timeout_s: float = 30) -> None:
    await wait_until(lambda: app.health.snapshot.model_loaded, timeout_s)


def signed(user_id: str, request_id: str, text: str, **fields: Any) -> dict[str, Any]:
    """A request of an HA user, signed with the app's shared secret (as the integration)."""
    return sign({"id": request_id, "text": text, "user_id": user_id, **fields}, SECRET)


def home_states(hass: HomeAssistant) -> dict[str, tuple[str, str]]:
    """Every entity's state and attributes in HA itself, for "nothing else changed"."""
    return {
        s.entity_id: (s.state, json.dumps(dict(s.attributes), sort_keys=True, default=str))
        for s in hass.states.async_all()
    }


def changed(before: dict[str, tuple[str, str]], after: dict[str, tuple[str, str]]) -> set[str]:
    return {e for e in before.keys() | after.keys() if before.get(e) != after.get(e)}


@dataclass
class GatedPlanner:
    """Answers every plan with `calls`, once the test opens the gate."""

    calls: list[RawCall]
    gate: asyncio.Event = field(default_factory=asyncio.Event)
    waiting: int = 0
    seen: list[PlanRequest] = field(default_factory=list)
    then: Callable[[PlanRequest], PlannerTurn] = field(default=lambda request: PlannerTurn())
    """What to answer when the calls' results come back (a failure is fed back to the
    model): by default nothing more, so the response carries the action's error."""

    async def plan(self, request: PlanRequest) -> PlannerTurn:
        self.seen.append(request)
        if any(m.get("role") == "tool" for m in request.messages[-len(self.calls) :]):
            return self.then(request)
        self.waiting += 1
        try:
            await self.gate.wait()
        finally:
            self.waiting -= 1
        return PlannerTurn(calls=tuple(self.calls))

    def prepare(self, offer: Offer) -> None:
        return None

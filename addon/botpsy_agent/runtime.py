"""The running app: HA bridge, policy, model worker, agent and the MQTT front door, wired.

`App.start()` brings the parts up in the order they depend on each other, logging each step;
the fast path serves as soon as HA and MQTT are up, the model joins when it has loaded.
`App.stop()` takes them down in reverse and answers nothing twice on the way out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
import contextlib
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
import logging
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from botpsy_agent.agent.core import AgentSettings, BotPsyAgent
from botpsy_agent.agent.planner import LlmPlanner
from botpsy_agent.agent.speech import Phrasebook
from botpsy_agent.ha.client import ConnectionState, HaClient, HaEndpoint
from botpsy_agent.ha.errors import HaError
from botpsy_agent.ha.executor import Executor
from botpsy_agent.ha.index import EntityIndex
from botpsy_agent.ha.registries import HaUser as HaUserEntry
from botpsy_agent.health import HealthState
from botpsy_agent.llm.engine import EngineSettings, LlamaEngine
from botpsy_agent.llm.worker import ModelWorker
from botpsy_agent.mqtt.announce import ModelInfo
from botpsy_agent.mqtt.service import MqttService
from botpsy_agent.mqtt.settings import ApiSettings, BrokerSettings
from botpsy_agent.mqtt.signing import SecretFile
from botpsy_agent.policy.default import HaUser, default_policy_yaml
from botpsy_agent.policy.store import PolicyStore

_LOGGER = logging.getLogger(__name__)
HA_START_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class RuntimeConfig:
    """Everything the running app needs, already validated and resolved."""

    ha: HaEndpoint
    broker: BrokerSettings
    api: ApiSettings
    policy_file: Path
    data_dir: Path
    model: EngineSettings | None
    """None: no model (the fast path still serves)."""
    agent: AgentSettings = field(default_factory=AgentSettings)
    model_timeout_s: float = 60.0
    model_queue: int = 4
    health_file: Path | None = None
    translations: Path | None = None


class App:
    """One app process."""

    def __init__(self, config: RuntimeConfig) -> None:
        self.config = config
        self.health = HealthState(config.health_file or config.data_dir / "health.json")
        self.client = HaClient(config.ha)
        self.index = EntityIndex(self.client)
        self.executor = Executor(self.client, self.index)
        self.policies = PolicyStore(config.policy_file, self._known_user_ids)
        self.worker: ModelWorker | None = None
        self.agent: BotPsyAgent | None = None
        self.mqtt: MqttService | None = None
        self.time_zone: tzinfo = ZoneInfo("UTC")
        self._tasks: list[asyncio.Task[None]] = []
        self._unsubscribe: list[Callable[[], None]] = []

    # --- start and stop ------------------------------------------------------------------------

    async def start(self) -> None:
        config = self.config
        self._unsubscribe.append(self.client.add_state_listener(self._ha_state))
        _LOGGER.info("Connecting to Home Assistant…")
        await self.index.start()
        await self.client.start()
        await self.client.wait_connected(HA_START_TIMEOUT_S)
        await self.index.wait_synced(HA_START_TIMEOUT_S)
        self.time_zone = await self._home_time_zone()
        _LOGGER.info(
            "Home Assistant: %d entities, %d areas",
            len(self.index.home.entities),
            len(self.index.home.areas),
        )
        self._ensure_policy_file()
        self.policies.load()

        planner = None
        if config.model is not None:
            settings = config.model
            self.worker = ModelWorker(lambda: LlamaEngine(settings), max_queue=config.model_queue)
            self.worker.start()
            planner = LlmPlanner(self.worker, timeout_s=config.model_timeout_s)
        self.agent = BotPsyAgent(
            home=lambda: self.index.home,
            policy=lambda: self.policies.policy,
            executor=self.executor,
            planner=planner,
            phrases=Phrasebook(config.translations),
            clock=self.now,
            settings=config.agent,
        )
        self.mqtt = MqttService(
            self.agent,
            config.broker,
            config.api,
            secrets=SecretFile(config.data_dir / "integration_secrets"),
            users=self._user,
            model=None,
            on_reload_model=self.reload_model,
        )
        await self.mqtt.start()
        await self.mqtt.wait_online()
        self.health.update(mqtt_connected=True, ha_connected=self.client.connected)
        self._tasks.append(asyncio.create_task(self.policies.watch(), name="botpsy-policy-watch"))
        self._tasks.append(asyncio.create_task(self.health.beat_forever(), name="botpsy-health"))
        if self.worker is not None:
            self._tasks.append(asyncio.create_task(self._model_ready(), name="botpsy-model-ready"))
        else:
            self.health.update(model_loaded=True, detail="no model: fast path only")
        self._unsubscribe.append(self.index.add_listing_listener(self._listing_changed))
        _LOGGER.info("Ready (instance %s)", config.api.instance)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        if self.mqtt is not None:
            await self.mqtt.stop()
        if self.worker is not None:
            await asyncio.to_thread(self.worker.stop)
        await self.executor.close()
        await self.index.stop()
        await self.client.stop()
        _LOGGER.info("Stopped")

    # --- pieces ------------------------------------------------------------------------------

    def now(self) -> datetime:
        return datetime.now(self.time_zone)

    async def reload_model(self) -> None:
        """Unload and load the model again (HA's "reload model" button)."""
        if self.worker is None or self.config.model is None or self.agent is None:
            return
        _LOGGER.info("Reloading the model…")
        self.health.update(model_loaded=False, detail="reloading the model")
        old = self.worker
        settings = self.config.model
        self.worker = ModelWorker(lambda: LlamaEngine(settings), max_queue=self.config.model_queue)
        self.agent.planner = LlmPlanner(self.worker, timeout_s=self.config.model_timeout_s)
        await asyncio.to_thread(old.stop)
        self.worker.start()
        self._tasks.append(asyncio.create_task(self._model_ready()))

    async def _model_ready(self) -> None:
        assert self.worker is not None
        try:
            engine = await self.worker.wait_loaded()
        except Exception as err:
            _LOGGER.error("The model is not available; the fast path keeps serving: %s", err)  # noqa: TRY400
            self.health.update(model_loaded=False, detail=f"model failed: {err}")
            return
        info = engine.info
        if self.mqtt is not None:
            self.mqtt.set_model(ModelInfo(info.path.name, info.quant, info.architecture))
        self.health.update(model_loaded=True, detail="ready")
        self._listing_changed()

    def _listing_changed(self, *_: object) -> None:
        """Names changed: warm the prompts of the people who used the agent recently."""
        if self.agent is not None:
            self.agent.warm_recent(self.index.home, self.policies.policy, self.now())

    def _ha_state(self, state: ConnectionState) -> None:
        self.health.update(ha_connected=state is ConnectionState.CONNECTED)
        if state is ConnectionState.AUTH_FAILED:
            self.health.update(detail="Home Assistant refused the token")

    def _known_user_ids(self) -> list[str] | None:
        users = self.index.users
        return [u.user_id for u in users] if users else None

    def _user(self, user_id: str) -> HaUserEntry | None:
        return next((u for u in self.index.users if u.user_id == user_id), None)

    def _ensure_policy_file(self) -> None:
        path = self.config.policy_file
        if path.exists():
            return
        users = [
            HaUser(u.user_id, u.name, u.is_admin)
            for u in self.index.users
            if u.is_active and not u.system_generated
        ]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(default_policy_yaml(users), encoding="utf-8")
        _LOGGER.info("Wrote a first policy for %d users to %s (edit it freely)", len(users), path)

    async def _home_time_zone(self) -> tzinfo:
        try:
            config = await self.client.call({"type": "get_config"})
            return ZoneInfo(str(config["time_zone"]))
        except (HaError, KeyError, TypeError, ZoneInfoNotFoundError) as err:
            _LOGGER.warning("Home Assistant's time zone is unknown (%s); using UTC", err)
            return ZoneInfo("UTC")

"""The running app: HA bridge, policy, model worker, agent and the MQTT front door, wired.

`App.start()` brings the parts up in the order they depend on each other, logging each step;
the fast path serves as soon as HA and MQTT are up, the model joins when it has loaded. A
model file still to be downloaded is fetched after HA and MQTT are up (`model_fetch.py`),
so HA shows the download and the start does not wait for it.
`App.stop()` takes them down in reverse and answers nothing twice on the way out.

While it runs, the app keeps itself well: a model worker that crashes or hangs is replaced
(`WorkerWatchdog`), a broken policy edit leaves the previous rules in force, and every part's
trouble (HA, MQTT, model, policy, audit log) is one line in the health file's `detail` and in
HA's *Health* sensor, gone again when the part recovers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
import contextlib
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo
import gc
import logging
import os
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import aiohttp

from botpsy_agent import __version__
from botpsy_agent.agent import AgentSettings, BotPsyAgent, Phrasebook, exposed_ids, whole_listing
from botpsy_agent.agent.protocol import AgentCode
from botpsy_agent.app.broker_acl import SHARE_DIR, BrokerAcl, find_broker_acl
from botpsy_agent.app.health import HealthState, check_health
from botpsy_agent.app.model_fetch import NO_DOWNLOAD_STATS, ModelFetch, ModelFetcher
from botpsy_agent.audit import AuditLog, audit_path
from botpsy_agent.ha import (
    ConnectionState,
    EntityIndex,
    Executor,
    HaClient,
    HaEndpoint,
    HaError,
    HaUser,
    HomeAssistantCodes,
    Notifications,
    SupervisorAccess,
    SupervisorClient,
    self_check,
)
from botpsy_agent.link import IntegrationChannel
from botpsy_agent.llm import (
    AUTOMATIC,
    HANG_GRACE_S,
    SERVER_PROBE_INTERVAL_S,
    WATCHDOG_INTERVAL_S,
    ContextSize,
    Engine,
    EngineError,
    EngineSettings,
    LlamaEngine,
    LlmPlanner,
    ModelBusy,
    ModelTimeout,
    ModelUnavailable,
    ModelWarmingUp,
    ModelWorker,
    ModelWorkerError,
    PromptMeasure,
    ServerSettings,
    WorkerWatchdog,
    available_memory,
    choose_context,
    log_choice,
    measure_prompt,
    model_stats,
    prefix_of,
    request_room,
)
from botpsy_agent.mqtt import AnnouncedModel, ApiSettings, BrokerSettings, MqttService, SecretFile
from botpsy_agent.policy import (
    POLICY_POLL_INTERVAL_S,
    DefaultPolicyUser,
    PolicyStore,
    Principal,
    default_policy_yaml,
    home_people,
)
from botpsy_agent.web import CheckResult, IngressServer, IngressSettings, PageSources
from botpsy_agent.weights import DownloadError, DownloadProgress

_LOGGER = logging.getLogger(__name__)
HA_START_TIMEOUT_S = 30.0
INDEX_LOAD_WAIT_S = 5.0
"""How long a request waits for the entity index to load after HA (re)connects."""
EXECUTOR_SETTLE_S = 0.05
RETIRED_JOIN_S = 5.0
MODEL_SERVER_WATCH_S = 5.0
CONTEXT_RETRY_S = 5.0
"""How soon the home's prompt is measured again when the model was too busy to count it."""
PREPARE_AFTER_S = 2.0
"""After a change of names, how long the app waits for the next before it prepares its
people's prompts again: HA sends one registry event per entity (an integration added
hundreds at once), and each round of prefix builds is for the names of its moment."""


class StartupProblem(RuntimeError):
    """The app cannot start; the message is the one line that says why."""


@dataclass(frozen=True)
class RuntimeConfig:
    """Everything the running app needs, already validated and resolved."""

    ha: HaEndpoint
    broker: BrokerSettings
    api: ApiSettings
    policy_file: Path
    data_dir: Path
    model: EngineSettings | None
    """None: no local model (the fast path still serves)."""
    model_fetch: ModelFetch | None = None
    """Set when `model`'s file may still have to be downloaded: `start` connects first, then
    fetches it (HA's model-state sensor shows the progress), then loads it."""
    model_server: ServerSettings | None = None
    """A `llama-server` preferred over the local model while it is healthy; None: none."""
    model_server_probe_s: float = SERVER_PROBE_INTERVAL_S
    """How often the model server's health is probed."""
    agent: AgentSettings = field(default_factory=AgentSettings)
    model_timeout_s: float = 60.0
    thinking_budget: int = 0
    """Tokens the model may think before a tool turn; 0 = thinking off."""
    model_queue: int = 4
    health_file: Path | None = None
    translations: Path | None = None
    audit_message_bodies: bool = False
    """Keep request texts, answers and message bodies in the audit log (the option)."""
    policy_poll_s: float = POLICY_POLL_INTERVAL_S
    model_watchdog_s: float = WATCHDOG_INTERVAL_S
    """How often the model worker is checked for a crash or a hang."""
    model_hang_grace_s: float = HANG_GRACE_S
    """How long a model job may ignore its cancellation before the worker is replaced."""
    supervisor: SupervisorAccess | None = None
    """Set under the Supervisor: the integration is offered through its discovery."""
    pairing_by_code: bool = True
    """Whether an admin's config flow may pair by code (`startup.pairing_by_code`)."""
    broker_from_supervisor: bool = False
    """The broker is the one the Supervisor offers (no `mqtt.host` option): the app can
    then check its ACL (`broker_acl.py`); otherwise `info` says `broker_acl: unknown`."""
    share_dir: Path = SHARE_DIR
    """Where the Mosquitto app's extra configuration (its ACL file) is read from."""
    ingress: IngressSettings | None = None
    """The admin page (HA's ingress): where it listens; None: no page."""
    options_file: Path | None = None
    """The options file the app started from: the admin page runs the doctor on it."""


class App:
    """One app process."""

    def __init__(self, config: RuntimeConfig) -> None:
        self.config = config
        self.health = HealthState(config.health_file or config.data_dir / "health.json")
        self.client = HaClient(config.ha)
        self.index = EntityIndex(self.client)
        # HA sends a call's state changes before its result; a short wait catches devices
        # that report a moment later without holding every no-op command for long.
        self.executor = Executor(self.client, self.index, settle_s=EXECUTOR_SETTLE_S)
        self.policies = PolicyStore(config.policy_file, self._known_user_ids)
        self.audit = AuditLog(
            audit_path(config.data_dir),
            message_bodies=config.audit_message_bodies,
            on_health=lambda ok, detail: self._problem("audit", None if ok else detail),
        )
        self.worker: ModelWorker | None = None
        self._replacing = asyncio.Lock()
        """One worker replacement at a time (button and watchdog alike): two at once would
        both stop the same worker and leave one of the new ones unreferenced, still loaded."""
        self._retired: list[ModelWorker] = []
        """Workers replaced while stuck in a job: joined when the app stops."""
        self.watchdog = WorkerWatchdog(
            lambda: self.worker,
            self._restart_model,
            interval_s=config.model_watchdog_s,
            grace_s=config.model_hang_grace_s,
        )
        self._problems: dict[str, str] = {}
        self.context: ContextSize | None = None
        """The local model's context, chosen as it loaded (`_load_engine`)."""
        self._measure: PromptMeasure | None = None
        self._context_check: asyncio.Task[None] | None = None
        self._prepare_soon: asyncio.TimerHandle | None = None
        self._home_changed = False
        """The listing changed while `_context_check` ran: it checks again."""
        self.agent: BotPsyAgent | None = None
        self.mqtt: MqttService | None = None
        self.integration: IntegrationChannel | None = None
        """Pairing and permission updates of the HA integration (`link/channel.py`)."""
        self.web: IngressServer | None = None
        """The admin page, once it listens (`web/`)."""
        self.time_zone: tzinfo = ZoneInfo("UTC")
        self._tasks: list[asyncio.Task[None]] = []
        self._unsubscribe: list[Callable[[], None]] = []
        self._acl_check: asyncio.Task[None] | None = None
        self._mqtt_connects = 0
        self.notifications = Notifications(config.ha, config.api.instance)
        self.fetcher = (
            None
            if config.model_fetch is None or config.model is None
            else ModelFetcher(config.model_fetch, self.notifications, self._download_progressed)
        )

    # --- start and stop ------------------------------------------------------------------------

    async def start(self) -> None:
        config = self.config
        self._unsubscribe.append(self.client.add_state_listener(self._ha_state))
        _LOGGER.info("Checking Home Assistant's API…")
        report = await self_check(config.ha)  # logs which HA answered, or why none did
        if report.problem is not None and report.token_rejected:
            raise StartupProblem(
                f"Home Assistant refused the app's token: {report.problem.message}"
            )
        if not report.ok:
            _LOGGER.warning(
                "Home Assistant's REST API: %s; trying its WebSocket API", report.problem
            )
        _LOGGER.info("Connecting to Home Assistant…")
        await self.index.start()
        await self.client.start()
        await self.client.wait_connected(HA_START_TIMEOUT_S)
        await self.index.wait_synced(HA_START_TIMEOUT_S)
        self.time_zone = await self._home_time_zone(report.time_zone)
        _LOGGER.info(
            "Home Assistant: %d entities, %d areas",
            len(self.index.home.entities),
            len(self.index.home.areas),
        )
        self._ensure_policy_file()
        self.policies.load()

        has_model = config.model is not None or config.model_server is not None
        # A model file to fetch first is loaded once it is there (`_fetch_model`).
        planner = self._start_worker() if has_model and self.fetcher is None else None
        self.agent = BotPsyAgent(
            home=lambda: self.index.home,
            policy=lambda: self.policies.policy,
            executor=self.executor,
            planner=planner,
            phrases=Phrasebook(config.translations),
            clock=self.now,
            settings=config.agent,
            ha_unready=self._ha_unready,
        )
        self.mqtt = MqttService(
            self.agent,
            config.broker,
            config.api,
            secrets=SecretFile(config.data_dir / "integration_secrets"),
            users=self._user,
            model=None,
            on_reload_model=self.reload_model,
            audit=self.audit,
            message_bodies=config.audit_message_bodies,
            known_principal=self._policy_names,
            answers_question=self.agent.admits_answer,
            broker_acl=await self._find_broker_acl(),
        )
        self.mqtt.on_connection.append(self._mqtt_state)
        self.mqtt.on_connection.append(self._check_broker_acl_again)
        self.mqtt.model_stats = self.model_stats
        await self.mqtt.start()
        await self.mqtt.wait_online()
        self.integration = IntegrationChannel.for_app(
            config.broker,
            config.api,
            data_dir=config.data_dir,
            policies=self.policies,
            known_user_ids=self._known_user_ids,
            supervisor=config.supervisor,
            codes=HomeAssistantCodes(self.client),
            pairing_by_code=config.pairing_by_code,
            is_admin=self._is_admin,
        )
        await self.integration.start()
        await self.integration.wait_online()
        self.health.update(mqtt_connected=True, ha_connected=self.client.connected)
        self._tasks.append(asyncio.create_task(self._watch_policy(), name="botpsy-policy-watch"))
        self._tasks.append(asyncio.create_task(self.health.beat_forever(), name="botpsy-health"))
        if self.fetcher is not None:
            self._problem("model", "checking the model file")
            self.health.update(model_downloading=self.fetcher.needs_download)
            self._tasks.append(asyncio.create_task(self._fetch_model(), name="botpsy-model-fetch"))
        elif self.worker is not None:
            self._watch_model()
        else:
            self.health.update(model_loaded=True, detail="no model: fast path only")
        self._unsubscribe.append(self.index.add_listing_listener(self._listing_changed))
        if config.ingress is not None:
            await self._start_page(config.ingress)
        self.agent.warm_fast_path(self.index.home)
        # What start-up built lives as long as the app: a full collection need not walk it
        # again (one took 150-200 ms of a request in `make bench ARGS=--fast-path`).
        gc.collect()
        gc.freeze()
        _LOGGER.info("Ready (instance %s)", config.api.instance)

    async def _start_page(self, settings: IngressSettings) -> None:
        """The admin page; the app serves without it when its port cannot be had."""
        web = IngressServer(settings, self.page_sources())
        try:
            await web.start()
        except OSError as err:
            _LOGGER.error("The admin page cannot listen on port %d: %s", settings.port, err)  # noqa: TRY400
            self._problem("admin_page", f"cannot listen on port {settings.port}: {err.strerror}")
            return
        self.web = web

    def page_sources(self) -> PageSources:
        """What the admin page shows, read from the running parts when it asks."""
        options = self.config.options_file
        doctor = None
        if options is not None:

            async def doctor_checks() -> Sequence[CheckResult]:
                # Here, not at the top: the doctor imports `startup`, which imports this.
                from botpsy_agent.app.doctor import diagnose

                return await diagnose(options, dict(os.environ))

            doctor = doctor_checks
        return PageSources(
            instance=self.config.api.instance,
            version=__version__,
            users=lambda: self.index.users,
            stats=lambda: {} if self.mqtt is None else self.mqtt.stats(),
            model=self._model_text,
            health=lambda: check_health(self.health.path),
            audit_file=self.audit.path,
            policy=lambda: self.policies.policy,
            home=lambda: self.index.home,
            now=self.now,
            channel=lambda: self.integration,
            doctor=doctor,
        )

    def _model_text(self) -> str | None:
        model = None if self.mqtt is None else self.mqtt.model
        if model is None:
            return None
        kind = " ".join(part for part in (model.architecture, model.quant) if part)
        return f"{model.file} ({kind})" if kind else model.file

    def _watch_model(self) -> None:
        """The worker just started: report its loading, and keep it well from now on."""
        self._problem("model", "loading the model")
        self._tasks.append(asyncio.create_task(self._model_ready(), name="botpsy-model-ready"))
        self._tasks.append(asyncio.create_task(self.watchdog.run(), name="botpsy-watchdog"))
        if self.config.model_server is not None:
            self._tasks.append(
                asyncio.create_task(self._watch_model_server(), name="botpsy-model-server")
            )

    async def _fetch_model(self) -> None:
        """Make the model file present (downloading it on a first start), then load it. A
        failed download leaves the fast path serving and the health check failing, so the
        Supervisor's watchdog (when on) restarts the app, which resumes the download."""
        assert self.fetcher is not None and self.agent is not None
        try:
            await self.fetcher.run()
        except DownloadError as err:
            _LOGGER.error("The model is not available; the fast path keeps serving: %s", err)  # noqa: TRY400
            self.health.update(model_downloading=False)
            self._problem("model", f"download failed ({err.code}): {err.message}")
            return
        self.health.update(model_downloading=False)
        self.agent.planner = self._start_worker()
        self._watch_model()

    def _download_progressed(self, progress: DownloadProgress) -> None:
        self._problem("model", f"downloading {progress.name}: {progress.text()}")

    def model_stats(self) -> dict[str, Any]:
        """The model's part of the `stats` topic: downloading (with how far), else the
        worker's state."""
        stats = model_stats(self.worker)
        if self.fetcher is None:
            return stats | NO_DOWNLOAD_STATS
        if self.fetcher.progress is not None:
            stats["model_state"] = "downloading"
        return stats | self.fetcher.stats()

    async def stop(self) -> None:
        if self.web is not None:
            await self.web.stop()
            self.web = None
        gc.unfreeze()  # what start froze may be garbage now (tests start apps in one process)
        if self._acl_check is not None:
            self._tasks.append(self._acl_check)
            self._acl_check = None
        if self._context_check is not None:
            self._tasks.append(self._context_check)
            self._context_check = None
        for task in self._tasks:
            task.cancel()
        # Every task is awaited, and one that had failed does not keep the rest from stopping.
        ended = await asyncio.gather(*self._tasks, return_exceptions=True)
        for task, result in zip(self._tasks, ended, strict=True):
            if isinstance(result, Exception):
                _LOGGER.error("%s had failed: %r", task.get_name(), result)
        self._tasks.clear()
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        # Only now: a change of names heard while the tasks above stopped set a new one.
        if self._prepare_soon is not None:
            self._prepare_soon.cancel()
            self._prepare_soon = None
        if self.integration is not None:
            await self.integration.stop()
        if self.mqtt is not None:
            await self.mqtt.stop()
        if self.worker is not None:
            await asyncio.to_thread(self.worker.stop)
        for stuck in self._retired:
            await asyncio.to_thread(stuck.stop, RETIRED_JOIN_S)
        self._retired = [w for w in self._retired if w.alive]
        self.audit.close()
        await self.executor.close()
        await self.index.stop()
        await self.client.stop()
        _LOGGER.info("Stopped")

    # --- pieces ------------------------------------------------------------------------------

    def now(self) -> datetime:
        return datetime.now(self.time_zone)

    async def reload_model(self) -> None:
        """Unload and load the model again (HA's "reload model" button); returns when the
        new model has loaded (or failed), so presses meanwhile are not a second reload."""
        await self._replace_worker("reloading the model", stop_timeout_s=30.0)
        if self.worker is not None:
            with contextlib.suppress(Exception):  # _model_ready reports a failure
                await self.worker.wait_loaded()

    async def _restart_model(self, reason: str) -> None:
        """The watchdog found the worker crashed or stuck: a fresh one, at once."""
        await self._replace_worker(f"restarting the model ({reason})", stop_timeout_s=1.0)

    async def _replace_worker(self, why: str, *, stop_timeout_s: float) -> None:
        """Stop the worker (waiting at most `stop_timeout_s`), then load a new one; the
        fast path serves throughout. A worker stuck in a job is left to end by itself."""
        async with self._replacing:
            await self._replace_worker_now(why, stop_timeout_s=stop_timeout_s)

    async def _replace_worker_now(self, why: str, *, stop_timeout_s: float) -> None:
        if self.worker is None or self.agent is None:
            return
        _LOGGER.info("%s…", why[:1].upper() + why[1:])
        self.health.update(model_loaded=False)
        self._problem("model", why)
        if self.mqtt is not None:
            self.mqtt.set_model(None)
        old = self.worker
        await asyncio.to_thread(old.stop, stop_timeout_s)
        if old.alive:
            _LOGGER.warning("The old model worker is stuck in a job; it ends when the job does")
            self._retired.append(old)
        self.agent.planner = self._start_worker()
        self._tasks.append(asyncio.create_task(self._model_ready(), name="botpsy-model-ready"))

    def _start_worker(self) -> LlmPlanner:
        """A new model worker, loading the local model in its thread and probing the model
        server (if either is configured); the planner that uses it."""
        config = self.config
        settings = config.model
        self.worker = ModelWorker(
            None if settings is None else (lambda: self._load_engine(settings)),
            max_queue=config.model_queue,
            server=config.model_server,
            probe_interval_s=config.model_server_probe_s,
        )
        self.worker.start()
        return LlmPlanner(
            self.worker, timeout_s=config.model_timeout_s, thinking_budget=config.thinking_budget
        )

    def _load_engine(self, settings: EngineSettings) -> LlamaEngine:
        """On the worker's thread: the context sized for the prompt of the home as it is
        now (the longest any principal can have), then the model loaded with it (D79)."""
        home = self.index.home
        measure = measure_prompt(settings.model_path, whole_listing(home))
        size = choose_context(
            measure,
            request_room(self.config.thinking_budget),
            option=settings.context_length,
            memory_bytes=available_memory(),
        )
        log_choice(size, len(exposed_ids(home)))
        self._measure, self.context = measure, size
        return LlamaEngine(replace(settings, context_length=size.tokens))

    async def _model_ready(self) -> None:
        """Report the worker loaded (or why not) once its grammars pass. A worker replaced
        meanwhile (another reload) reports nothing: its successor's own check does."""
        worker = self.worker
        assert worker is not None
        try:
            engine = await worker.wait_loaded()
        except Exception as err:
            if self.worker is not worker:
                return
            _LOGGER.error("The model is not available; the fast path keeps serving: %s", err)  # noqa: TRY400
            self.health.update(model_loaded=False)
            self._problem("model", f"model failed: {err}")
            return
        if self.worker is not worker:
            return
        self._problem("context", None if self.context is None else self.context.problem)
        info = engine.info
        if self.agent is not None and isinstance(self.agent.planner, LlmPlanner):
            try:
                checked = await self.agent.planner.check_grammars()
            except ModelWorkerError as err:  # stopped, timed out: the worker, not the grammar
                if self.worker is worker:
                    self.health.update(model_loaded=False)
                    self._problem("model", f"model failed: {err}")
                return
            except (EngineError, ValueError) as err:
                _LOGGER.error("The model cannot take our grammars; fast path only: %s", err)  # noqa: TRY400
                self.agent.planner = None
                self._problem("model", f"grammar rejected: {err}")
                return
            if self.worker is not worker:
                return
            _LOGGER.info(
                "Model ready: %s (%s %s), %d grammars checked",
                info.path.name,
                info.architecture,
                info.quant,
                checked,
            )
        if self.mqtt is not None:
            self.mqtt.set_model(AnnouncedModel(info.path.name, info.quant, info.architecture))
        self.health.update(model_loaded=True)
        self._problem("model", None)
        self._listing_changed()
        if self.agent is not None:
            self.agent.warm_people(
                home_people(self.index.users), self.index.home, self.policies.policy, self.now()
            )

    async def _watch_model_server(self) -> None:
        """Say in the health detail while the model server does not serve, and who does."""
        while True:
            router = None if self.worker is None else self.worker.router
            problem = None
            if router is not None and router.problem is not None:
                stand_in = "the local model serves" if router.local else "no local model"
                problem = f"model server down ({stand_in}): {router.problem}"
            self._problem("model_server", problem)
            await asyncio.sleep(MODEL_SERVER_WATCH_S)

    def _listing_changed(self, *_: object) -> None:
        """Names changed: build the fast path's name lists, warm the prompts of the people
        who used the agent recently (once the changes pause), and see that the home's prompt
        still fits the model's context."""
        if self.agent is not None:
            self.agent.warm_fast_path(self.index.home)
            if self._prepare_soon is not None:
                self._prepare_soon.cancel()
            loop = asyncio.get_running_loop()
            self._prepare_soon = loop.call_later(PREPARE_AFTER_S, self._prepare_prompts)
        if self.context is None:
            return
        self._home_changed = True
        if self._context_check is None or self._context_check.done():
            self._context_check = asyncio.create_task(
                self._check_context(), name="botpsy-context-check"
            )

    def _prepare_prompts(self) -> None:
        self._prepare_soon = None
        if self.agent is not None:
            self.agent.warm_recent(self.index.home, self.policies.policy, self.now())

    @property
    def preparing_soon(self) -> bool:
        """A change of names was seen and the people's prompts are prepared shortly."""
        return self._prepare_soon is not None

    async def _check_context(self) -> None:
        """The home's prompt measured again after a change; when it has outgrown an
        automatic context, the model is loaded again with one sized for it (the snapshots
        are made again then: a home grows past its room rarely). An option's context that
        no longer fits, or a cap reached, is said in the health detail (D79)."""
        while self._home_changed:
            self._home_changed = False
            size, measure = self.context, self._measure
            try:
                prefix = await self._home_prefix()
            except (ModelBusy, ModelTimeout, ModelWarmingUp) as err:
                _LOGGER.debug("The home's prompt is measured again later: %s", err)
                self._home_changed = True  # a change must not go unmeasured
                await asyncio.sleep(CONTEXT_RETRY_S)
                continue
            if size is None or measure is None or prefix is None or size.fits(prefix):
                continue
            grown = choose_context(
                replace(measure, prefix_tokens=prefix),
                size.room,
                option=AUTOMATIC if size.automatic else size.tokens,
                memory_bytes=available_memory(),
            )
            if size.automatic and grown.tokens > size.tokens:
                await self._replace_worker(
                    f"loading the model again with a context of {grown.tokens:,} tokens: the "
                    f"home's prompt grew to {prefix:,} (the context had {size.tokens:,})",
                    stop_timeout_s=30.0,
                )
                return
            self._problem("context", grown.problem)

    async def _home_prefix(self) -> int | None:
        """The prefix of the whole home's listing in the local model's tokens, counted on
        the worker's thread; None when no local model can count it (none loaded, or it
        stopped). A busy or warming model raises (`_check_context` asks again later)."""
        worker = self.worker
        local = None if worker is None else worker.local
        if worker is None or local is None:
            return None
        listing = whole_listing(self.index.home)

        def count(_engine: Engine, _cancel: object) -> int:
            return prefix_of(local.template, local.tokenize, listing)  # whichever engine serves

        try:
            return await worker.run(count, self.config.model_timeout_s)
        except ModelUnavailable as err:  # stopped or reloading: the new model measures anew
            _LOGGER.debug("The home's prompt was not measured again: %s", err)
            return None

    async def _ha_unready(self) -> AgentCode | None:
        if not self.index.synced and self.client.connected:
            # Just (re)connected: the index is loading, which takes a moment; wait for it
            # rather than turn the request away.
            with contextlib.suppress(TimeoutError):
                await self.index.wait_synced(INDEX_LOAD_WAIT_S)
        if self.index.ready:
            return None
        return AgentCode.HA_STARTING if self.index.ha_starting else AgentCode.HA_UNAVAILABLE

    def _ha_state(self, state: ConnectionState) -> None:
        self.health.update(ha_connected=state is ConnectionState.CONNECTED)
        problem = None
        if state is ConnectionState.AUTH_FAILED:
            problem = "Home Assistant refused the token"
        elif state is ConnectionState.RECONNECTING:
            problem = "Home Assistant connection lost; reconnecting"
        self._problem("ha", problem)

    async def _find_broker_acl(self) -> BrokerAcl:
        """Whether the broker has an ACL, as far as the app can tell (issue 25, finding 3)."""
        access = self.config.supervisor
        if access is None or not self.config.broker_from_supervisor:
            return await find_broker_acl(None)
        async with aiohttp.ClientSession() as session:
            client = SupervisorClient(
                session, access.token, url=access.url, timeout_s=5.0, attempts=2
            )
            return await find_broker_acl(client, share_dir=self.config.share_dir)

    def _check_broker_acl_again(self, connected: bool) -> None:
        """On every reconnect (the first connect was checked before it): the broker may have
        restarted with another configuration."""
        if not connected:
            return
        self._mqtt_connects += 1
        if self._mqtt_connects == 1 or (self._acl_check and not self._acl_check.done()):
            return
        self._acl_check = asyncio.create_task(self._recheck_broker_acl(), name="botpsy-acl")

    async def _recheck_broker_acl(self) -> None:
        acl = await self._find_broker_acl()
        if self.mqtt is not None:
            self.mqtt.set_broker_acl(acl)

    def _mqtt_state(self, connected: bool) -> None:
        self.health.update(mqtt_connected=connected)
        self._problem("mqtt", None if connected else "MQTT broker lost; reconnecting")

    def _problem(self, part: str, problem: str | None) -> None:
        """Record (or clear) what is wrong with one part; the health file and HA show all."""
        if problem is None:
            if self._problems.pop(part, None) is None:
                return
        elif self._problems.get(part) == problem:
            return
        else:
            self._problems[part] = problem
        problems = [f"{part}: {text}" for part, text in sorted(self._problems.items())]
        self.health.update(detail="; ".join(problems) or "ready")
        if self.mqtt is not None:
            self.mqtt.set_health(problems)

    async def _watch_policy(self) -> None:
        """Reload the policy when its file changes; a bad file keeps the rules in force."""
        while True:
            await asyncio.sleep(self.config.policy_poll_s)
            if self.policies.changed_on_disk():
                error = self.policies.reload()
                problem = None
                if error is not None:
                    first = error.problems[0].render(error.source) if error.problems else ""
                    problem = f"invalid policy file, previous rules in force: {first}"
                self._problem("policy", problem)

    def _known_user_ids(self) -> list[str] | None:
        users = self.index.users
        return [u.user_id for u in users] if users else None

    def _user(self, user_id: str) -> HaUser | None:
        return next((u for u in self.index.users if u.user_id == user_id), None)

    def _is_admin(self, user_id: str) -> bool:
        user = self._user(user_id)
        return user is not None and user.is_active and user.is_admin

    def _ensure_policy_file(self) -> None:
        path = self.config.policy_file
        if path.exists():
            return
        users = [
            DefaultPolicyUser(u.user_id, u.name, u.is_admin)
            for u in self.index.users
            if u.is_active and not u.system_generated
        ]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(default_policy_yaml(users), encoding="utf-8")
        _LOGGER.info("Wrote a first policy for %d users to %s (edit it freely)", len(users), path)

    def _policy_names(self, principal: Principal) -> bool:
        """Whether the policy in force (it is reloaded) names `principal`."""
        return self.policies.policy.names(principal)

    async def _home_time_zone(self, known: str | None) -> tzinfo:
        """HA's time zone: the one the self-check read, else HA's config over the WebSocket."""
        try:
            if known is None:
                known = str((await self.client.call({"type": "get_config"}))["time_zone"])
            return ZoneInfo(known)
        except (HaError, KeyError, TypeError, ZoneInfoNotFoundError) as err:
            _LOGGER.warning("Home Assistant's time zone is unknown (%s); using UTC", err)
            return ZoneInfo("UTC")

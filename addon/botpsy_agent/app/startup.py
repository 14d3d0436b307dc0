"""From options to a running app: resolve the broker, make sure the model is there, run.

Every problem found before the app starts is one clear line; the process then exits 1
(the Supervisor shows the log and the user fixes the option), after saying so in HA as a
notification through the app's token (`startup_notice.py`), which the next good start
takes away. A model file that must be downloaded is fetched by the running app, after it
has connected (`model_fetch.py`); one already there is checked here. Once running, SIGTERM
or SIGINT stops it cleanly, within the app's stop timeout.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
import contextlib
import json
import logging
import os
from pathlib import Path
import signal
from typing import Final

import aiohttp

from botpsy_agent.app.config import (
    DEFAULT_OPTIONS,
    LogLevel,
    MqttOverride,
    MqttSettings,
    OptionsError,
    Secret,
    Settings,
    load_app_settings,
)
from botpsy_agent.app.cpu import cpu_problem
from botpsy_agent.app.health import HEALTH_FILE_NAME, RUN_DIR_ENV
from botpsy_agent.app.model_fetch import ModelFetch
from botpsy_agent.app.runtime import App, RuntimeConfig, StartupProblem
from botpsy_agent.app.startup_notice import (
    STARTUP_NOTICE,
    NoticeWords,
    Title,
    notice_words,
    options_notice,
    resolve_notice,
    say_startup_problem,
    start_notice,
)
from botpsy_agent.contract import INSTANCE_PATTERN
from botpsy_agent.ha import (
    HaEndpoint,
    Notice,
    Notifications,
    SupervisorAccess,
    SupervisorClient,
    SupervisorError,
)
from botpsy_agent.llm import EngineSettings, ServerSettings
from botpsy_agent.mqtt import ApiSettings, BrokerSettings, MqttVersion, TlsSettings
from botpsy_agent.policy import PolicyError
from botpsy_agent.web import IngressSettings
from botpsy_agent.weights import DownloadError, ensure_model, plan_model

_LOGGER = logging.getLogger("botpsy_agent")
DEFAULT_INSTANCE = str(DEFAULT_OPTIONS["instance"])
"""The instance a notification names when the options could not be read."""
SNAPSHOT_FOLDER = "snapshots"
"""Prefix snapshots in the app's data folder; `*.snapshot` is left out of backups."""


class ResolveError(Exception):
    """The options cannot be resolved into the app's config (broker, model, Home Assistant), so
    it cannot start; `lines` says why, one problem per line. (`runtime.StartupProblem` is what
    stops a resolved app while it starts.)"""

    def __init__(self, *lines: str, title: Title | None = None) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines
        self.title = title or Title()
        """What HA's notification says in its title (`notices` phrase); a generic one."""


async def resolve_broker(
    settings: Settings, session: aiohttp.ClientSession, environ: Mapping[str, str]
) -> BrokerSettings:
    """The broker `resolve_mqtt` chooses (the options' own, else the Supervisor's),
    as the MQTT connection takes it."""
    override = settings.mqtt
    try:
        client = (
            None
            if override.replaces_service
            else SupervisorClient.from_environment(session, environ)
        )
        broker = await resolve_mqtt(override, client)
    except SupervisorError as err:
        raise ResolveError(f"mqtt: {err.message}", title=Title("no_broker")) from None
    return BrokerSettings(
        host=broker.host,
        port=broker.port,
        username=broker.username,
        password=broker.password.reveal() if broker.password else None,
        tls=TlsSettings(ca_file=broker.ca_file) if broker.tls else None,
        # The Supervisor announces 3.1.1; the app still correlates in the payload then.
        version=MqttVersion.V311 if broker.protocol.startswith("3") else MqttVersion.V5,
        client_id=f"botpsy-{settings.instance}",
    )


async def resolve_model(
    settings: Settings,
    session: aiohttp.ClientSession,
    *,
    cpu_check: Callable[[], str | None] | None = None,
) -> tuple[EngineSettings, ModelFetch | None]:
    """The model's settings once the CPU is known to run llama.cpp's build (on one it cannot
    run, the library dies with "Illegal instruction" as it is loaded), and how to fetch the
    file when it must be downloaded (None: it is here, and checked)."""
    if problem := (cpu_check or cpu_problem)():
        raise ResolveError(f"model: {problem}", title=Title("no_avx2"))
    plan = plan_model(settings.model, settings.models_dir, settings.data_dir)
    fetch = None
    if plan.path.exists() or plan.url is None or settings.model.offline:
        try:
            await ensure_model(plan, session=session, offline=settings.model.offline)
        except DownloadError as err:
            raise ResolveError(
                f"model: {err}", title=Title("model_file", {"code": err.code})
            ) from None
    else:
        fetch = ModelFetch(plan, offline=False)
    disk_mb = settings.model.snapshot_disk_mb
    engine = EngineSettings(
        model_path=plan.path,
        context_length=settings.model.context_length,
        threads=settings.model.threads,
        snapshot_dir=settings.data_dir / SNAPSHOT_FOLDER if disk_mb else None,
        snapshot_disk_mb=disk_mb,
    )
    return engine, fetch


async def build_config(
    settings: Settings, environ: Mapping[str, str], options: Path | None = None
) -> RuntimeConfig:
    try:
        ha = HaEndpoint.from_environment(environ)
    except ValueError as err:
        raise ResolveError(f"homeassistant: {err}") from None
    async with aiohttp.ClientSession() as session:
        broker = await resolve_broker(settings, session, environ)
        model, model_fetch = await resolve_model(settings, session)
    run_dir = environ.get(RUN_DIR_ENV)
    supervisor = SupervisorAccess.from_environment(environ)
    return RuntimeConfig(
        ha=ha,
        broker=broker,
        api=ApiSettings(
            instance=settings.instance,
            languages=settings.languages,
            rate_per_principal=settings.rate_limits.per_principal,
            rate_global=settings.rate_limits.global_,
        ),
        policy_file=settings.policy_file,
        data_dir=settings.data_dir,
        model=model,
        model_fetch=model_fetch,
        model_server=model_server_settings(settings),
        thinking_budget=settings.model.thinking_budget,
        audit_message_bodies=settings.audit_message_bodies,
        supervisor=supervisor,
        pairing_by_code=pairing_by_code(settings, under_supervisor=supervisor is not None),
        broker_from_supervisor=supervisor is not None and not settings.mqtt.replaces_service,
        health_file=Path(run_dir) / HEALTH_FILE_NAME if run_dir else None,
        # The admin page: under the Supervisor, on its ingress port, for its proxy only.
        ingress=IngressSettings() if supervisor is not None else None,
        options_file=options,
    )


def pairing_by_code(settings: Settings, *, under_supervisor: bool) -> bool:
    """The `pairing_by_code` option, or when unset: off under the Supervisor (its discovery
    shares the secret with Home Assistant), on elsewhere (the only way to pair)."""
    if settings.pairing_by_code is not None:
        return settings.pairing_by_code
    return not under_supervisor


def model_server_settings(settings: Settings) -> ServerSettings | None:
    option = settings.model_server
    if option is None:
        return None
    return ServerSettings(
        url=option.url,
        api_key=None if option.api_key is None else option.api_key.reveal(),
        timeout_s=float(option.timeout_s),
        ca_file=option.ca_file,
    )


async def serve(options: Path, environ: Mapping[str, str] | None = None) -> int:
    env = dict(os.environ if environ is None else environ)
    try:
        settings = load_app_settings(options, env)
    except OptionsError as err:
        for line in err.problems:
            _LOGGER.error("%s", line)  # noqa: TRY400 - one clear line per problem, no trace
        problems = err.problems
        await tell_home_assistant(
            env, lambda words: options_notice(problems, words), instance_in(options)
        )
        return 1
    logging.getLogger().setLevel(_LEVELS[settings.log_level])
    for note in settings.notes:
        _LOGGER.info("%s", note)
    try:
        config = await build_config(settings, env, options)
    except ResolveError as err:
        for line in err.lines:
            _LOGGER.error("%s", line)  # noqa: TRY400
        unresolved = err
        await tell_home_assistant(
            env,
            lambda words: resolve_notice(unresolved.lines, unresolved.title, words),
            settings.instance,
        )
        return 1
    app = App(config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await app.start()
    except PolicyError as err:
        lines = [problem.render(err.source) for problem in err.problems]
        for line in lines:
            _LOGGER.error("%s", line)  # noqa: TRY400
        await app.stop()
        words = await notice_words(app.notifications)
        await say_startup_problem(app.notifications, start_notice(err, lines, words))
        return 1
    except (TimeoutError, OSError, StartupProblem) as err:
        _LOGGER.error("Start-up failed: %s", err)  # noqa: TRY400 - the message is the diagnosis
        await app.stop()
        words = await notice_words(app.notifications)
        notice = start_notice(err, [f"Start-up failed: {err}"], words)
        await say_startup_problem(app.notifications, notice)
        return 1
    await app.notifications.dismiss(STARTUP_NOTICE)  # a problem of an earlier start is gone
    await stop.wait()
    _LOGGER.info("Stopping…")
    with contextlib.suppress(Exception):
        await app.stop()
    return 0


def instance_in(options: Path) -> str | None:
    """The `instance` option as written, when it is valid although other options are not."""
    try:
        raw = json.loads(options.read_text(encoding="utf-8"))
    except OSError, ValueError:
        return None
    instance = raw.get("instance") if isinstance(raw, dict) else None
    return instance if isinstance(instance, str) and INSTANCE_PATTERN.fullmatch(instance) else None


async def tell_home_assistant(
    environ: Mapping[str, str],
    notice: Callable[[NoticeWords], Notice],
    instance: str | None = None,
) -> None:
    """Raise `notice` (in HA's language) in HA before the app stops, when HA's address and a
    token are known (under the Supervisor they always are). `instance` is the option's,
    when it was read."""
    try:
        endpoint = HaEndpoint.from_environment(environ)
    except ValueError:
        return  # nowhere to say it: the log has it
    notifications = Notifications(endpoint, instance or DEFAULT_INSTANCE)
    await say_startup_problem(notifications, notice(await notice_words(notifications)))


_LEVELS = {
    LogLevel.DEBUG: logging.DEBUG,
    LogLevel.INFO: logging.INFO,
    LogLevel.WARNING: logging.WARNING,
    LogLevel.ERROR: logging.ERROR,
}


DEFAULT_MQTT_PORT: Final = 1883
DEFAULT_MQTTS_PORT: Final = 8883
OWN_BROKER_PROTOCOL: Final = "5"
"""A broker of the options speaks MQTT 5 (answers then follow its response-topic and
correlation-data properties); the Supervisor's says which version it speaks."""


async def resolve_mqtt(override: MqttOverride, client: SupervisorClient | None) -> MqttSettings:
    """The broker to use: the options' own broker, or the Supervisor's with optional login.

    * `mqtt.host` set: that broker, with the options' port, TLS and login; the Supervisor
      is not asked.
    * otherwise: the Supervisor's broker; `mqtt.username`/`mqtt.password`, when set,
      replace the shared login it hands out (a dedicated user with its own ACL).
    """
    if override.host is not None:
        tls = bool(override.tls)
        return MqttSettings(
            host=override.host,
            port=override.port or (DEFAULT_MQTTS_PORT if tls else DEFAULT_MQTT_PORT),
            username=override.username,
            password=override.password,
            tls=tls,
            ca_file=override.ca_file,
            protocol=OWN_BROKER_PROTOCOL,
            source="options",
        )
    if client is None:
        raise SupervisorError(
            "no_supervisor",
            "no MQTT broker: set mqtt.host in the options, or run the app under the Supervisor",
        )
    service = await client.mqtt_service()
    own_login = override.username is not None
    return MqttSettings(
        host=service.host,
        port=service.port,
        username=override.username if own_login else service.username,
        password=override.password if own_login else _secret(service.password),
        tls=service.ssl,
        ca_file=None,
        protocol=service.protocol,
        source="supervisor+options" if own_login else "supervisor",
    )


def _secret(value: str | None) -> Secret | None:
    return Secret(value) if value else None

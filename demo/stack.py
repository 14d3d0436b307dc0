"""The demo's processes, started in order and stopped in reverse, with a progress line for
every slow step: Mosquitto, a Home Assistant process with the demo home, the BotPsy app."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
import contextlib
from dataclasses import dataclass
import logging
import os
from pathlib import Path
import shutil
import signal
import sys
import time

import aiohttp

from botpsy_agent.agent.core import AgentSettings
from botpsy_agent.app.model_fetch import ModelFetch
from botpsy_agent.app.runtime import App, RuntimeConfig
from botpsy_agent.ha.client import HaEndpoint
from botpsy_agent.llm.context import AUTOMATIC
from botpsy_agent.llm.llama_cpp import EngineSettings
from botpsy_agent.llm.llama_server import ServerSettings
from botpsy_agent.mqtt.settings import ApiSettings, BrokerSettings
from demo.first_start import report_model_state
from demo.home_setup import (
    DemoAccounts,
    add_botpsy_integration,
    confirm_http_settings,
    onboard,
    set_up_home,
)
from demo.paths import CONFIG, POLICY_TEMPLATE, REPO, RUN
from devkit.mosquitto import MosquittoBroker, free_port

INSTANCE = "demo"
HA_START_TIMEOUT_S = 180.0
APP_STOP_TIMEOUT_S = 20.0
MODEL_SETTLE_TIMEOUT_S = 600.0
"""The longest the eval waits for the app's warm-ups (a cold 1.5B prompt: about 25 s)."""
"""The app's own stop gets this long; HA and Mosquitto are stopped after it either way."""
RESTART_EXIT_CODE = 100
"""How Home Assistant asks whoever runs it for a restart (homeassistant.const)."""
SNAPSHOTS = "model-snapshots"
"""The run folder's one survivor across runs: the prefix snapshots (see `snapshot_dir`)."""
REVERT_DELAY_ENV = "BOTPSY_DEMO_HTTP_REVERT_S"
"""Seconds before HA reverts unconfirmed http settings (tests shorten HA's five minutes)."""

# HA runs through this launcher, which can shorten the revert delay inside the HA process
# (tests only); otherwise it is `python -m homeassistant`.
_HA_LAUNCHER = f"""
import os, sys
from datetime import timedelta
if os.environ.get({REVERT_DELAY_ENV!r}):
    from homeassistant.components.http import config
    config.AUTO_REVERT_DELAY = timedelta(seconds=float(os.environ[{REVERT_DELAY_ENV!r}]))
from homeassistant.__main__ import main
sys.exit(main())
"""

type Progress = Callable[[str], None]


@dataclass(frozen=True)
class ModelChoice:
    path: Path | None
    stand_in: bool
    """A generated random model: its answers are noise; fast path, permissions and
    execution are still real."""
    jump_forward: bool = True
    """Text the grammar forces is fed in one batch (the app's way); False feeds it token by
    token, for checking that the answers do not depend on it (D58)."""


class DemoStack:
    """Everything the demo runs; use as `async with DemoStack(...) as stack:`."""

    def __init__(
        self,
        model: ModelChoice,
        progress: Progress,
        *,
        run_dir: Path = RUN,
        model_server: ServerSettings | None = None,
        ha_pythonpath: Path | None = None,
        extra_config: str = "",
        model_fetch: ModelFetch | None = None,
        prepare_home: Callable[[DemoStack], Awaitable[None]] | None = None,
        policy: str | None = None,
    ) -> None:
        self.model = model
        self.progress = progress
        self.run_dir = run_dir
        self.model_server = model_server
        """The app's `model_server` (the bench's server backend); None: the local model."""
        self.ha_pythonpath = ha_pythonpath
        """Extra packages for HA's own integrations (the peer bench's openai), not the repo."""
        self.extra_config = extra_config
        """YAML appended to HA's configuration.yaml (the peer bench's assist_pipeline)."""
        self.model_fetch = model_fetch
        """Set for a first start: the app downloads `model.path` after it has connected."""
        self.prepare_home = prepare_home
        """Run once HA is set up, before the app starts (the homes bench arranges a large
        home there, so the app starts with it as it would in that home)."""
        self.policy = policy
        """The policy's text, `{admin_id}` and `{child_id}` to fill in; None: the demo's."""
        self._model_report: asyncio.Task[None] | None = None
        self.broker = MosquittoBroker(workdir=run_dir / "mosquitto")
        self.ha_port = free_port()
        self.ha_process: asyncio.subprocess.Process | None = None
        self.app: App | None = None
        self.accounts: DemoAccounts | None = None
        self.secret = os.urandom(24).hex()
        self.assist_agent: str | None = None
        """The entity id of our Assist agent in HA, once the integration is added."""
        self.ha_restarts = 0
        """How often HA asked for a restart (exit code 100) and was started again."""
        self._ha_ready = asyncio.Event()
        self._supervisor: asyncio.Task[None] | None = None
        self._stopping = False

    @property
    def ha_url(self) -> str:
        return f"http://127.0.0.1:{self.ha_port}"

    async def __aenter__(self) -> DemoStack:
        try:
            await self.start()
        except BaseException:
            await self.stop()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start(self) -> None:
        started = time.monotonic()
        self._clear_run_dir()
        self.progress("starting Mosquitto on loopback")
        self.broker.start()
        await self.start_home_assistant()
        self.progress("onboarding Home Assistant (owner account, no browser needed)")
        token, owner = await onboard(self.ha_url)
        if await confirm_http_settings(self.ha_url, token):
            self.progress("confirmed HA's http settings (HA reverts and restarts unconfirmed ones)")
        self._supervisor = asyncio.create_task(self._supervise_home_assistant())
        self.progress("setting up the demo home: accounts, floors, areas, calendar, shopping list")
        self.accounts = await set_up_home(
            self.ha_url, token, owner, (self.broker.host, self.broker.port)
        )
        if self.prepare_home is not None:
            await self.prepare_home(self)
        await self._start_app()
        await self._add_integration()
        self.progress(f"ready in {time.monotonic() - started:.0f} s")

    @property
    def snapshot_dir(self) -> Path:
        """The model's prefix snapshots, kept across runs (everything else in the run folder
        starts afresh): the same home, model and prompt restart warm. Each file carries its
        model, llama.cpp build and prompt tokens, so a change rebuilds instead of reusing."""
        return self.run_dir / SNAPSHOTS

    def _clear_run_dir(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        for entry in self.run_dir.iterdir():
            if entry.name == SNAPSHOTS:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()

    async def start_home_assistant(self) -> None:
        """A fresh copy of the demo's HA config in the run folder, and HA started on it."""
        config = self.run_dir / "ha"
        shutil.copytree(CONFIG, config)
        if self.extra_config:
            with (config / "configuration.yaml").open("a") as yaml:
                yaml.write("\n" + self.extra_config)
        # Our integration goes in as HACS would install it: its folder alone.
        integration = REPO / "custom_components" / "botpsy"
        if (integration / "manifest.json").exists():
            shutil.copytree(integration, config / "custom_components" / "botpsy")
        await self._start_home_assistant()

    async def _start_home_assistant(self) -> None:
        config = self.run_dir / "ha"
        log = (self.run_dir / "home-assistant.log").open("ab")
        self.progress(f"starting Home Assistant on {self.ha_url} (log: {log.name})")
        # HA must find custom_components in its config folder, not the repo's on PYTHONPATH.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        if self.ha_pythonpath is not None:
            env["PYTHONPATH"] = str(self.ha_pythonpath)
        env["BOTPSY_DEMO_HA_PORT"] = str(self.ha_port)
        self.ha_process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            _HA_LAUNCHER,
            "--config",
            str(config),
            "--skip-pip",
            stdout=log,
            stderr=log,
            env=env,
            start_new_session=True,
            cwd=config,  # `python -m` puts the working folder on sys.path: not the repo
        )
        log.close()
        deadline = time.monotonic() + HA_START_TIMEOUT_S
        async with aiohttp.ClientSession() as session:
            while time.monotonic() < deadline:
                if self.ha_process.returncode is not None:
                    raise RuntimeError(
                        f"Home Assistant exited; see {self.run_dir / 'home-assistant.log'}"
                    )
                # Before onboarding HA answers its onboarding view; once onboarded (a
                # restart) that view is gone and the API answers the admin's token.
                token = self.accounts.token if self.accounts is not None else None
                probe = "/api/" if token else "/api/onboarding"
                headers = {"Authorization": f"Bearer {token}"} if token else {}
                with contextlib.suppress(aiohttp.ClientError):
                    async with session.get(f"{self.ha_url}{probe}", headers=headers) as response:
                        if response.status == 200:
                            self._ha_ready.set()
                            return
                await asyncio.sleep(0.5)
        raise TimeoutError(f"Home Assistant did not answer within {HA_START_TIMEOUT_S:.0f} s")

    async def _supervise_home_assistant(self) -> None:
        """Start HA again when it exits asking for a restart (code 100), as HA OS or a
        container's restart policy would; the app and the integration reconnect by
        themselves, and `wait_ready` holds requests until the app is back."""
        while self.ha_process is not None:
            code = await self.ha_process.wait()
            if self._stopping:
                return
            self._ha_ready.clear()
            if code != RESTART_EXIT_CODE:
                log = self.run_dir / "home-assistant.log"
                self.progress(f"Home Assistant exited with code {code}; see {log}")
                return
            self.ha_restarts += 1
            self.progress("Home Assistant asked for a restart; starting it again")
            try:
                await self._start_home_assistant()
                await self._wait_app_connected()
            except (RuntimeError, TimeoutError) as err:
                self.progress(f"Home Assistant did not come back: {err}")
                return
            self.progress("Home Assistant is back")

    async def _wait_app_connected(self) -> None:
        if self.app is not None:
            await self.app.client.wait_connected(HA_START_TIMEOUT_S)

    async def wait_ready(self, timeout_s: float = HA_START_TIMEOUT_S) -> None:
        """Until HA answers, has started, and the app has loaded it (at once unless HA
        restarts): before that the app answers `ha_starting`."""
        await asyncio.wait_for(self._ha_ready.wait(), timeout_s)
        await self._wait_app_connected()
        if self.app is not None:
            await self.app.index.wait_ready(timeout_s)

    async def _start_app(self) -> None:
        assert self.accounts is not None
        data = self.run_dir / "app-data"
        data.mkdir()
        # The secret the HA integration would share at set-up; the demo signs with it.
        (data / "integration_secrets").write_text(self.secret + "\n")
        policy = self.run_dir / "policy.yaml"
        policy.write_text(
            (self.policy or POLICY_TEMPLATE.read_text()).format(
                admin_id=self.accounts.admin_id, child_id=self.accounts.child_id
            )
        )
        model = None
        if self.model.path is not None:
            model = EngineSettings(
                self.model.path,
                context_length=AUTOMATIC,
                snapshot_dir=self.snapshot_dir,
                jump_forward=self.model.jump_forward,
            )
        self.app = App(
            RuntimeConfig(
                ha=HaEndpoint.from_base_url(self.ha_url, self.accounts.token),
                broker=BrokerSettings(self.broker.host, self.broker.port, client_id="botpsy-demo"),
                api=ApiSettings(instance=INSTANCE),
                policy_file=policy,
                data_dir=data,
                model=model,
                model_fetch=self.model_fetch,
                model_server=self.model_server,
                agent=AgentSettings(),
                health_file=self.run_dir / "health.json",
            )
        )
        self.progress(
            "starting the BotPsy app (HA bridge, policy, MQTT; the model loads in the background)"
        )
        await self.app.start()
        if self.model_fetch is not None:
            app = self.app
            self._model_report = asyncio.create_task(
                report_model_state(
                    app.model_stats, lambda: app.health.snapshot.detail, self.progress
                )
            )
            self.progress("the app is up (HA and MQTT connected); it downloads its model now")
            while app.worker is None and "download failed" not in app.health.snapshot.detail:  # noqa: ASYNC110 - polls the app as its report does
                await asyncio.sleep(0.2)
        if self.app.worker is not None:
            self.progress(f"loading the model {self.model.path.name if self.model.path else ''}")
            await self.app.worker.wait_loaded()

    async def model_settled(self, timeout_s: float = MODEL_SETTLE_TIMEOUT_S) -> float:
        """Until the model has nothing to do (the prompts the app prepares when its model is
        ready, or after a change of names): the seconds waited."""
        app = self.app
        worker = None if app is None else app.worker
        started = time.monotonic()
        if app is None or worker is None:
            return 0.0
        quiet = 0
        # Loaded and checked (the app then queues its warm-ups at once), then idle twice in
        # a row: a warm-up may be between the queue and the thread.
        while quiet < 2:
            if time.monotonic() - started > timeout_s:
                raise TimeoutError(f"the model was still busy after {timeout_s:g} s")
            ready = not app.preparing_soon and (
                app.health.snapshot.model_loaded
                or worker.load_error is not None
                or (app.agent is not None and app.agent.planner is None)  # grammars refused
            )
            quiet = quiet + 1 if ready and worker.idle else 0
            await asyncio.sleep(0.25)
        return time.monotonic() - started

    def model_line(self) -> str | None:
        """The local model's prefix figures so far, from the engine's own counters: how
        many prefixes it evaluated and how many snapshots it restored from the disk."""
        engine = None if self.app is None or self.app.worker is None else self.app.worker.local
        if engine is None:
            return None
        return (
            f"model: {engine.builds} prefix builds, {engine.prefixes.loaded_from_disk} "
            f"snapshots restored from {self.snapshot_dir}"
        )

    async def _add_integration(self) -> None:
        assert self.app is not None and self.accounts is not None
        if self.app.integration is None:
            return
        self.progress("adding the BotPsy integration to Home Assistant (pairing as its admin)")
        await self.app.integration.wait_online()
        self.assist_agent = await add_botpsy_integration(self.ha_url, self.accounts.token, INSTANCE)

    async def stop(self) -> None:
        self._stopping = True
        if self._model_report is not None:
            self._model_report.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._model_report
            self._model_report = None
        if self._supervisor is not None:
            self._supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._supervisor
            self._supervisor = None
        if self.app is not None:
            self.progress("stopping the app")
            # Bounded: an app slow to stop must not keep HA and Mosquitto running after Ctrl-C.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.app.stop(), APP_STOP_TIMEOUT_S)
            self.app = None
        if self.ha_process is not None and self.ha_process.returncode is None:
            self.progress("stopping Home Assistant")
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.ha_process.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(self.ha_process.wait(), 30)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.ha_process.pid, signal.SIGKILL)
                await self.ha_process.wait()
        self.ha_process = None
        if self.broker.running:
            self.progress("stopping Mosquitto")
            self.broker.stop()


def stop_cleanly_on_sigterm() -> None:
    """A terminated demo or evaluation (a timeout, `kill`) stops HA and Mosquitto as Ctrl-C
    does, instead of leaving them running: SIGTERM raises KeyboardInterrupt, which
    `asyncio.run` turns into cancelling the main task, so the stack's `async with` exits."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)


def quiet_libraries() -> None:
    """The demo prints its own progress; libraries speak only when something is wrong."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

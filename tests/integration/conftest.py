"""The BotPsy integration on real parts: HA's own `mqtt` integration on a real Mosquitto, and
the real app runtime (`botpsy_agent.app.runtime.App`, the tiny GGUF) started in-process against
the same HA (served on loopback, `ha_api`) and the same broker.

`app_runner.start()` starts an app; `botpsy_entry` sets the integration up for it with a
secret the app already holds (the config flow tests pair for real instead).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
import json
from pathlib import Path
from typing import Any

from homeassistant.components import mqtt
from homeassistant.components.mqtt import client as mqtt_client
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant, callback
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from botpsy_agent.app.runtime import App, RuntimeConfig
from botpsy_agent.contract import sign_app_message
from botpsy_agent.ha.supervisor import SupervisorAccess
from botpsy_agent.llm.llama_cpp import EngineSettings
from botpsy_agent.mqtt.announce import status_payload
from botpsy_agent.mqtt.settings import ApiSettings, BrokerSettings
from custom_components.botpsy.const import CONF_INSTANCE, CONF_SECRET, DOMAIN
from custom_components.botpsy.link import AgentLink
from devkit.mosquitto import MosquittoBroker
from tests.app_runtime import runtime_config, write_app_files
from tests.ha_home import HaHome
from tests.ha_mqtt import set_up_ha_mqtt, wait_for
from tests.ha_server import HomeAssistantApiServer
from tests.policy.policies import HOUSEHOLD_AND_GROUPS, NO_LOCKS_FOR_USERS

INSTANCE = "test"
SECRET = "integration-test-secret-0123456789abcdef"
POLICY = (
    """\
# BotPsy permissions for the integration tests.
version: 1
confirm: [locks, alarm_panels, entrance_covers, messages_outside_household, calendar_deletes]
"""
    + HOUSEHOLD_AND_GROUPS
    + NO_LOCKS_FOR_USERS
    + """\
users:
  - id: {minji}
    name: Min-ji
    rules:
      - id: not-the-office   # written by hand: the permissions form leaves it alone
        deny: control
        areas: [office]
# Voice satellites and automations without a user.
mqtt:
  homeassistant:
    rules:
      - allow: [read, control]
        areas: [kitchen]
"""
)


def app_status(state: str, session: str = "another-connection", secret: str = SECRET) -> str:
    """A `status` message as the app signs it (with `secret`), of connection `session`."""
    return json.dumps(sign_app_message(status_payload(state, session), [secret]))


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations(enable_custom_integrations: None, hass_owner_user: Any) -> None:
    """Lets HA load `custom_components/botpsy`. HA makes the first user it creates the
    owner (an admin): the owner exists first, so the test home's Min-ji is a plain user."""


@pytest.fixture
async def mqtt_entry(
    hass: HomeAssistant, mosquitto: MosquittoBroker, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[MockConfigEntry]:
    """HA's own MQTT integration, connected to the real broker."""
    entry = await add_ha_mqtt(hass, mosquitto, monkeypatch)
    yield entry
    await unload(hass, entry)


async def add_ha_mqtt(
    hass: HomeAssistant, mosquitto: MosquittoBroker, monkeypatch: pytest.MonkeyPatch
) -> MockConfigEntry:
    """Add HA's MQTT integration as a user does (also in the middle of a test); its entry,
    once HA announced itself on the broker."""
    # HA subscribes in 0.5 s batches until 5 s of discovery silence after its start, then
    # in 0.1 s batches; a shorter silence changes nothing else and keeps the tests quick.
    monkeypatch.setattr(mqtt_client, "DISCOVERY_COOLDOWN", 0.1)
    entry = await set_up_ha_mqtt(hass, mosquitto)
    # HA announces itself (its birth message) once it is up, and the app answers with its
    # HA discovery. Waiting for the birth first means the app's device is discovered once,
    # not twice at the same moment (which HA's MQTT platform set-up does not survive).
    births: list[str] = []

    @callback
    def birth(message: mqtt.ReceiveMessage) -> None:
        births.append(str(message.payload))

    unsubscribe = await mqtt.async_subscribe(hass, "homeassistant/status", birth, 1)
    await wait_for(lambda: "online" in births, "HA's birth message")
    unsubscribe()
    return entry


@dataclass
class AppRunner:
    """Starts and stops real app runtimes for one test."""

    ha_api: HomeAssistantApiServer
    broker: MosquittoBroker
    home: HaHome
    folder: Path
    model_file: Path
    running: list[App] = field(default_factory=list)

    @property
    def data_dir(self) -> Path:
        return self.folder / "data"

    @property
    def policy_file(self) -> Path:
        return self.folder / "policy.yaml"

    def config(
        self,
        *,
        model: bool,
        supervisor: SupervisorAccess | None = None,
        api: ApiSettings | None = None,
        **fields: Any,
    ) -> RuntimeConfig:
        """`fields`: more of `RuntimeConfig` (`broker_from_supervisor`, `share_dir`, …)."""
        return runtime_config(
            self.ha_api,
            self.broker,
            self.folder,
            broker_settings=BrokerSettings(
                host=self.broker.host, port=self.broker.port, client_id=f"botpsy-{INSTANCE}"
            ),
            api=api or ApiSettings(instance=INSTANCE),
            model=EngineSettings(self.model_file, context_length=16384) if model else None,
            # Random weights may wander through all their tokens: a bounded wait, whose
            # timeout is an answer too.
            model_timeout_s=20.0,
            health_file=self.folder / "health.json",
            supervisor=supervisor,
            **fields,
        )

    async def start(
        self,
        *,
        model: bool = True,
        secret: str | None = SECRET,
        supervisor: SupervisorAccess | None = None,
        api: ApiSettings | None = None,
        **fields: Any,
    ) -> App:
        """A running app; `secret` is in its secrets file already (as after pairing)."""
        policy = POLICY.format(minji=self.home.users["Min-ji"])
        write_app_files(self.folder, policy=policy, secret=secret)
        app = App(self.config(model=model, supervisor=supervisor, api=api, **fields))
        await app.start()
        self.running.append(app)
        return app

    async def stop(self, app: App) -> None:
        self.running.remove(app)
        await app.stop()


@pytest.fixture
async def app_runner(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    tiny_qwen35_gguf: Path,
    tmp_path: Path,
) -> AsyncIterator[AppRunner]:
    runner = AppRunner(ha_api, mosquitto, ha_home, tmp_path / "app", tiny_qwen35_gguf)
    yield runner
    for app in list(runner.running):
        await runner.stop(app)


type SetupEntry = Callable[..., Awaitable[MockConfigEntry]]


@pytest.fixture
async def setup_entry(
    hass: HomeAssistant, mqtt_entry: MockConfigEntry
) -> AsyncIterator[SetupEntry]:
    """Sets the integration up for the app `INSTANCE` (unloaded again at the end)."""
    entries: list[MockConfigEntry] = []

    async def setup(*, secret: str = SECRET, wait_online: bool = True) -> MockConfigEntry:
        entry = MockConfigEntry(
            domain=DOMAIN,
            title=f"BotPsy ({INSTANCE})",
            unique_id=INSTANCE,
            data={CONF_INSTANCE: INSTANCE, CONF_SECRET: secret},
        )
        entry.add_to_hass(hass)
        entries.append(entry)
        assert await hass.config_entries.async_setup(entry.entry_id)
        await hass.async_block_till_done()
        link: AgentLink = entry.runtime_data
        if wait_online:
            await wait_for(lambda: link.online and link.policy_state is not None, "the app")
        return entry

    yield setup
    for entry in entries:
        await unload(hass, entry)


@pytest.fixture
async def botpsy_entry(app_runner: AppRunner, setup_entry: SetupEntry) -> MockConfigEntry:
    """The integration set up for a running app (no model: the fast path answers)."""
    await app_runner.start(model=False)
    return await setup_entry()


async def unload(hass: HomeAssistant, entry: MockConfigEntry) -> None:
    if entry.state is ConfigEntryState.LOADED:
        assert await hass.config_entries.async_unload(entry.entry_id)
        await hass.async_block_till_done()

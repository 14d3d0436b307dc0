"""Real test services: Mosquitto, Home Assistant core on a loopback port, tiny GGUF models.

`pytest-homeassistant-custom-component` blocks sockets in every test; fixtures that talk to
a real server request `socket_enabled` themselves, so a test only names what it uses.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Generator, Iterator
from pathlib import Path
import ssl

import aiohttp
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
import pytest

from devkit.mosquitto import MosquittoBroker, MqttUser
from devkit.tiny_gguf import TINY_QWEN3, TINY_QWEN35, prompt_merges, write_model
from tests.ha_bridge import HaBridge, start_bridge
from tests.ha_home import HaHome, setup_test_home
from tests.ha_server import HomeAssistantApiServer
from tests.mqtt.pki import ThrowawayPki
from tests.mqtt_probe import MqttProbe


@pytest.fixture
def hass_config_dir(hass_tmp_config_dir: str) -> str:
    """Each HA instance gets its own config folder with a `configuration.yaml`.

    HA's MQTT set-up reads YAML from the config folder; the harness's shared folder has none.
    """
    Path(hass_tmp_config_dir, "configuration.yaml").write_text("")
    return hass_tmp_config_dir


# --- MQTT ---------------------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed test that used a broker shows whether it still ran and its log: a refused
    connection is otherwise a riddle."""
    report = yield
    if report.failed:
        for name, value in getattr(item, "funcargs", {}).items():
            if isinstance(value, MosquittoBroker):
                title = f"broker {name!r} (running: {value.running}, port {value.port})"
                report.sections.append((title, value.log_text()[-4000:]))
    return report


@pytest.fixture
def mosquitto(tmp_path: Path, socket_enabled: None) -> Iterator[MosquittoBroker]:
    """A Mosquitto broker on a free loopback port, anonymous access allowed."""
    broker = MosquittoBroker(workdir=tmp_path / "mosquitto")
    broker.start()
    yield broker
    broker.stop()


AGENT_USER = MqttUser("botpsy", "agent-secret", readwrite=("botpsy/#", "homeassistant/#"))
KITCHEN_USER = MqttUser(
    "kitchen-panel",
    "panel-secret",
    write=("botpsy/+/request/kitchen-panel",),
    read=("botpsy/+/response/kitchen-panel", "botpsy/+/status"),
)


@pytest.fixture
def mosquitto_acl(tmp_path: Path, socket_enabled: None) -> Iterator[MosquittoBroker]:
    """A broker with users, passwords and an ACL: no anonymous access."""
    broker = MosquittoBroker(workdir=tmp_path / "mosquitto-acl", users=(AGENT_USER, KITCHEN_USER))
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture
def mqtt_probe(mosquitto: MosquittoBroker) -> Iterator[MqttProbe]:
    """A plain paho client on the plain broker, for publishing and collecting messages."""
    probe = MqttProbe(mosquitto.host, mosquitto.port)
    probe.connect()
    yield probe
    probe.close()


# --- Home Assistant -----------------------------------------------------------------------


@pytest.fixture
async def ha_api(
    hass: HomeAssistant, hass_access_token: str, socket_enabled: None
) -> AsyncIterator[HomeAssistantApiServer]:
    """This test's HA, its HTTP and WebSocket API served on a loopback port with a real token."""
    assert await async_setup_component(hass, "websocket_api", {})
    await hass.async_block_till_done()
    server = HomeAssistantApiServer(hass, hass_access_token)
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
async def ha_home(hass: HomeAssistant) -> HaHome:
    """The test home (tests/ha_home.py: demo entities, helpers, areas, floors, phones) in
    this test's `hass`."""
    return await setup_test_home(hass)


@pytest.fixture
async def ha_bridge(hass: HomeAssistant, ha_api: HomeAssistantApiServer) -> AsyncIterator[HaBridge]:
    """The app's HA client, entity index and executor connected to this test's HA, with the
    test home built (`ha_bridge.home`; do not also request `ha_home`). tests/ha_bridge.py."""
    bridge = await start_bridge(hass, ha_api)
    yield bridge
    await bridge.stop()


# --- Models -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def tiny_qwen35_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random hybrid (Gated DeltaNet) Qwen3.5-style model with XML tool calls."""
    path = tmp_path_factory.mktemp("models") / "tiny-qwen35.gguf"
    return write_model(path, TINY_QWEN35, merges=prompt_merges())


@pytest.fixture(scope="session")
def tiny_qwen3_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Qwen3-style model with Hermes JSON tool calls."""
    path = tmp_path_factory.mktemp("models") / "tiny-qwen3.gguf"
    return write_model(path, TINY_QWEN3, merges=prompt_merges())


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> ThrowawayPki:
    """A CA, a server certificate for 127.0.0.1 and a client certificate, made now."""
    return ThrowawayPki.create(tmp_path_factory.mktemp("pki"))


@pytest.fixture
async def session(pki: ThrowawayPki, socket_enabled: None) -> AsyncIterator[aiohttp.ClientSession]:
    """An HTTP client session, as the app opens one for the Supervisor and downloads; it
    trusts the throw-away CA as the app trusts the public ones."""
    trust = ssl.create_default_context(cafile=pki.ca_cert)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=trust)) as client:
        yield client

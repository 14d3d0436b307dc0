"""Issue 25, finding 3: the app tells whether its broker has an ACL, against a stand-in
Supervisor and a `/share` folder as the Mosquitto app reads it. On the old code there was no
check at all: `info` said nothing of the broker, and nothing in HA warned."""

from __future__ import annotations

from collections.abc import AsyncIterator
import logging
from pathlib import Path

import aiohttp
import pytest

from botpsy_agent.app.broker_acl import BrokerAcl, find_broker_acl
from botpsy_agent.ha.supervisor import SupervisorClient
from botpsy_agent.mqtt.announce import info_payload
from botpsy_agent.mqtt.settings import ApiSettings
from devkit.supervisor import MqttServiceData, SupervisorStandIn

LOGIN_PASSWORD = "mosquitto-local-login-password-42"


def mosquitto_options(*, active: bool, folder: str = "mosquitto") -> dict[str, object]:
    """The Mosquitto app's options, a local login (with its password) among them."""
    return {
        "logins": [{"username": "panel", "password": LOGIN_PASSWORD}],
        "customize": {"active": active, "folder": folder},
        "certfile": "fullchain.pem",
        "keyfile": "privkey.pem",
        "require_certificate": False,
    }


@pytest.fixture
async def supervisor(socket_enabled: None) -> AsyncIterator[SupervisorStandIn]:
    stand_in = SupervisorStandIn(
        mqtt=MqttServiceData(host="core-mosquitto", port=1883),
        apps={"core_mosquitto": mosquitto_options(active=False)},
    )
    await stand_in.start()
    yield stand_in
    await stand_in.stop()


@pytest.fixture
def share(tmp_path: Path) -> Path:
    folder = tmp_path / "share"
    folder.mkdir()
    return folder


def client_for(stand_in: SupervisorStandIn, session: aiohttp.ClientSession) -> SupervisorClient:
    return SupervisorClient(session, stand_in.token, url=stand_in.url, attempts=1)


def write_acl(share: Path, folder: str = "mosquitto") -> None:
    """As the Mosquitto app's documentation says: a `.conf` naming the ACL file."""
    (share / folder).mkdir()
    (share / folder / "acl.conf").write_text(f"acl_file /share/{folder}/accesscontrollist\n")
    (share / folder / "accesscontrollist").write_text(
        "user addons\ntopic readwrite #\n\nuser homeassistant\ntopic readwrite #\n"
    )


async def test_the_mosquitto_app_without_customize_has_no_acl(
    supervisor: SupervisorStandIn,
    session: aiohttp.ClientSession,
    share: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    acl = await find_broker_acl(client_for(supervisor, session), share_dir=share)
    assert acl is BrokerAcl.OFF
    assert supervisor.requests == ["GET /services/mqtt", "GET /addons/core_mosquitto/info"]
    assert "Broker ACL: off" in caplog.text
    # Neither the Mosquitto app's logins nor the app's own broker password are logged.
    assert supervisor.mqtt is not None
    assert LOGIN_PASSWORD not in caplog.text
    assert supervisor.mqtt.password not in caplog.text
    # and `info` says so (signed by the MQTT service like the rest of it).
    assert info_payload(ApiSettings(), None, acl)["broker_acl"] == "off"


async def test_customize_with_an_acl_file_is_an_acl(
    supervisor: SupervisorStandIn, session: aiohttp.ClientSession, share: Path
) -> None:
    client = client_for(supervisor, session)
    supervisor.apps["core_mosquitto"] = mosquitto_options(active=True)
    # Customize on, but no configuration that names an ACL: still none.
    assert await find_broker_acl(client, share_dir=share) is BrokerAcl.OFF
    (share / "mosquitto").mkdir()
    (share / "mosquitto" / "listener.conf").write_text("# acl_file commented out\nlistener 1885\n")
    assert await find_broker_acl(client, share_dir=share) is BrokerAcl.OFF
    (share / "mosquitto" / "listener.conf").unlink()
    (share / "mosquitto").rmdir()
    write_acl(share)
    assert await find_broker_acl(client, share_dir=share) is BrokerAcl.ON
    # The folder is the option's.
    supervisor.apps["core_mosquitto"] = mosquitto_options(active=True, folder="mqtt")
    assert await find_broker_acl(client, share_dir=share) is BrokerAcl.OFF
    write_acl(share, "mqtt")
    assert await find_broker_acl(client, share_dir=share) is BrokerAcl.ON
    # An ACL file with the ACL off is no ACL.
    supervisor.apps["core_mosquitto"] = mosquitto_options(active=False, folder="mqtt")
    assert await find_broker_acl(client, share_dir=share) is BrokerAcl.OFF


async def test_what_the_app_cannot_see_is_unknown(
    supervisor: SupervisorStandIn,
    session: aiohttp.ClientSession,
    share: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = client_for(supervisor, session)
    # Not the Supervisor's broker (the options' own), or no Supervisor: nothing asked.
    assert await find_broker_acl(None, share_dir=share) is BrokerAcl.UNKNOWN
    assert supervisor.requests == []
    # Another app offers the broker.
    supervisor.mqtt = MqttServiceData(host="emqx", port=1883, provider="a0d7b954_emqx")
    assert await find_broker_acl(client, share_dir=share) is BrokerAcl.UNKNOWN
    assert supervisor.requests == ["GET /services/mqtt"]
    # The Supervisor refuses to describe the Mosquitto app (no `hassio_api` in the config).
    supervisor.mqtt = MqttServiceData(host="core-mosquitto", port=1883)
    supervisor.hassio_api = False
    assert await find_broker_acl(client, share_dir=share) is BrokerAcl.UNKNOWN
    assert "the Supervisor refused GET /addons/core_mosquitto/info" in caplog.text
    # Customize on, but `/share` is not readable (not mapped): no guess.
    supervisor.hassio_api = True
    supervisor.apps["core_mosquitto"] = mosquitto_options(active=True)
    assert await find_broker_acl(client, share_dir=share / "absent") is BrokerAcl.UNKNOWN
    # A folder option that leaves `/share` is not followed.
    supervisor.apps["core_mosquitto"] = mosquitto_options(active=True, folder="../etc")
    assert await find_broker_acl(client, share_dir=share) is BrokerAcl.UNKNOWN
    assert LOGIN_PASSWORD not in caplog.text

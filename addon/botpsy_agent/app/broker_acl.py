"""Whether the broker has an access control list (issue 25, finding 3).

Without one, every broker login (on HA's Mosquitto app: every HA user) may write
`botpsy/#`: act as any named MQTT principal, read their answers, fill the rate limits. The
app cannot create HA repair issues; it says what it found in its signed `info`
(`broker_acl`), and the integration raises the issue `broker_without_acl` from it.

What the app can know, and how (D64):

* **Under the Supervisor, on its broker**: the broker's provider is named by
  `GET /services/mqtt`. For HA's Mosquitto app (`core_mosquitto`) the app reads that app's
  `customize` option (`GET /addons/core_mosquitto/info`; the rest of its options, among
  them local logins with their passwords, is dropped unread). Mosquitto reads an ACL only
  from a `*.conf` of `/share/<customize.folder>/` with an `acl_file` line, and only when
  `customize.active` is on: the app reads those files through its own `/share` mapping.
  Customize off, or no `acl_file` line → `off`; an `acl_file` line → `on`.
* **Anything else** (another provider, the options' own broker, an API that refuses, a
  `/share` the app cannot read) → `unknown`: the app does not guess.

`on` means an ACL is in force, not that it is the recommended one.
"""

from __future__ import annotations

from enum import StrEnum
import logging
from pathlib import Path
from typing import Final

from botpsy_agent.ha import SupervisorClient, SupervisorError

_LOGGER = logging.getLogger(__name__)
MOSQUITTO_APP: Final = "core_mosquitto"
SHARE_DIR: Final = Path("/share")
DEFAULT_CUSTOMIZE_FOLDER: Final = "mosquitto"


class BrokerAcl(StrEnum):
    """The `broker_acl` field of `info`."""

    ON = "on"
    OFF = "off"
    UNKNOWN = "unknown"


async def find_broker_acl(
    client: SupervisorClient | None, *, share_dir: Path = SHARE_DIR
) -> BrokerAcl:
    """What the app can tell about the Supervisor's broker's ACL. `client` is None when the
    app does not use the Supervisor's broker (then: `unknown`)."""
    if client is None:
        return BrokerAcl.UNKNOWN
    try:
        provider = (await client.mqtt_service()).provider
        if provider != MOSQUITTO_APP:
            _LOGGER.info(
                "Broker ACL: unknown (the broker is %s's, not the Mosquitto app's)",
                provider or "an unnamed app",
            )
            return BrokerAcl.UNKNOWN
        customize = await client.app_option(MOSQUITTO_APP, "customize")
    except SupervisorError as err:
        _LOGGER.warning(
            "Broker ACL: unknown (the Supervisor did not say how the Mosquitto app is "
            "configured: %s)",
            err.message,
        )
        return BrokerAcl.UNKNOWN
    if not isinstance(customize, dict) or customize.get("active") is not True:
        return _off("its option customize.active is off")
    folder = customize.get("folder") or DEFAULT_CUSTOMIZE_FOLDER
    if not isinstance(folder, str) or not _plain_folder(folder):
        _LOGGER.warning("Broker ACL: unknown (customize.folder %r is not a folder name)", folder)
        return BrokerAcl.UNKNOWN
    return _acl_in_folder(share_dir, folder)


def _acl_in_folder(share_dir: Path, folder: str) -> BrokerAcl:
    """Whether Mosquitto's extra configuration in `/share/<folder>/*.conf` sets an ACL."""
    if not share_dir.is_dir():
        _LOGGER.warning("Broker ACL: unknown (the app cannot read %s)", share_dir)
        return BrokerAcl.UNKNOWN
    configs = share_dir / folder
    try:
        files = sorted(configs.glob("*.conf")) if configs.is_dir() else []
        for config in files:
            if any(_sets_acl_file(line) for line in config.read_text("utf-8").splitlines()):
                _LOGGER.info("Broker ACL: on (acl_file in %s)", config)
                return BrokerAcl.ON
    except (OSError, UnicodeDecodeError) as err:
        _LOGGER.warning("Broker ACL: unknown (cannot read %s: %s)", configs, err)
        return BrokerAcl.UNKNOWN
    return _off(f"no acl_file line in {configs}/*.conf")


def _sets_acl_file(line: str) -> bool:
    words = line.split()
    return len(words) >= 2 and words[0] == "acl_file"


def _plain_folder(folder: str) -> bool:
    return folder not in {"", ".", ".."} and "/" not in folder and "\\" not in folder


def _off(why: str) -> BrokerAcl:
    _LOGGER.warning(
        "Broker ACL: off (the Mosquitto app has no ACL: %s). Every broker login, and so "
        "every Home Assistant user, may write botpsy/#; see the app's documentation, "
        "'Broker ACL'",
        why,
    )
    return BrokerAcl.OFF

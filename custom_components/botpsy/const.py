"""Constants of the BotPsy integration."""

from __future__ import annotations

import logging
import re
from typing import Final

DOMAIN: Final = "botpsy"
LOGGER = logging.getLogger(__package__)

CONF_INSTANCE: Final = "instance"
CONF_SECRET: Final = "secret"  # noqa: S105 - the name of a config key
CONF_PAIRING_CODE: Final = "pairing_code"

BASE_TOPIC: Final = "botpsy"
INSTANCE_PATTERN: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
HA_PRINCIPAL: Final = "homeassistant"
"""The named MQTT principal Home Assistant publishes as. Requests of a signed-in HA user are
signed and act as that user; requests without one (a voice satellite, an automation) act as
this principal, which the app's policy grants rights to under `mqtt: homeassistant:`."""

REQUEST_TIMEOUT_S: Final = 90.0
"""The app's model path may take its own 60 s on slow hardware."""
PROBE_TIMEOUT_S: Final = 10.0
PAIRING_TIMEOUT_S: Final = 15.0
DISCOVERY_SETTLE_S: Final = 0.2
"""After the broker confirms a subscription, how long retained messages may take to arrive."""
OFFLINE_ISSUE_DELAY_S: Final = 60.0
"""An app restart (an update) takes seconds: only a longer silence is a repair issue."""
NO_MODEL_ISSUE_DELAY_S: Final = 900.0
"""A first start downloads and loads the model; only a long wait without one is an issue."""

EVENT_ACTION: Final = "botpsy_action"
ATTR_VIA: Final = "via"

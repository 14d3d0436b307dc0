"""Constants of the BotPsy integration."""

from __future__ import annotations

import logging
from typing import Final

DOMAIN: Final = "botpsy"
LOGGER = logging.getLogger(__package__)

CONF_INSTANCE: Final = "instance"
CONF_SECRET: Final = "secret"  # noqa: S105 - the name of a config key
CONF_ACKNOWLEDGED: Final = "acknowledged_pairings"
"""Ids of the app's other secrets an admin said are known (a repair issue until then)."""
SUPERVISOR_LABEL: Final = "supervisor discovery"
"""The app's label of the secret it gave HA through the Supervisor (not a pairing)."""
CONF_APP_SLUG: Final = "app_slug"
"""The Supervisor's slug of the app, when its discovery set the entry up (for its page)."""
APP_DOCS_URL: Final = "https://github.com/botpsy/botpsy-ha/blob/main/addon/DOCS.md"

EVENT_ACTION: Final = "botpsy_action"
ATTR_VIA: Final = "via"

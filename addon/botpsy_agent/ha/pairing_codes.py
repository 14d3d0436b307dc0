"""The code of a pairing an HA admin started, fetched from Home Assistant itself.

The integration's config flow (admins only) makes a one-time code and answers it on the
WebSocket command `botpsy/pairing/code`, which only admins may call. The app asks over its
own authenticated connection, so the code never passes the broker, a notification or a log.
"""

from __future__ import annotations

import logging
from typing import Final

from botpsy_agent.ha.client import HaClient
from botpsy_agent.ha.errors import HaCallError, HaError

_LOGGER = logging.getLogger(__name__)
COMMAND: Final = "botpsy/pairing/code"
FETCH_TIMEOUT_S: Final = 5.0


class HomeAssistantCodes:
    """`fetch(instance)`: the code of the pairing waiting in HA, or None when none is."""

    def __init__(self, client: HaClient) -> None:
        self._client = client

    async def fetch(self, instance: str) -> str | None:
        try:
            result = await self._client.call(
                {"type": COMMAND, "instance": instance}, timeout_s=FETCH_TIMEOUT_S
            )
        except HaCallError as err:
            if err.code == "unauthorized":
                _LOGGER.warning(
                    "Home Assistant refused the pairing code: the app's access token is not an "
                    "admin's, so pairing by code cannot work"
                )
            elif err.code != "not_found":  # not_found: no admin is pairing (a stray press)
                _LOGGER.warning("Home Assistant did not give the pairing code: %s", err.code)
            return None
        except HaError as err:
            _LOGGER.warning("Could not ask Home Assistant for the pairing code: %s", err.code)
            return None
        code = result.get("code") if isinstance(result, dict) else None
        return code if isinstance(code, str) else None

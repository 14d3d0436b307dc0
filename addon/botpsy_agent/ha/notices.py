"""Persistent notifications in Home Assistant: what the app shows the user there (the
pairing code, new pairings), because its log is not where people look, and a code in a log
outlives its use."""

from __future__ import annotations

import logging

from botpsy_agent.ha.client import HaClient
from botpsy_agent.ha.errors import HaError

_LOGGER = logging.getLogger(__name__)


class PersistentNotices:
    """`persistent_notification.create` / `dismiss`, ids `botpsy_<instance>_<key>`."""

    def __init__(self, client: HaClient, instance: str) -> None:
        self._client = client
        self._instance = instance

    def notification_id(self, key: str) -> str:
        return f"botpsy_{self._instance}_{key}"

    async def show(self, key: str, title: str, message: str) -> None:
        data = {"notification_id": self.notification_id(key), "title": title, "message": message}
        await self._call("create", data)

    async def dismiss(self, key: str) -> None:
        await self._call("dismiss", {"notification_id": self.notification_id(key)})

    async def _call(self, service: str, data: dict[str, str]) -> None:
        try:
            await self._client.call(
                {
                    "type": "call_service",
                    "domain": "persistent_notification",
                    "service": service,
                    "service_data": data,
                }
            )
        except HaError as err:  # the text is not logged: it may hold the pairing code
            _LOGGER.warning("Home Assistant did not take a notification (%s): %s", service, err)

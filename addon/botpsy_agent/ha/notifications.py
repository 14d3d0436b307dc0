"""Notifications in Home Assistant's notification panel, raised with the app's own token.

HA lets a program outside it raise exactly one kind of message: a persistent notification
(the `persistent_notification.create` action; there is no API that creates a repair issue,
see docs/decisions.md, D72). The app uses it for what a household must see before any
integration entry exists: the first model download, and a start-up problem that stops the
app. HA shows these notifications to every signed-in user, so they say what happened and
what to fix, never a code, a secret or a person's request; in HA's own language where the
app has its words (`language`, then the app's `notices` phrases). A start-up problem is also
fired as an event (`fire`), which the integration, once set up, raises as a repair issue
for admins only, taking the notification away (D85).

They go over HA's REST API, not the WebSocket: a start-up problem may stop the app before
its WebSocket is up. A notification that cannot be delivered is logged and skipped; it
never stops or delays the app.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
import logging
from typing import Final

import aiohttp

from botpsy_agent.ha.client import HaEndpoint

_LOGGER = logging.getLogger(__name__)
TIMEOUT_S: Final = 10.0


@dataclass(frozen=True)
class Notice:
    """One notification; a later one with the same `key` replaces it in HA."""

    key: str
    """What the notice is about (`model_download`, `startup`): with the instance, HA's id."""
    title: str
    message: str


class Notifications:
    """Raises and dismisses one instance's notifications in HA."""

    def __init__(
        self,
        endpoint: HaEndpoint,
        instance: str,
        *,
        session: Callable[[], aiohttp.ClientSession] = aiohttp.ClientSession,
    ) -> None:
        self._endpoint = endpoint
        self.instance = instance
        self._session = session
        self._language: str | None = None

    async def language(self) -> str:
        """HA's own language (its general settings), for the notices' words; English when
        HA cannot say. Asked once: a notice is raised at most a few times a start."""
        if self._language is None:
            config = await self._get("config", "its settings")
            language = config.get("language") if isinstance(config, dict) else None
            self._language = language if isinstance(language, str) and language else "en"
        return self._language

    def notification_id(self, key: str) -> str:
        return f"botpsy_{self.instance}_{key}"

    async def show(self, notice: Notice) -> bool:
        """Raise (or replace) `notice`; whether HA took it."""
        return await self._call(
            "create",
            {
                "notification_id": self.notification_id(notice.key),
                "title": notice.title,
                "message": notice.message,
            },
        )

    async def dismiss(self, key: str) -> bool:
        """Take the notice about `key` away (HA answers success when there is none)."""
        return await self._call("dismiss", {"notification_id": self.notification_id(key)})

    async def fire(self, event_type: str, data: Mapping[str, str]) -> bool:
        """Fire `event_type` in HA (only an admin token may): for the integration, which
        alone can raise a repair issue; whether HA took it."""
        return await self._post(f"events/{event_type}", data, f"the event {event_type}")

    async def _call(self, service: str, data: dict[str, str]) -> bool:
        what = f"the notification {data['notification_id']}"
        return await self._post(f"services/persistent_notification/{service}", data, what)

    async def _get(self, path: str, what: str) -> object:
        """HA's JSON answer at `path`; None when it cannot be had (logged)."""
        return (await self._request("GET", path, what))[1]

    async def _post(self, path: str, data: Mapping[str, str], what: str) -> bool:
        return (await self._request("POST", path, what, data))[0]

    async def _request(
        self, method: str, path: str, what: str, data: Mapping[str, str] | None = None
    ) -> tuple[bool, object]:
        """Whether HA took the request, and what it answered (read for a GET only)."""
        url = f"{self._endpoint.rest_url}/{path}"
        headers = {"Authorization": f"Bearer {self._endpoint.token}"}
        try:
            async with (
                self._session() as session,
                session.request(
                    method,
                    url,
                    json=None if data is None else dict(data),
                    headers=headers,
                    timeout=aiohttp.ClientTimeout(total=TIMEOUT_S),
                ) as response,
            ):
                if response.status == 200:
                    return True, await response.json() if method == "GET" else None
                _LOGGER.warning("Home Assistant refused %s: HTTP %d", what, response.status)
        except (aiohttp.ClientError, TimeoutError, ValueError) as err:
            _LOGGER.warning(
                "Could not reach Home Assistant for %s: %s", what, str(err) or type(err).__name__
            )
        return False, None

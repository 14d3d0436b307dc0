"""The Supervisor's API (Home Assistant's, for apps), the parts the app uses: the MQTT service
and discovery.

Inside an app container the Supervisor answers at `http://supervisor` and accepts the
token it put in `SUPERVISOR_TOKEN` (regenerated at every app start; read it, never store
it). Answers are `{"result": "ok", "data": {...}}` or `{"result": "error", "message": ...}`.

* `GET /services/mqtt` gives the broker the Mosquitto app (or another provider) offers:
  host, port, ssl, username, password, protocol. The app's config declares
  `services: ["mqtt:need"]`, so the Supervisor lets it read them.
* `POST /discovery` with `{"service": "botpsy", "config": {...}}` offers the BotPsy
  integration in Home Assistant (the config declares `discovery: ["botpsy"]`).
* `GET /addons/<slug>/info` describes another app, its options included: the broker ACL
  check reads one option of the Mosquitto app (`app_option`). Outside `/addons/self`, this
  needs `hassio_api: true` in the config; the default role may read any `…/info`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
import logging
import os
from typing import Any, Final

import aiohttp

_LOGGER = logging.getLogger(__name__)

SUPERVISOR_URL: Final = "http://supervisor"
URL_ENV: Final = "BOTPSY_SUPERVISOR_URL"
"""Overrides the Supervisor's address (tests and development, with a stand-in)."""
TOKEN_ENVS: Final = ("SUPERVISOR_TOKEN", "HASSIO_TOKEN")
DISCOVERY_SERVICE: Final = "botpsy"


class SupervisorError(Exception):
    """The Supervisor could not give what was asked; `code` is stable, the message says why."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


@dataclass(frozen=True)
class SupervisorAccess:
    """How to reach the Supervisor from inside the app (its token is never shown)."""

    url: str
    token: str = field(repr=False)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> SupervisorAccess | None:
        """None when the app does not run under the Supervisor."""
        token = next((environ[name] for name in TOKEN_ENVS if environ.get(name)), None)
        if token is None:
            return None
        return cls(environ.get(URL_ENV) or SUPERVISOR_URL, token)


@dataclass(frozen=True)
class MqttService:
    """The broker the Supervisor announces (`GET /services/mqtt`)."""

    host: str
    port: int
    ssl: bool
    username: str | None
    password: str | None = field(repr=False)
    protocol: str
    provider: str | None = None
    """The slug of the app that offers the broker (`core_mosquitto` for HA's Mosquitto
    app); older Supervisors call the field `addon`, newer ones `app`."""


class SupervisorClient:
    """A small client for the Supervisor API, over the caller's aiohttp session."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        token: str,
        *,
        url: str = SUPERVISOR_URL,
        timeout_s: float = 10.0,
        attempts: int = 3,
        retry_delay_s: float = 1.0,
    ) -> None:
        self._session = session
        self._token = token
        self.url = url.rstrip("/")
        self._timeout = aiohttp.ClientTimeout(total=timeout_s)
        self._attempts = max(1, attempts)
        self._retry_delay_s = retry_delay_s

    def __repr__(self) -> str:
        return f"SupervisorClient(url={self.url!r})"  # never the token

    @classmethod
    def from_environment(
        cls, session: aiohttp.ClientSession, environ: Mapping[str, str] | None = None
    ) -> SupervisorClient:
        """The client for this container: token and address from the environment."""
        access = SupervisorAccess.from_environment(os.environ if environ is None else environ)
        if access is None:
            raise SupervisorError(
                "no_token",
                "SUPERVISOR_TOKEN is not set: the app is not running under the Supervisor "
                "(outside Home Assistant, set the MQTT broker in the options: mqtt.host)",
            )
        return cls(session, access.token, url=access.url)

    async def mqtt_service(self) -> MqttService:
        """The broker the Supervisor offers, or `SupervisorError` saying why there is none."""
        try:
            data = await self._request("GET", "/services/mqtt")
        except SupervisorError as err:
            if err.code == "not_found":
                raise SupervisorError(
                    "no_mqtt_service",
                    "the Supervisor has no MQTT broker to offer "
                    f"({err.message}); install and start the Mosquitto broker app, "
                    "or set another broker in the options (mqtt.host)",
                ) from None
            raise
        try:
            password = data.get("password")
            return MqttService(
                host=str(data["host"]),
                port=int(data["port"]),
                ssl=bool(data.get("ssl", False)),
                username=data.get("username") or None,
                password=str(password) if password else None,
                protocol=str(data.get("protocol") or "3.1.1"),
                provider=_provider(data),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise SupervisorError(
                "bad_response", f"the MQTT service answer lacks a usable {err}"
            ) from None

    async def app_option(self, slug: str, option: str) -> object:
        """One top-level option of the app `slug` (None when unset). Only that option is
        kept: the others may hold credentials (the Mosquitto app's `logins`)."""
        data = await self._request("GET", f"/addons/{slug}/info")
        options = data.get("options")
        return options.get(option) if isinstance(options, dict) else None

    async def publish_discovery(self, config: Mapping[str, Any]) -> str:
        """Offer the BotPsy integration to Home Assistant; returns the discovery's uuid."""
        data = await self._request(
            "POST", "/discovery", {"service": DISCOVERY_SERVICE, "config": dict(config)}
        )
        uuid = data.get("uuid")
        if not isinstance(uuid, str):
            raise SupervisorError("bad_response", "the discovery answer has no uuid")
        return uuid

    async def _request(
        self, method: str, path: str, body: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """One API call with a few retries while the Supervisor cannot be reached."""
        for attempt in range(1, self._attempts + 1):
            try:
                return await self._request_once(method, path, body)
            except SupervisorError as err:
                if err.code != "unreachable" or attempt == self._attempts:
                    raise
                _LOGGER.warning(
                    "Supervisor not reachable (%s); trying again (%d of %d)",
                    err.message,
                    attempt + 1,
                    self._attempts,
                )
                await asyncio.sleep(self._retry_delay_s * attempt)
        raise AssertionError("unreachable")  # the loop returns or raises

    async def _request_once(
        self, method: str, path: str, body: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self._token}"}
        try:
            async with self._session.request(
                method, self.url + path, json=body, headers=headers, timeout=self._timeout
            ) as response:
                status = response.status
                try:
                    payload = await response.json(content_type=None)
                except aiohttp.ContentTypeError, ValueError:
                    payload = None
        except (aiohttp.ClientConnectionError, TimeoutError) as err:
            raise SupervisorError(
                "unreachable",
                f"cannot reach the Supervisor at {self.url} ({_describe(err)})",
            ) from None
        return _unwrap(status, payload, f"{method} {path}")


def _provider(data: Mapping[str, Any]) -> str | None:
    slug = data.get("addon") or data.get("app")
    return slug if isinstance(slug, str) else None


def _describe(err: BaseException) -> str:
    return str(err) or type(err).__name__


def _unwrap(status: int, payload: object, what: str) -> dict[str, Any]:
    message = payload.get("message") if isinstance(payload, dict) else None
    if status in {401, 403}:
        raise SupervisorError(
            "refused" if status == 403 else "unauthorized",
            f"the Supervisor refused {what} (HTTP {status}: {message or 'no reason given'})",
        )
    if status == 404:
        raise SupervisorError("not_found", f"{what}: HTTP 404 ({message or 'not found'})")
    if not isinstance(payload, dict):
        raise SupervisorError("bad_response", f"{what}: HTTP {status}, not a JSON object")
    if status >= 400 or payload.get("result") != "ok":
        reason = message or f"HTTP {status}"
        code = "not_found" if "not enabled" in str(reason).lower() else "error"
        raise SupervisorError(code, f"{what}: {reason}")
    data = payload.get("data")
    return data if isinstance(data, dict) else {}

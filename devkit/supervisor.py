"""A stand-in for the Home Assistant Supervisor's API, on a loopback port.

The real Supervisor manages containers and cannot run here. This stand-in answers the few
calls the app makes, in the Supervisor's shapes (`{"result": "ok", "data": ...}` or
`{"result": "error", "message": ...}`), with the same token check:

* `GET /services/mqtt` -> the broker it was given (`mqtt=None`: "Service not enabled",
  HTTP 400, as when no broker app is installed);
* `POST /discovery` -> records the message and answers a uuid; a service the app did not
  declare is refused with HTTP 403, as the Supervisor does.
* `GET /addons/<slug>/info` -> the slug and options of an app in `apps` (an unknown slug:
  HTTP 400, "does not exist"); with `hassio_api` False, HTTP 403 as the Supervisor answers
  an app whose config lacks `hassio_api: true`.

Used by the app's tests, the start-up test and the demo.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import secrets
from typing import Any
import uuid

from aiohttp import web

from devkit.mosquitto import free_port


@dataclass(frozen=True)
class MqttServiceData:
    """What the Mosquitto app registers with the Supervisor."""

    host: str
    port: int
    username: str = "addons"
    password: str = field(default_factory=lambda: secrets.token_hex(32), repr=False)
    ssl: bool = False
    protocol: str = "3.1.1"
    provider: str = "core_mosquitto"
    """The app that registered the service."""


@dataclass
class SupervisorStandIn:
    """Plays the Supervisor's `/services/mqtt` and `/discovery` endpoints."""

    token: str = field(default_factory=lambda: secrets.token_hex(56), repr=False)
    mqtt: MqttServiceData | None = None
    discovery_services: tuple[str, ...] = ("botpsy",)
    """The `discovery:` list of the app's config.yaml."""
    port: int = field(default_factory=free_port)
    apps: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The options of installed apps, by slug (`GET /addons/<slug>/info`)."""
    hassio_api: bool = True
    """Whether the app's config has `hassio_api: true` (else other apps' info is refused)."""
    discoveries: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    """`METHOD /path` of every request, authorised or not."""
    _runner: web.AppRunner | None = field(default=None, init=False, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/services/mqtt", self._mqtt_service)
        app.router.add_post("/discovery", self._discovery)
        app.router.add_get("/addons/{slug}/info", self._app_info)
        runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", self.port, reuse_address=True).start()
        self._runner = runner

    async def stop(self) -> None:
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    def _refusal(self, request: web.Request) -> web.Response | None:
        """Record the request; an error answer when its token is not the app's."""
        self.requests.append(f"{request.method} {request.path}")
        if request.headers.get("Authorization") != f"Bearer {self.token}":
            return _error("Unauthorized", status=401)
        return None

    async def _mqtt_service(self, request: web.Request) -> web.Response:
        if refusal := self._refusal(request):
            return refusal
        if self.mqtt is None:
            return _error("Service not enabled", status=400)
        return _ok(
            {
                "app": self.mqtt.provider,
                "host": self.mqtt.host,
                "port": self.mqtt.port,
                "ssl": self.mqtt.ssl,
                "username": self.mqtt.username,
                "password": self.mqtt.password,
                "protocol": self.mqtt.protocol,
            }
        )

    async def _discovery(self, request: web.Request) -> web.Response:
        if refusal := self._refusal(request):
            return refusal
        body = await request.json()
        if not isinstance(body, dict) or not isinstance(body.get("config"), dict):
            return _error("expected {service, config}", status=400)
        if body.get("service") not in self.discovery_services:
            return _error(
                "Apps must list services they provide via discovery in their config!",
                status=403,
            )
        self.discoveries.append(body)
        return _ok({"uuid": uuid.uuid4().hex})

    async def _app_info(self, request: web.Request) -> web.Response:
        if refusal := self._refusal(request):
            return refusal
        if not self.hassio_api:
            return web.Response(status=403, text="403: Forbidden")
        slug = request.match_info["slug"]
        if slug not in self.apps:
            return _error(f"App {slug} does not exist", status=400)
        return _ok({"slug": slug, "state": "started", "options": self.apps[slug]})


def _ok(data: dict[str, Any]) -> web.Response:
    return web.json_response({"result": "ok", "data": data})


def _error(message: str, *, status: int) -> web.Response:
    return web.json_response({"result": "error", "message": message}, status=status)

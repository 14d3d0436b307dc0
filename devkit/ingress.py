"""A stand-in for Home Assistant's ingress, on a loopback port: HA's proxy and the
Supervisor's in one, in front of the app's admin page.

What it does is what the two do for a browser (HA's `hassio/ingress.py`, the Supervisor's
`api/ingress.py`): a signed-in person has an ingress session (here a cookie set by
`/login/<user id>`, standing in for HA's login and its `ingress/session` call); a request to
`/api/hassio_ingress/<token>/<path>` without a session is refused (401); with one, it is
forwarded to the app's ingress port with the browser's headers less any `X-Remote-User-*`
it sent, plus `X-Ingress-Path`, `X-Forwarded-Host`/`-Proto` and the session's user as
`X-Remote-User-Id`, `-Name` and `-Display-Name`. The answer comes back as it is (redirects
not followed). The app sees the request coming from this proxy's address, as it sees the
Supervisor's (172.30.32.2) in a real install.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web
from multidict import CIMultiDict

from devkit.mosquitto import free_port

TOKEN = "t0k3n-ingress-standin"  # noqa: S105  the ingress path's token, not a password
SESSION_COOKIE = "ingress_session"
DROPPED = frozenset(
    {
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "cookie",
        "x-remote-user-id",
        "x-remote-user-name",
        "x-remote-user-display-name",
    }
)
"""Request headers not passed on: the connection's own, HA's cookies, and the identity
headers only the Supervisor may set."""


@dataclass(frozen=True)
class IngressUser:
    user_id: str
    username: str
    display_name: str


@dataclass
class IngressStandIn:
    """Forwards `/api/hassio_ingress/<TOKEN>/…` to `http://127.0.0.1:<app_port>/…`."""

    app_port: Callable[[], int]
    """The app's ingress port (asked at each request: the app may bind it later)."""
    users: Callable[[str], Awaitable[IngressUser | None]]
    """HA's user of an id, as the Supervisor looks it up when a session is made."""
    host: str = "127.0.0.1"
    port: int = field(default_factory=free_port)
    _runner: web.AppRunner | None = None
    _session: aiohttp.ClientSession | None = None

    @property
    def ingress_path(self) -> str:
        return f"/api/hassio_ingress/{TOKEN}"

    def url(self, path: str = "/") -> str:
        return f"http://{self.host}:{self.port}{path}"

    def login_url(self, user_id: str) -> str:
        """Signs the browser in as `user_id` and opens the page."""
        return self.url(f"/login/{user_id}")

    async def start(self) -> None:
        app = web.Application()
        app.add_routes(
            [
                web.get("/login/{user_id}", self._login),
                web.route("*", "/api/hassio_ingress/{token}/{path:.*}", self._forward),
            ]
        )
        self._session = aiohttp.ClientSession(auto_decompress=False)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, self.host, self.port).start()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def _login(self, request: web.Request) -> web.StreamResponse:
        response = web.Response(status=302, headers={"Location": f"{self.ingress_path}/"})
        response.set_cookie(SESSION_COOKIE, request.match_info["user_id"], httponly=True)
        return response

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        user = await self.users(request.cookies.get(SESSION_COOKIE, ""))
        if request.match_info["token"] != TOKEN or user is None:
            return web.Response(status=401, text="401: Unauthorized")
        headers = CIMultiDict(
            (name, value) for name, value in request.headers.items() if name.lower() not in DROPPED
        )
        headers["X-Ingress-Path"] = self.ingress_path
        headers["X-Forwarded-Host"] = request.host
        headers["X-Forwarded-Proto"] = request.scheme
        headers["X-Remote-User-Id"] = user.user_id
        headers["X-Remote-User-Name"] = user.username
        headers["X-Remote-User-Display-Name"] = user.display_name
        assert self._session is not None
        target = f"http://127.0.0.1:{self.app_port()}/{request.match_info['path']}"
        async with self._session.request(
            request.method,
            target,
            params=request.query,
            headers=headers,
            data=await request.read(),
            allow_redirects=False,
        ) as answer:
            body = await answer.read()
            passed = CIMultiDict(
                (name, value)
                for name, value in answer.headers.items()
                if name.lower() not in {"content-length", "transfer-encoding", "connection"}
            )
            return web.Response(status=answer.status, body=body, headers=passed)

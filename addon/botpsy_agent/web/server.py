"""The admin page's HTTP server: aiohttp on the app's ingress port, for HA admins only.

Every request passes three gates (`access.py` says why each exists): the peer is the
Supervisor's ingress proxy, the request names an ingress user, and HA says that user is an
active admin. Refusals are plain pages that show nothing of the app, and security events in
the log. Pages are HTML rendered by Jinja2 with autoescaping (every value escaped) and one
stylesheet; the headers forbid scripts, framing by other sites and caching. Views are GET;
the two pairing actions are POST, accepted only from this page (same origin and the form's
token), and answered with a redirect to the pairing view.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
import logging
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlencode

from aiohttp import web
import jinja2

from botpsy_agent.ha import HaUser
from botpsy_agent.web import views
from botpsy_agent.web.access import (
    SUPERVISOR_INGRESS_PEER,
    FormTokens,
    admin_of,
    base_path,
    same_origin,
    visitor,
)
from botpsy_agent.web.sources import PageSources

_LOGGER = logging.getLogger(__name__)
_SECURITY = logging.getLogger("botpsy_agent.security")
HERE = Path(__file__).parent
INGRESS_PORT: Final = 8099
"""The Supervisor's default ingress port (config.yaml leaves `ingress_port` unset)."""
HEADERS: Final = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'self'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "SAMEORIGIN",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
NAV: Final = (
    ("", "Status"),
    ("pairing", "Pairing"),
    ("audit", "Audit log"),
    ("permissions", "Permissions"),
)
ADMIN_KEY: web.RequestKey[HaUser] = web.RequestKey("admin", HaUser)


@dataclass(frozen=True)
class IngressSettings:
    """Where the page listens and whom it accepts connections from."""

    port: int = INGRESS_PORT
    host: str = "0.0.0.0"  # noqa: S104  the container's one network; the peer is checked
    peers: frozenset[str] = field(default_factory=lambda: frozenset({SUPERVISOR_INGRESS_PEER}))
    """Addresses requests may come from: the Supervisor's ingress proxy (tests: loopback)."""


type Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class AdminPage:
    """The aiohttp application of the page, and its views."""

    def __init__(self, settings: IngressSettings, sources: PageSources) -> None:
        self.settings = settings
        self.sources = sources
        self.tokens = FormTokens()
        self.templates = jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
        )
        self.app = web.Application(middlewares=[self._headers, self._gates])
        self.app.add_routes(
            [
                web.get("/", self.status),
                web.get("/doctor", self.doctor),
                web.get("/pairing", self.pairing),
                web.post("/pairing/close", self.close_window),
                web.post("/pairing/revoke", self.revoke),
                web.get("/audit", self.audit),
                web.get("/permissions", self.permissions),
                web.get("/static/page.css", self.stylesheet),
            ]
        )

    # --- the gates ----------------------------------------------------------------------

    @web.middleware
    async def _headers(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            response = await handler(request)
        except web.HTTPException as err:  # the router's 404 and 405
            err.headers.update(HEADERS)
            raise
        response.headers.update(HEADERS)
        return response

    @web.middleware
    async def _gates(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.remote not in self.settings.peers:
            _SECURITY.warning(
                "Security event: the admin page refused a connection from %s (not the "
                "Supervisor's ingress)",
                request.remote,
            )
            return _plain(403, "Forbidden")
        if request.path == "/static/page.css":
            return await handler(request)
        who = visitor(request.headers)
        if who is None:
            return self._refusal(
                request,
                401,
                "Open BotPsy from Home Assistant",
                "This page is BotPsy's admin page inside Home Assistant: open it from the "
                "sidebar, or from the app's page (Open web UI).",
            )
        admin = admin_of(self.sources.users(), who.user_id)
        if admin is None:
            _SECURITY.warning(
                "Security event: the admin page refused %s (not an active Home Assistant admin)",
                who.user_id,
            )
            return self._refusal(
                request,
                403,
                "Only administrators",
                f"{who.name}, BotPsy's page shows the audit log, the permissions and the "
                "pairing of Home Assistant with the app: only Home Assistant administrators "
                "may open it.",
            )
        request[ADMIN_KEY] = admin
        return await handler(request)

    def _refusal(self, request: web.Request, status: int, title: str, text: str) -> web.Response:
        body = self.templates.get_template("refused.html").render(
            base=base_path(request.headers), title=title, text=text
        )
        return web.Response(status=status, text=body, content_type="text/html")

    # --- rendering ------------------------------------------------------------------------

    def _render(self, request: web.Request, template: str, **values: Any) -> web.Response:
        admin = request[ADMIN_KEY]
        body = self.templates.get_template(template).render(
            base=base_path(request.headers),
            nav=NAV,
            here=template.removesuffix(".html"),
            admin=admin.name,
            instance=self.sources.instance,
            version=self.sources.version,
            token=self.tokens.token(admin.user_id),
            **values,
        )
        return web.Response(text=body, content_type="text/html")

    # --- views ----------------------------------------------------------------------------

    async def status(self, request: web.Request) -> web.Response:
        return self._render(request, "status.html", view=views.status_view(self.sources))

    async def doctor(self, request: web.Request) -> web.Response:
        return self._render(request, "doctor.html", view=await views.doctor_view(self.sources))

    async def pairing(self, request: web.Request) -> web.Response:
        notice = request.query.get("done", "")[:200]
        view = views.pairing_view(self.sources)
        return self._render(request, "pairing.html", view=view, notice=notice)

    async def audit(self, request: web.Request) -> web.Response:
        query = views.AuditQuery.of(request.query)
        return self._render(request, "audit.html", view=await views.audit_view(self.sources, query))

    async def permissions(self, request: web.Request) -> web.Response:
        query = views.MatrixQuery.of(request.query)
        return self._render(
            request, "permissions.html", view=views.matrix_view(self.sources, query)
        )

    async def stylesheet(self, request: web.Request) -> web.Response:
        return web.Response(
            text=(HERE / "static" / "page.css").read_text(), content_type="text/css"
        )

    # --- actions (POST) -----------------------------------------------------------------------

    async def close_window(self, request: web.Request) -> web.StreamResponse:
        form = await self._checked_form(request)
        if isinstance(form, web.Response):
            return form
        channel = self.sources.channel()
        done = "Pairing is not available yet." if channel is None else views.close_window(channel)
        return self._after(request, done)

    async def revoke(self, request: web.Request) -> web.StreamResponse:
        form = await self._checked_form(request)
        if isinstance(form, web.Response):
            return form
        channel = self.sources.channel()
        secret_id = str(form.get("id", ""))[:64]
        done = (
            "Pairing is not available yet." if channel is None else views.revoke(channel, secret_id)
        )
        _LOGGER.info("Admin page: %s (by %s)", done, request[ADMIN_KEY].user_id)
        return self._after(request, done)

    async def _checked_form(self, request: web.Request) -> dict[str, Any] | web.Response:
        """The POSTed form, or the refusal: from another site, or without the form's token."""
        admin = request[ADMIN_KEY]
        if not same_origin(request.headers, request.scheme, request.host):
            _SECURITY.warning("Security event: a POST to the admin page from another origin")
            return _plain(403, "Forbidden: not from this page")
        form = dict(await request.post())
        if not self.tokens.valid(admin.user_id, form.get("token")):
            _SECURITY.warning("Security event: a POST to the admin page without its form token")
            return _plain(403, "Forbidden: the form is stale; open the page again")
        return form

    def _after(self, request: web.Request, done: str) -> web.Response:
        """Back to the pairing view (Post/Redirect/Get), saying what was done."""
        location = f"{base_path(request.headers)}/pairing?{urlencode({'done': done})}"
        return web.Response(status=303, headers={"Location": location})


def _plain(status: int, text: str) -> web.Response:
    return web.Response(status=status, text=text)


class IngressServer:
    """Runs the admin page on the ingress port while the app runs."""

    def __init__(self, settings: IngressSettings, sources: PageSources) -> None:
        self.page = AdminPage(settings, sources)
        self.settings = settings
        self._runner: web.AppRunner | None = None
        self.port: int | None = None
        """The port bound (the settings' one, or the one chosen for port 0)."""

    async def start(self) -> None:
        runner = web.AppRunner(self.page.app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.settings.host, self.settings.port)
        await site.start()
        self._runner = runner
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else self.settings.port
        _LOGGER.info("The admin page listens on port %d (Home Assistant's ingress)", self.port)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

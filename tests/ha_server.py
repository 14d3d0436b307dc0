"""Serve a test `hass` instance's HTTP and WebSocket API on a real loopback port.

The app's own HA client connects to it exactly as it would to a real Home Assistant:
`ws://127.0.0.1:<port>/api/websocket` with a real access token. `stop()` drops every open
connection (as a crashed HA would) and `start()` listens again on the same port.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aiohttp import web
from homeassistant.core import HomeAssistant

from devkit.mosquitto import free_port


@dataclass
class HomeAssistantApiServer:
    """HA's aiohttp application behind a TCP site we control."""

    hass: HomeAssistant
    token: str
    port: int = field(default_factory=free_port)
    _runner: web.AppRunner | None = field(default=None, init=False, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def websocket_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/api/websocket"

    async def start(self) -> None:
        if self._runner is not None:
            return
        # HA registers views after start-up too; a frozen router would refuse them.
        self.hass.http.app._router.freeze = lambda: None  # type: ignore[method-assign]
        # Open WebSocket connections are running handlers: cut them after 0.1 s rather than
        # wait aiohttp's default 60 s for them to end, as a crashed HA would.
        runner = web.AppRunner(self.hass.http.app, handle_signals=False, shutdown_timeout=0.1)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", self.port, reuse_address=True).start()
        self._runner = runner

    async def stop(self) -> None:
        """Stop listening and drop every open connection."""
        if self._runner is None:
            return
        runner, self._runner = self._runner, None
        await runner.shutdown()
        await runner.cleanup()

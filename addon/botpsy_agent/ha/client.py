"""One WebSocket connection to Home Assistant, kept alive for the life of the app.

Used by the entity index, the executor and the app's start-up::

    endpoint = HaEndpoint.from_environment(os.environ)  # SUPERVISOR_TOKEN inside the app
    client = HaClient(endpoint)
    await client.start()                        # returns at once; connects in the background
    await client.wait_connected(timeout_s=30)   # raises HaAuthFailed / TimeoutError
    states = await client.call({"type": "get_states"}, timeout_s=5)
    sub = await client.subscribe_events("state_changed", on_event)  # survives reconnects
    await sub.unsubscribe()
    client.state                                # ConnectionState
    remove = client.add_state_listener(on_state)
    await client.stop()

`call` raises `HaCallError` with HA's own code and message when HA refuses, `HaNotConnected`
when nothing was sent, and `HaConnectionLost` / `HaTimeout` (``outcome_unknown``) when the call
was sent but no answer came.

Reconnects use jittered exponential backoff; subscriptions are re-made before the state turns
`CONNECTED` again, so a listener that reloads on `CONNECTED` misses no event. HA's WebSocket
pings are answered by aiohttp, and the client sends HA's own `ping` command every
`heartbeat_s` to notice a connection that died silently.

A rejected token ends in `AUTH_FAILED` and the client stops trying: a token does not become
valid by itself, so retrying would only flood HA's log with failed logins (docs/decisions.md, D10).
The token is never logged.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from enum import StrEnum
import json
import logging
import random
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from botpsy_agent.ha.errors import (
    HaAuthFailed,
    HaCallError,
    HaConnectionLost,
    HaError,
    HaNotConnected,
    HaTimeout,
)

_LOGGER = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""`get_states` of a large home is several MiB; aiohttp's default limit is 4 MiB."""

type EventCallback = Callable[[Mapping[str, Any]], None]
type StateListener = Callable[[ConnectionState], None]


class ConnectionState(StrEnum):
    CONNECTING = "connecting"
    """Started, never connected yet."""
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"
    """Was connected; the connection dropped and the client is trying again."""
    AUTH_FAILED = "auth_failed"
    """HA rejected the token; the client has stopped trying."""
    STOPPED = "stopped"


@dataclass(frozen=True)
class HaEndpoint:
    """Where HA's APIs are and the token for them."""

    websocket_url: str
    rest_url: str
    """Base of the REST API, e.g. `http://supervisor/core/api` (for homeassistant-api)."""
    token: str = field(repr=False)

    @classmethod
    def supervisor(cls, token: str) -> HaEndpoint:
        """Inside the app: HA through the Supervisor's proxy, with `SUPERVISOR_TOKEN`."""
        return cls("ws://supervisor/core/websocket", "http://supervisor/core/api", token)

    @classmethod
    def from_base_url(cls, base_url: str, token: str) -> HaEndpoint:
        """Outside the app: HA's address (e.g. `http://homeassistant.local:8123`) and a
        long-lived access token."""
        parts = urlsplit(base_url.rstrip("/"))
        if parts.scheme not in {"http", "https"} or not parts.netloc:
            raise ValueError(f"not an http(s) URL of Home Assistant: {base_url!r}")
        ws_scheme = "wss" if parts.scheme == "https" else "ws"
        base = f"{parts.netloc}{parts.path}"
        return cls(f"{ws_scheme}://{base}/api/websocket", f"{parts.scheme}://{base}/api", token)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> HaEndpoint:
        """`BOTPSY_HA_URL` + `BOTPSY_HA_TOKEN` when set (development, the demo, tests), else
        HA through the Supervisor with `SUPERVISOR_TOKEN` (the app)."""
        url, token = environ.get("BOTPSY_HA_URL"), environ.get("BOTPSY_HA_TOKEN")
        if url and token:
            return cls.from_base_url(url, token)
        if token := environ.get("SUPERVISOR_TOKEN"):
            return cls.supervisor(token)
        raise ValueError(
            "no Home Assistant to connect to: SUPERVISOR_TOKEN is not set (not running as an "
            "app), so set BOTPSY_HA_URL and BOTPSY_HA_TOKEN (a long-lived access token)"
        )


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff with jitter: the n-th retry waits between half and all of
    `min(maximum_s, initial_s * factor**(n-1))`, so many clients do not retry in step."""

    initial_s: float = 0.5
    maximum_s: float = 60.0
    factor: float = 2.0

    def delay(self, failures: int, rng: random.Random) -> float:
        ceiling = min(self.maximum_s, self.initial_s * self.factor ** max(failures - 1, 0))
        return rng.uniform(ceiling / 2, ceiling)


class Subscription:
    """An event subscription that the client re-makes after every reconnect."""

    def __init__(self, client: HaClient, event_type: str | None, callback: EventCallback) -> None:
        self._client = client
        self.event_type = event_type
        self.callback = callback
        self.ha_id: int | None = None
        """HA's id for it on the current connection; None while not subscribed."""

    async def unsubscribe(self) -> None:
        await self._client._unsubscribe(self)


class _ProtocolError(HaError):
    def __init__(self, message: str) -> None:
        super().__init__("protocol_error", message)


class HaClient:
    """HA's WebSocket API: authenticated, correlated calls, lasting subscriptions, reconnects."""

    def __init__(
        self,
        endpoint: HaEndpoint,
        *,
        call_timeout_s: float = 10.0,
        connect_timeout_s: float = 10.0,
        heartbeat_s: float = 30.0,
        backoff: Backoff | None = None,
        session: aiohttp.ClientSession | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.call_timeout_s = call_timeout_s
        self._connect_timeout_s = connect_timeout_s
        self._heartbeat_s = heartbeat_s
        self._backoff = backoff or Backoff()
        self._session = session
        self._owns_session = session is None
        self._rng = rng or random.Random()  # noqa: S311 - jitter, not secrets
        self._state = ConnectionState.STOPPED
        self._listeners: list[StateListener] = []
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._connected = asyncio.Event()
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._subscriptions: list[Subscription] = []
        self._by_ha_id: dict[int, Subscription] = {}
        self._subscribe_lock = asyncio.Lock()
        self._last_id = 0
        self._runner: asyncio.Task[None] | None = None
        self.attempts = 0
        """Connection attempts since `start()` (for diagnostics and tests)."""
        self.ha_version: str | None = None
        self.last_error: HaError | None = None
        """Why the last connection attempt failed or the last connection ended."""

    # --- state ------------------------------------------------------------------------------

    @property
    def state(self) -> ConnectionState:
        return self._state

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def add_state_listener(self, listener: StateListener) -> Callable[[], None]:
        """Call `listener(state)` on every change of state; returns a function to remove it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _set_state(self, state: ConnectionState) -> None:
        if state is self._state:
            return
        self._state = state
        for listener in list(self._listeners):
            try:
                listener(state)
            except Exception:
                _LOGGER.exception("A connection state listener failed")

    async def wait_connected(self, timeout_s: float) -> None:
        """Return once connected; raise `HaAuthFailed` if the token is rejected, `TimeoutError`
        after `timeout_s` seconds, `HaNotConnected` if the client is stopped."""
        async with asyncio.timeout(timeout_s):
            while not self._connected.is_set():
                if self._state is ConnectionState.AUTH_FAILED:
                    raise self.last_error or HaAuthFailed("access token rejected")
                if self._state is ConnectionState.STOPPED:
                    raise HaNotConnected("the client is stopped")
                changed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

                def wake(_state: ConnectionState, changed: asyncio.Future[None] = changed) -> None:
                    if not changed.done():
                        changed.set_result(None)

                remove = self.add_state_listener(wake)
                try:
                    await changed
                finally:
                    remove()

    # --- life cycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Start connecting in the background (again, after `AUTH_FAILED` or `stop()`)."""
        if self._runner is not None and not self._runner.done():
            return
        if self._session is None:
            self._session = aiohttp.ClientSession()
        self.attempts = 0
        self._set_state(ConnectionState.CONNECTING)
        self._runner = asyncio.create_task(self._run(), name="botpsy-ha-client")

    async def stop(self) -> None:
        """Close the connection; calls in flight fail with `HaConnectionLost`."""
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.cancel()
            with suppress(asyncio.CancelledError):
                await runner
        if self._owns_session and self._session is not None:
            await self._session.close()
            self._session = None
        self._set_state(ConnectionState.STOPPED)

    async def _run(self) -> None:
        failures = 0
        while True:
            self.attempts += 1
            try:
                ws = await self._open()
            except HaAuthFailed as err:
                self._give_up(err)
                return
            except (aiohttp.ClientError, OSError, TimeoutError, HaError) as err:
                self.last_error = _as_ha_error(err)
                failures += 1
                delay = self._backoff.delay(failures, self._rng)
                _LOGGER.warning(
                    "Cannot connect to Home Assistant at %s (%s); retrying in %.1f s",
                    self.endpoint.websocket_url,
                    self.last_error.message,
                    delay,
                )
                await asyncio.sleep(delay)
                continue
            failures = 0
            await self._serve(ws)
            self._set_state(ConnectionState.RECONNECTING)
            # A connection that drops at once must not turn into a tight reconnect loop.
            await asyncio.sleep(self._backoff.delay(1, self._rng))

    def _give_up(self, err: HaAuthFailed) -> None:
        self.last_error = err
        _LOGGER.error(
            "Home Assistant at %s rejected the access token (%s); not retrying until the "
            "app is restarted with a valid token",
            self.endpoint.websocket_url,
            err.message,
        )
        self._set_state(ConnectionState.AUTH_FAILED)

    async def _open(self) -> aiohttp.ClientWebSocketResponse:
        """Connect and authenticate."""
        assert self._session is not None
        async with asyncio.timeout(self._connect_timeout_s):
            ws = await self._session.ws_connect(
                self.endpoint.websocket_url,
                autoping=True,
                max_msg_size=MAX_MESSAGE_BYTES,
            )
            try:
                await self._authenticate(ws)
            except BaseException:
                await ws.close()
                raise
        return ws

    async def _authenticate(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        hello = await ws.receive_json()
        if hello.get("type") != "auth_required":
            raise _ProtocolError(f"expected auth_required, got {hello.get('type')!r}")
        await ws.send_json({"type": "auth", "access_token": self.endpoint.token})
        answer = await ws.receive_json()
        if answer.get("type") == "auth_invalid":
            raise HaAuthFailed(str(answer.get("message") or "invalid access token"))
        if answer.get("type") != "auth_ok":
            raise _ProtocolError(f"expected auth_ok, got {answer.get('type')!r}")
        self.ha_version = answer.get("ha_version")

    async def _serve(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        """Run one authenticated connection until it ends."""
        self._ws = ws
        reader = asyncio.create_task(self._read(ws), name="botpsy-ha-reader")
        heartbeat: asyncio.Task[None] | None = None
        try:
            await self._resubscribe()
            self._connected.set()
            _LOGGER.info(
                "Connected to Home Assistant %s at %s",
                self.ha_version or "",
                self.endpoint.websocket_url,
            )
            self._set_state(ConnectionState.CONNECTED)
            heartbeat = asyncio.create_task(self._heartbeat(ws), name="botpsy-ha-heartbeat")
            await reader
            self.last_error = HaConnectionLost()
            _LOGGER.warning("The connection to Home Assistant dropped; reconnecting")
        except HaError as err:
            self.last_error = err
            _LOGGER.warning(
                "Could not subscribe to Home Assistant's events (%s); reconnecting", err.message
            )
        finally:
            self._ws = None
            self._connected.clear()
            for task in (reader, heartbeat):
                if task is not None:
                    task.cancel()
                    with suppress(asyncio.CancelledError):
                        await task
            await ws.close()
            self._by_ha_id.clear()
            for subscription in self._subscriptions:
                subscription.ha_id = None

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        try:
            async for message in ws:
                if message.type is not aiohttp.WSMsgType.TEXT:
                    continue
                try:
                    payload = json.loads(message.data)
                except ValueError:
                    _LOGGER.warning("Ignoring a message from Home Assistant that is not JSON")
                    continue
                for item in payload if isinstance(payload, list) else [payload]:
                    if isinstance(item, dict):
                        self._dispatch(item)
        finally:
            # Calls waiting for an answer learn at once that none will come.
            self._connected.clear()
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(HaConnectionLost())

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind, message_id = message.get("type"), message.get("id")
        if kind == "event":
            subscription = self._by_ha_id.get(message_id) if isinstance(message_id, int) else None
            if subscription is not None:
                try:
                    subscription.callback(message.get("event") or {})
                except Exception:
                    _LOGGER.exception("An event handler for %s failed", subscription.event_type)
            return
        if kind not in {"result", "pong"} or not isinstance(message_id, int):
            return
        future = self._pending.get(message_id)
        if future is None or future.done():
            return
        if kind == "pong" or message.get("success"):
            future.set_result(message.get("result"))
        else:
            error = message.get("error") or {}
            future.set_exception(
                HaCallError(str(error.get("code", "unknown_error")), str(error.get("message", "")))
            )

    async def _heartbeat(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        while True:
            await asyncio.sleep(self._heartbeat_s)
            try:
                await self._request({"type": "ping"}, self._heartbeat_s)
            except HaTimeout:
                _LOGGER.warning(
                    "Home Assistant did not answer a ping within %.0f s; reconnecting",
                    self._heartbeat_s,
                )
                await ws.close()
                return
            except HaError:
                return

    # --- calls --------------------------------------------------------------------------------

    async def call(self, message: Mapping[str, Any], timeout_s: float | None = None) -> Any:
        """Send one command (`{"type": ...}` without `id`) and return HA's `result`."""
        if not self._connected.is_set():
            raise HaNotConnected()
        return await self._request(message, self.call_timeout_s if timeout_s is None else timeout_s)

    async def ping(self, timeout_s: float | None = None) -> float:
        """HA's `ping` command; returns the round trip in seconds."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        await self.call({"type": "ping"}, timeout_s)
        return loop.time() - started

    async def first_event(
        self, message: Mapping[str, Any], timeout_s: float | None = None
    ) -> Mapping[str, Any]:
        """Send a subscribe-style command, return the first event it pushes, unsubscribe.
        For data HA only pushes, such as `calendar/event/subscribe` (events with uids)."""
        if not self._connected.is_set():
            raise HaNotConnected()
        timeout_s = self.call_timeout_s if timeout_s is None else timeout_s
        first: asyncio.Future[Mapping[str, Any]] = asyncio.get_running_loop().create_future()

        def take(event: Mapping[str, Any]) -> None:
            if not first.done():
                first.set_result(event)

        subscription = Subscription(self, str(message.get("type")), take)
        message_id = self._new_id()
        self._by_ha_id[message_id] = subscription
        try:
            await self._request(message, timeout_s, message_id)
            try:
                async with asyncio.timeout(timeout_s):
                    return await first
            except TimeoutError:
                raise HaTimeout(timeout_s) from None
        finally:
            self._by_ha_id.pop(message_id, None)
            if self._connected.is_set():
                with suppress(HaError):
                    await self._request(
                        {"type": "unsubscribe_events", "subscription": message_id}, timeout_s
                    )

    def _new_id(self) -> int:
        self._last_id += 1  # HA requires increasing ids; one counter serves every connection
        return self._last_id

    async def _request(
        self, message: Mapping[str, Any], timeout_s: float, message_id: int | None = None
    ) -> Any:
        ws = self._ws
        if ws is None or ws.closed:
            raise HaNotConnected()
        message_id = message_id if message_id is not None else self._new_id()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[message_id] = future
        try:
            try:
                await ws.send_json({**message, "id": message_id})
            except (ConnectionError, RuntimeError) as err:
                raise HaNotConnected(f"not sent: {err}") from None
            async with asyncio.timeout(timeout_s):
                return await future
        except TimeoutError:
            raise HaTimeout(timeout_s) from None
        finally:
            self._pending.pop(message_id, None)

    # --- subscriptions ------------------------------------------------------------------------

    async def subscribe_events(
        self, event_type: str | None, callback: EventCallback
    ) -> Subscription:
        """Deliver HA events of `event_type` (None: all) to `callback(event)`, now if connected
        and again after every reconnect. The callback runs in the reader: keep it short."""
        subscription = Subscription(self, event_type, callback)
        async with self._subscribe_lock:
            self._subscriptions.append(subscription)
            if self._connected.is_set():
                try:
                    await self._activate(subscription)
                except HaError:
                    self._subscriptions.remove(subscription)
                    raise
        return subscription

    async def _activate(self, subscription: Subscription) -> None:
        message_id = self._new_id()
        self._by_ha_id[message_id] = subscription
        subscription.ha_id = message_id
        message: dict[str, Any] = {"type": "subscribe_events"}
        if subscription.event_type is not None:
            message["event_type"] = subscription.event_type
        try:
            await self._request(message, self.call_timeout_s, message_id)
        except HaError:
            self._by_ha_id.pop(message_id, None)
            subscription.ha_id = None
            raise

    async def _resubscribe(self) -> None:
        async with self._subscribe_lock:
            for subscription in list(self._subscriptions):
                try:
                    await self._activate(subscription)
                except HaCallError as err:
                    # HA refuses some events to non-admin tokens: go on without them rather
                    # than reconnect for ever.
                    self._subscriptions.remove(subscription)
                    _LOGGER.warning(
                        "Home Assistant refused the subscription to %s (%s); going on without it",
                        subscription.event_type,
                        err.message,
                    )

    async def _unsubscribe(self, subscription: Subscription) -> None:
        async with self._subscribe_lock:
            if subscription in self._subscriptions:
                self._subscriptions.remove(subscription)
            ha_id, subscription.ha_id = subscription.ha_id, None
            if ha_id is None:
                return
            self._by_ha_id.pop(ha_id, None)
            if self._connected.is_set():
                with suppress(HaNotConnected, HaConnectionLost):
                    await self._request(
                        {"type": "unsubscribe_events", "subscription": ha_id},
                        self.call_timeout_s,
                    )


def _as_ha_error(err: BaseException) -> HaError:
    if isinstance(err, HaError):
        return err
    if isinstance(err, TimeoutError):
        return HaNotConnected("no answer while connecting")
    return HaNotConnected(str(err) or type(err).__name__)

"""The broker connection: paho-mqtt 2 driven by the asyncio loop itself.

paho reads and writes its socket when the loop says it can (`add_reader`/`add_writer`),
so a request is handled, and its answer written to the socket, without waiting for
another thread to wake and take the interpreter lock (issue 29: the hop to and from paho's
own thread was a third of the fast path's whole answer). Only connecting runs in a
worker thread (a DNS lookup, a TCP connect or a TLS handshake may block for seconds); the
socket callbacks it fires are handed to the loop. The loop reconnects with an exponential
backoff; every (re)connect resubscribes and, once the broker confirms the subscriptions,
tells the owner, which re-announces. QoS 1 messages published while the connection is
down are kept and sent after reconnecting.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
import contextlib
from dataclasses import dataclass, field
import logging
import socket
import ssl
import time
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from botpsy_agent.mqtt.settings import BrokerSettings, MqttVersion

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class Received:
    """One message from the broker, copied out of paho's types in paho's thread: what the
    service routes and the dispatcher answers."""

    topic: str
    payload: bytes
    retained: bool = False
    qos: int = 0
    response_topic: str | None = None
    """MQTT 5 Response Topic property."""
    correlation_data: bytes | None = None
    """MQTT 5 Correlation Data property; returned unchanged with the answer."""
    received: float = field(default_factory=time.monotonic)
    """When it arrived (monotonic): a request's timings count from here."""


@dataclass(frozen=True)
class Will:
    topic: str
    payload: str | bytes
    qos: int = 1
    retain: bool = True


def send_at_once(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    """Send small packets at once: an answer must not wait for the acknowledgement of the
    PUBACK before it (Nagle's algorithm against delayed ACKs costs ~40 ms a hop)."""
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class MqttConnection:
    """One broker connection; the owner supplies what to subscribe and what to do on events.

    All owner callbacks run in the asyncio loop that called `start()`.
    """

    def __init__(
        self,
        settings: BrokerSettings,
        client_id: str,
        *,
        will: Will | Callable[[], Will] | None,
        subscriptions: Sequence[tuple[str, int]],
        on_connect: Callable[[], None],
        on_message: Callable[[Received], None],
        on_disconnect: Callable[[], None] = lambda: None,
    ) -> None:
        self.settings = settings
        self.client_id = client_id
        self._will = will
        """A fixed will, or one made anew for every connection attempt (a signed one)."""
        self._subscriptions = list(subscriptions)
        self._on_connect = on_connect
        self._on_message = on_message
        self._on_disconnect = on_disconnect
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: mqtt.Client | None = None
        self._acks: dict[int, asyncio.Future[None]] = {}
        self._subscribe_mid: int | None = None
        self.connected = False
        self._failures = 0  # connection attempts failed since the last success
        self._tasks: list[asyncio.Task[None]] = []
        self._lost = asyncio.Event()
        """Set when the connection ends (or a connect is refused): time to reconnect."""
        self._connecting = False
        """A connect is under way in a worker thread, which has the client meanwhile."""
        self._fd: int | None = None
        """The socket the loop watches for paho."""
        self._arrived: list[Received] | None = None
        """Messages paho read in the loop's reader callback, handed on when its read is over;
        None outside that callback."""
        self.connections = 0
        """Successful connects so far (1 + reconnects)."""

    @property
    def v5(self) -> bool:
        return self.settings.version is MqttVersion.V5

    async def start(self) -> None:
        """Begin connecting (in the background: a broker that is down is retried)."""
        self._loop = asyncio.get_running_loop()
        # Building the client reads certificate files: not on the loop.
        client = await asyncio.to_thread(self._build_client)
        self._client = client
        client.connect_async(
            self.settings.host, self.settings.port, keepalive=self.settings.keepalive_s
        )
        self._tasks = [
            asyncio.create_task(self._stay_connected(client), name=f"mqtt {self.client_id}"),
            asyncio.create_task(self._keep_alive(client), name=f"mqtt ping {self.client_id}"),
        ]
        _LOGGER.info(
            "Connecting to MQTT broker %s:%d as %s (MQTT %s%s)",
            self.settings.host,
            self.settings.port,
            self.client_id,
            self.settings.version.value,
            ", TLS" if self.settings.tls else "",
        )

    def publish(
        self,
        topic: str,
        payload: str | bytes,
        *,
        qos: int = 1,
        retain: bool = False,
        correlation_data: bytes | None = None,
    ) -> mqtt.MQTTMessageInfo:
        """Queue a message; with QoS 1 it survives a broken connection until reconnect."""
        if self._client is None:
            raise RuntimeError("not started")
        properties = None
        if correlation_data is not None and self.v5:
            properties = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
            properties.CorrelationData = correlation_data
        info = self._client.publish(topic, payload, qos=qos, retain=retain, properties=properties)
        self._write()  # now, not on the loop's next turn
        return info

    async def publish_and_wait(
        self, topic: str, payload: str | bytes, *, retain: bool = False
    ) -> None:
        """Publish with QoS 1 and wait for the broker's acknowledgement."""
        info = self.publish(topic, payload, qos=1, retain=retain)
        acked = asyncio.get_running_loop().create_future()
        self._acks[info.mid] = acked
        try:
            await acked
        finally:
            self._acks.pop(info.mid, None)

    async def stop(self) -> None:
        """Disconnect cleanly (no last will) and stop reconnecting."""
        client, self._client = self._client, None
        if client is None:
            return
        client.disconnect()  # queues DISCONNECT; paho closes the socket once it is sent
        self._write(client)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        self._forget_socket()
        if (sock := client.socket()) is not None:  # DISCONNECT could not be sent whole
            sock.close()
        self.connected = False
        for acked in self._acks.values():
            acked.cancel()
        self._acks.clear()

    # --- the socket, in the loop ------------------------------------------------------

    async def _stay_connected(self, client: mqtt.Client) -> None:
        """Connect, and after every loss or failed attempt wait and connect again, the
        wait doubling from `reconnect_min_s` up to `reconnect_max_s` until a connection
        is confirmed (what paho's own thread did)."""
        settings = self.settings
        first = True
        while self._client is client:
            if not first:
                await asyncio.sleep(self._backoff_s())
            first = False
            self._lost.clear()
            self._connecting = True
            try:
                # Blocking: name lookup, TCP connect, TLS handshake; never on the loop.
                await asyncio.to_thread(client.reconnect)
            except (OSError, ssl.SSLError, ValueError) as err:
                self._connect_failed(err)
                continue
            finally:
                self._connecting = False
            if self._client is not client:  # stopped while connecting
                client.disconnect()
                self._write(client)
                return
            self._write(client)
            await self._lost.wait()
            _LOGGER.debug("MQTT connection to %s:%d ended", settings.host, settings.port)

    def _backoff_s(self) -> float:
        settings = self.settings
        delay = settings.reconnect_min_s * 2 ** min(self._failures, 16)
        return float(min(delay, settings.reconnect_max_s))

    async def _keep_alive(self, client: mqtt.Client) -> None:
        """paho's timers: pings within the keepalive, and a connection whose ping went
        unanswered is closed (then `_stay_connected` reconnects)."""
        while self._client is client:
            await asyncio.sleep(1.0)
            if not self._connecting:  # the worker thread has the client meanwhile
                client.loop_misc()
                self._write(client)

    def _write(self, client: mqtt.Client | None = None) -> None:
        """Hand paho's queued packets to the socket now; what does not fit is written when
        the socket can take it (`add_writer`)."""
        client = client or self._client
        if client is not None and not self._connecting and client.want_write():
            client.loop_write()

    def _readable(self, client: mqtt.Client, sock: Any) -> None:
        arrived: list[Received] = []
        self._arrived = arrived
        try:
            client.loop_read()
            # TLS keeps decrypted bytes the selector cannot see: read them now.
            while isinstance(sock, ssl.SSLSocket) and sock.fileno() >= 0 and sock.pending():
                if client.loop_read() != mqtt.MQTT_ERR_SUCCESS:
                    break
        finally:
            self._arrived = None
        self._write(client)  # acknowledgements (PUBACK) go out at once
        # paho's handling of the packets is over: the owner may publish now, in this same
        # turn of the loop (one turn less between the request and its answer, issue 29).
        for received in arrived:
            try:
                self._on_message(received)
            except Exception:  # one message's bug must not drop the others read with it
                _LOGGER.exception("Handling a message on %s failed", received.topic)

    def _in_loop(self, callback: Callable[..., None], *args: Any, later: bool = False) -> None:
        """Run `callback` in the loop: now when called from it (or on its next turn with
        `later`), else handed over (the socket callbacks of a connect in progress run in its
        worker thread)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        if _running_loop() is loop:
            if later:
                loop.call_soon(callback, *args)
            else:
                callback(*args)
            return
        try:
            loop.call_soon_threadsafe(callback, *args)
        except RuntimeError:  # the loop closed between the check and the call
            return

    def _paho_socket_open(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        send_at_once(client, userdata, sock)
        self._in_loop(self._watch_socket, client, sock)

    def _watch_socket(self, client: mqtt.Client, sock: Any) -> None:
        loop = self._loop
        if loop is None or sock.fileno() < 0:
            return
        if self._client is not client:  # a connect that finished after `stop()`
            sock.close()
            return
        self._forget_socket()
        self._fd = sock.fileno()
        loop.add_reader(self._fd, self._readable, client, sock)

    def _paho_socket_close(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        self._in_loop(self._forget_socket, sock.fileno())

    def _forget_socket(self, fd: int | None = None) -> None:
        loop = self._loop
        if loop is None or loop.is_closed() or self._fd is None:
            return
        if fd is not None and fd != self._fd:
            return  # an older socket's close, after the new one was watched
        loop.remove_reader(self._fd)
        loop.remove_writer(self._fd)
        self._fd = None

    def _paho_register_write(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        self._in_loop(self._watch_writable, client, sock.fileno())

    def _watch_writable(self, client: mqtt.Client, fd: int) -> None:
        if self._loop is not None and fd == self._fd:
            self._loop.add_writer(fd, client.loop_write)

    def _paho_unregister_write(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        self._in_loop(self._unwatch_writable, sock.fileno())

    def _unwatch_writable(self, fd: int) -> None:
        if self._loop is not None and fd == self._fd:
            self._loop.remove_writer(fd)

    # --- paho's client and callbacks ----------------------------------------------------

    def _build_client(self) -> mqtt.Client:
        settings = self.settings
        protocol = mqtt.MQTTv5 if self.v5 else mqtt.MQTTv311
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            protocol=protocol,
        )
        client.enable_logger(logging.getLogger(f"{__name__}.paho"))
        if settings.username is not None:
            client.username_pw_set(settings.username, settings.password)
        if settings.tls is not None:
            context = ssl.create_default_context(
                ssl.Purpose.SERVER_AUTH,
                cafile=str(settings.tls.ca_file) if settings.tls.ca_file else None,
            )
            if settings.tls.cert_file is not None:
                context.load_cert_chain(
                    str(settings.tls.cert_file),
                    str(settings.tls.key_file) if settings.tls.key_file else None,
                )
            client.tls_set_context(context)
        self._set_will(client)
        client.on_connect = self._paho_connect
        client.on_disconnect = self._paho_disconnect
        client.on_message = self._paho_message
        client.on_publish = self._paho_publish
        client.on_subscribe = self._paho_subscribe
        client.on_socket_open = self._paho_socket_open
        client.on_socket_close = self._paho_socket_close
        client.on_socket_register_write = self._paho_register_write
        client.on_socket_unregister_write = self._paho_unregister_write
        return client

    def _set_will(self, client: mqtt.Client) -> None:
        if self._will is None:  # a client whose end nobody needs to hear of
            return
        will = self._will() if callable(self._will) else self._will
        client.will_set(will.topic, will.payload, qos=will.qos, retain=will.retain)

    def _paho_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        if reason.is_failure:
            self._failures += 1
            _LOGGER.warning("MQTT broker refused the connection: %s; retrying", reason)
            return
        self._failures = 0
        # The owner hears of the connection once the broker has confirmed the subscriptions,
        # so nothing published to us after "connected" can be missed.
        _, self._subscribe_mid = client.subscribe(self._subscriptions)

    def _paho_subscribe(
        self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, properties: Any
    ) -> None:
        if mid != self._subscribe_mid:
            return
        for (topic, _), reason in zip(self._subscriptions, reasons, strict=False):
            if reason.is_failure:
                _LOGGER.warning("The broker refused our subscription to %s: %s", topic, reason)
        self._to_loop(self._connected)

    def _connect_failed(self, err: BaseException) -> None:
        # The first failure in a row is worth a warning, the retries after it are not.
        self._failures += 1
        level = logging.WARNING if self._failures == 1 else logging.DEBUG
        _LOGGER.log(
            level,
            "Cannot connect to the MQTT broker at %s:%d (down, wrong address, or TLS "
            "refused: %s); retrying with backoff",
            self.settings.host,
            self.settings.port,
            type(err).__name__,
        )

    def _paho_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        if callable(self._will):  # the next connect carries a will of its own
            self._set_will(client)
        self._in_loop(self._lost.set)
        self._to_loop(self._disconnected, str(reason))

    def _paho_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            topic = message.topic
        except UnicodeDecodeError:
            _LOGGER.warning("Ignored a message whose topic is not UTF-8")
            return
        props = message.properties
        response_topic = getattr(props, "ResponseTopic", None) if props else None
        correlation = getattr(props, "CorrelationData", None) if props else None
        received = Received(
            topic,
            bytes(message.payload),
            bool(message.retain),
            message.qos,
            response_topic,
            bytes(correlation) if correlation is not None else None,
        )
        if self._arrived is not None:  # read by the loop's own reader: handed on after it
            self._arrived.append(received)
        else:
            self._to_loop(self._on_message, received)

    def _paho_publish(
        self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, properties: Any
    ) -> None:
        self._to_loop(self._acknowledged, mid)

    def _to_loop(self, callback: Callable[..., None], *args: Any) -> None:
        """Run an owner's callback on the loop's next turn, after paho's own handling of
        the packet is over (an owner that publishes must not write inside paho's read)."""
        self._in_loop(callback, *args, later=True)

    # --- back in the asyncio loop -------------------------------------------------------

    def _connected(self) -> None:
        self.connected = True
        self.connections += 1
        _LOGGER.info(
            "Connected to MQTT broker %s:%d (%s)",
            self.settings.host,
            self.settings.port,
            "first time" if self.connections == 1 else f"reconnect {self.connections - 1}",
        )
        self._on_connect()

    def _disconnected(self, reason: str) -> None:
        was_connected, self.connected = self.connected, False
        if was_connected and self._client is not None:
            _LOGGER.warning("Lost the MQTT broker (%s); reconnecting with backoff", reason)
        self._on_disconnect()

    def _acknowledged(self, mid: int) -> None:
        acked = self._acks.get(mid)
        if acked is not None and not acked.done():
            acked.set_result(None)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None

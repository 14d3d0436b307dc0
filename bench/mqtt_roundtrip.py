"""MQTT front door overhead: request to response through a real Mosquitto on loopback, with an
agent that does nothing, so what is measured is the broker, paho and our front door.

* latency: one request at a time (p50/p95/p99 of the client's round trip, and the front
  door's own share from the response's `timings.total_ms`: from the message reaching the
  app's event loop to its answer handed to paho);
* throughput: requests per second with a window of requests outstanding.

Run twice: against a stock broker (Nagle's algorithm on: `set_tcp_nodelay false`) and
against one with `set_tcp_nodelay true`. The client, like the app, sets TCP_NODELAY itself.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
import json
from pathlib import Path
import statistics
import tempfile
import threading
import time
from typing import Any
import uuid

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from bench.stats import percentile
from botpsy_agent.agent.protocol import AgentRequest, AgentResponse, Path as AnswerPath, Status
from botpsy_agent.mqtt import ApiSettings, BrokerSettings, MqttService
from botpsy_agent.mqtt.connection import send_at_once
from devkit.mosquitto import MosquittoBroker

INSTANCE = "bench"
ROOT = f"botpsy/{INSTANCE}"
WARMUP = 30
LATENCY_REQUESTS = 300
THROUGHPUT_SECONDS = 3.0
WINDOW = 32


class NoopAgent:
    """Answers `done` at once."""

    async def handle(self, request: AgentRequest) -> AgentResponse:
        return AgentResponse(request.id, Status.DONE, speech="ok", path=AnswerPath.FAST_PATH)


class ServiceThread:
    """The MQTT service in its own thread and event loop, as the app runs it."""

    def __init__(self, broker: MosquittoBroker) -> None:
        self._broker = broker
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), name="service")

    def __enter__(self) -> ServiceThread:
        self._thread.start()
        if not self._ready.wait(15):
            raise TimeoutError("the service did not come online")
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(15)

    async def _main(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        broker = BrokerSettings(host=self._broker.host, port=self._broker.port)
        api = ApiSettings(instance=INSTANCE, queue_capacity=4 * WINDOW)
        service = MqttService(NoopAgent(), broker, api)
        await service.start()
        await service.wait_online()
        self._ready.set()
        await self._stop.wait()
        await service.stop()


@dataclass
class BenchClient:
    """Publishes requests and notes when each answer arrives (in paho's thread)."""

    broker: MosquittoBroker
    sent: dict[str, float] = field(default_factory=dict)
    round_trips_ms: dict[str, float] = field(default_factory=dict)
    door_ms: dict[str, float] = field(default_factory=dict)
    answered: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"bench-{uuid.uuid4().hex[:6]}"
        )
        self.client.on_message = self._on_message
        self.client.on_socket_open = send_at_once
        subscribed = threading.Event()
        self.client.on_subscribe = lambda *args: subscribed.set()
        self.client.connect(self.broker.host, self.broker.port)
        self.client.loop_start()
        self.client.subscribe(f"{ROOT}/response/#", qos=1)
        if not subscribed.wait(10):
            raise TimeoutError("no SUBACK")

    def send(self, request_id: str) -> None:
        payload = json.dumps({"id": request_id, "text": "noop"})
        self.sent[request_id] = time.perf_counter()
        self.client.publish(f"{ROOT}/request", payload, qos=1)

    def wait_answered(self, count: int, timeout: float = 30.0) -> None:
        with self.answered:
            if not self.answered.wait_for(lambda: len(self.round_trips_ms) >= count, timeout):
                raise TimeoutError(f"{len(self.round_trips_ms)} of {count} answered")

    def wait_in_flight_below(self, sent: int, limit: int) -> None:
        with self.answered:
            self.answered.wait_for(lambda: sent - len(self.round_trips_ms) < limit, 10)

    def reset(self) -> None:
        with self.answered:
            self.sent.clear()
            self.round_trips_ms.clear()
            self.door_ms.clear()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        arrived = time.perf_counter()
        answer = json.loads(message.payload)
        with self.answered:
            self.round_trips_ms[answer["id"]] = (arrived - self.sent[answer["id"]]) * 1000
            self.door_ms[answer["id"]] = answer["timings"]["total_ms"]
            self.answered.notify_all()


def _percentiles(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(statistics.median(values), 2),
        "p95": round(percentile(values, 0.95), 2),
        "p99": round(percentile(values, 0.99), 2),
        "max": round(max(values), 2),
    }


def _latency(client: BenchClient) -> dict[str, Any]:
    for index in range(WARMUP):
        client.send(f"warm-{index}")
        client.wait_answered(index + 1)
    client.reset()
    for index in range(LATENCY_REQUESTS):
        client.send(f"lat-{index}")
        client.wait_answered(index + 1)
    return {
        "requests": LATENCY_REQUESTS,
        "round_trip_ms": _percentiles(list(client.round_trips_ms.values())),
        "front_door_ms": _percentiles(list(client.door_ms.values())),
    }


def _throughput(client: BenchClient) -> dict[str, Any]:
    client.reset()
    sent = 0
    started = time.perf_counter()
    while time.perf_counter() - started < THROUGHPUT_SECONDS:
        client.wait_in_flight_below(sent, WINDOW)
        client.send(f"tp-{sent}")
        sent += 1
    client.wait_answered(sent)
    elapsed = time.perf_counter() - started
    return {
        "window": WINDOW,
        "requests": sent,
        "seconds": round(elapsed, 2),
        "requests_per_s": round(sent / elapsed, 1),
        "round_trip_ms": _percentiles(list(client.round_trips_ms.values())),
    }


def run() -> dict[str, Any]:
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, nodelay in (("stock_broker", False), ("broker_tcp_nodelay", True)):
            broker = MosquittoBroker(workdir=Path(tmp) / name, tcp_nodelay=nodelay)
            broker.start()
            try:
                with ServiceThread(broker):
                    client = BenchClient(broker)
                    try:
                        results[name] = {
                            "latency": _latency(client),
                            "throughput": _throughput(client),
                        }
                    finally:
                        client.close()
            finally:
                broker.stop()
    return results


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))

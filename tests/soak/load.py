"""Load for the soak: several MQTT clients, each a named principal, sending a steady mix of
fast-path commands and model requests, and keeping a ledger of every id sent and answered.

Each client is a plain paho client (its own network thread); it stamps answers as they
arrive, so latencies are end to end: publish on the client to answer on the client.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
import itertools
import json
import random
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from bench.stats import percentile

FAST_COMMANDS = (
    "turn on the kitchen lights",
    "turn off the kitchen lights",
    "turn on the fairy lights",
    "turn off the fairy lights",
    "turn on the living room lights",
    "turn off the living room lights",
)
MODEL_TEXTS = (
    "anything nice to do this evening?",
    "how cosy is the living room?",
    "what would you suggest for the kitchen?",
)


@dataclass
class Sent:
    kind: str
    """`fast` or `model`."""
    at: float


@dataclass
class Ledger:
    """Every request sent and every answer received, by id (thread-safe)."""

    sent: dict[str, Sent] = field(default_factory=dict)
    answers: dict[str, list[tuple[float, dict[str, Any]]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def send(self, request_id: str, kind: str) -> None:
        with self.lock:
            self.sent[request_id] = Sent(kind, time.monotonic())

    def answer(self, payload: dict[str, Any]) -> None:
        now = time.monotonic()
        with self.lock:
            self.answers.setdefault(str(payload.get("id")), []).append((now, payload))

    def outstanding(self) -> int:
        with self.lock:
            return sum(1 for request_id in self.sent if request_id not in self.answers)

    def summary(self) -> dict[str, Any]:
        """Counts, statuses and latency percentiles per kind."""
        with self.lock:
            sent = dict(self.sent)
            answers = {k: list(v) for k, v in self.answers.items()}
        duplicates = sum(len(v) - 1 for v in answers.values() if len(v) > 1)
        unknown = [k for k in answers if k not in sent]
        lost = [k for k in sent if k not in answers]
        result: dict[str, Any] = {
            "requests": len(sent),
            "responses": sum(len(v) for v in answers.values()),
            "duplicates": duplicates,
            "lost": len(lost),
            "unexpected_ids": len(unknown),
            "by_kind": {},
        }
        for kind in ("fast", "model"):
            ids = [k for k, s in sent.items() if s.kind == kind and k in answers]
            latencies = sorted((answers[k][0][0] - sent[k].at) * 1000 for k in ids)
            statuses = Counter(answers[k][0][1].get("status") for k in ids)
            codes = Counter(
                (answers[k][0][1].get("error") or {}).get("code")
                for k in ids
                if answers[k][0][1].get("error")
            )
            result["by_kind"][kind] = {
                "requests": sum(1 for s in sent.values() if s.kind == kind),
                "answered": len(ids),
                "statuses": dict(statuses),
                "error_codes": dict(codes),
                "latency_ms": percentiles(latencies),
            }
        return result


def percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p95": None, "p99": None, "max": None}

    def at(q: float) -> float:
        return round(percentile(values, q), 1)

    return {"p50": at(0.5), "p95": at(0.95), "p99": at(0.99), "max": round(max(values), 1)}


class LoadClient:
    """One principal's client: publishes on its request topic, collects its answers."""

    def __init__(
        self,
        host: str,
        port: int,
        root: str,
        principal: str,
        ledger: Ledger,
        *,
        model_share: float,
        seed: int,
    ) -> None:
        self.principal = principal
        self.request_topic = f"{root}/request/{principal}"
        self.response_topic = f"{root}/response/{principal}"
        self.ledger = ledger
        self.model_share = model_share
        self._random = random.Random(seed)
        self._numbers = itertools.count()
        self._subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"soak-{principal}")
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = lambda *args: self._subscribed.set()
        self.client.on_message = self._on_message
        self.client.connect(host, port)
        self.client.loop_start()

    def wait_ready(self, timeout_s: float = 10) -> None:
        if not self._subscribed.wait(timeout_s):
            raise TimeoutError(f"{self.principal} did not subscribe")

    def send_one(self) -> None:
        number = next(self._numbers)
        request_id = f"{self.principal}-{number}"
        if self._random.random() < self.model_share:
            kind, text = "model", self._random.choice(MODEL_TEXTS)
            payload = {"id": request_id, "text": text, "dry_run": True}
        else:
            kind, text = "fast", FAST_COMMANDS[number % len(FAST_COMMANDS)]
            payload = {"id": request_id, "text": text}
        self.ledger.send(request_id, kind)
        self.client.publish(self.request_topic, json.dumps(payload), qos=1)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: mqtt.Client, *args: Any) -> None:
        client.subscribe(self.response_topic, qos=1)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            payload = json.loads(message.payload)
        except ValueError:
            payload = {"id": None, "status": "unreadable"}
        self.ledger.answer(payload)

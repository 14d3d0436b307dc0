"""Load for the soak: several MQTT clients, each a named principal, sending a steady mix of
fast-path commands and model requests, and keeping a ledger of every id sent and answered;
an attacker flooding the app meanwhile, and an HA user who confirms through it all.

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
from botpsy_agent.contract import sign

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


class Attacker:
    """A client without an ACL doing what issue 18, finding 6 found: requests from invented
    principals (a new name each time), one named principal far over its rate limit, pairing
    starts and HA birth messages, all at once. Counts what it sent and the answers it got."""

    def __init__(self, host: str, port: int, root: str, *, greedy: str) -> None:
        self.root = root
        self.greedy = greedy
        self.sent: Counter[str] = Counter()
        self.codes: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._numbers = itertools.count()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="soak-attacker")
        self.client.on_connect = lambda c, *a: c.subscribe(
            [(f"{root}/response/#", 0), (f"{root}/pairing/response/#", 0)]
        )
        self.client.on_message = self._on_message
        self.client.connect(host, port)
        self.client.loop_start()

    def send_burst(self) -> None:
        """One round: 3 invented principals, 5 greedy requests, a pairing start; a birth
        message every 20 rounds."""
        number = next(self._numbers)
        for k in range(3):
            name = f"intruder-{number}-{k}"
            payload = {"id": f"x{number}-{k}", "text": "open the garage door"}
            self._publish(f"{self.root}/request/{name}", payload, "invented")
        for k in range(5):
            payload = {"id": f"g{number}-{k}", "text": "turn on the kitchen lights"}
            self._publish(f"{self.root}/request/{self.greedy}", payload, "greedy")
        start = {"v": 1, "step": "start", "session": f"flood-{number}", "share": "00" * 32}
        self._publish(f"{self.root}/pairing/request", start, "pairing")
        if number % 20 == 0:
            self.client.publish("homeassistant/status", "online", qos=0)
            with self._lock:
                self.sent["birth"] += 1

    def summary(self) -> dict[str, Any]:
        with self._lock:
            return {"sent": dict(self.sent), "answer_codes": dict(self.codes)}

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _publish(self, topic: str, payload: dict[str, Any], kind: str) -> None:
        self.client.publish(topic, json.dumps(payload), qos=0)
        with self._lock:
            self.sent[kind] += 1

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        mine = (
            f"{self.root}/response/intruder-",
            f"{self.root}/response/{self.greedy}",
            f"{self.root}/pairing/response/",
        )
        if not message.topic.startswith(mine):
            return  # the load clients' and the confirming user's answers
        try:
            payload = json.loads(message.payload)
        except ValueError:
            return
        code = (payload.get("error") or {}).get("code") or payload.get("code") or "ok"
        with self._lock:
            self.codes[str(code)] += 1


class Confirmer:
    """An HA user (signed, as the integration signs) who asks for something that needs a
    confirmation and answers "yes"; records how long each "yes" took to be answered."""

    def __init__(self, host: str, port: int, root: str, *, user_id: str, secret: str) -> None:
        self.root = root
        self.user_id = user_id
        self.secret = secret
        self.rounds: list[dict[str, Any]] = []
        self._answers: dict[str, dict[str, Any]] = {}
        self._arrived = threading.Condition()
        self._numbers = itertools.count()
        self._subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="soak-confirmer")
        self.client.on_connect = lambda c, *a: c.subscribe(f"{root}/response", qos=1)
        self.client.on_subscribe = lambda *args: self._subscribed.set()
        self.client.on_message = self._on_message
        self.client.connect(host, port)
        self.client.loop_start()

    def wait_ready(self, timeout_s: float = 10) -> None:
        if not self._subscribed.wait(timeout_s):
            raise TimeoutError("the confirmer did not subscribe")

    def one_round(self) -> None:
        """Ask, wait for the question, say yes; blocking (run it in a thread)."""
        number = next(self._numbers)
        conversation = f"soak-confirm-{number}"
        text = "open the garage door" if number % 2 == 0 else "close the garage door"
        asked = self._ask(f"c{number}", text, conversation)
        if asked is None or asked.get("status") != "needs_confirmation":
            self.rounds.append({"asked": None if asked is None else asked.get("status")})
            return
        started = time.monotonic()
        yes = self._ask(f"y{number}", "yes", conversation)
        self.rounds.append(
            {
                "asked": "needs_confirmation",
                "yes_status": None if yes is None else yes.get("status"),
                "yes_code": None if yes is None else (yes.get("error") or {}).get("code"),
                "yes_ms": round((time.monotonic() - started) * 1000, 1),
            }
        )

    def summary(self) -> dict[str, Any]:
        answered = [r for r in self.rounds if "yes_ms" in r]
        return {
            "rounds": len(self.rounds),
            "confirmed": sum(1 for r in answered if r["yes_status"] == "done"),
            "not_confirmed": [r for r in self.rounds if r.get("yes_status") != "done"][:5],
            "yes_latency_ms": percentiles(sorted(r["yes_ms"] for r in answered)),
        }

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _ask(self, request_id: str, text: str, conversation: str) -> dict[str, Any] | None:
        document = sign(
            {
                "id": request_id,
                "text": text,
                "user_id": self.user_id,
                "conversation_id": conversation,
            },
            self.secret,
        )
        self.client.publish(f"{self.root}/request", json.dumps(document), qos=1)
        with self._arrived:
            self._arrived.wait_for(lambda: request_id in self._answers, timeout=10)
            return self._answers.pop(request_id, None)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            payload = json.loads(message.payload)
        except ValueError:
            return
        with self._arrived:
            self._answers[str(payload.get("id"))] = payload
            self._arrived.notify_all()

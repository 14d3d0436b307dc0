"""What the front door is doing, for the stats topic and HA's sensors."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
import time
from typing import Any

RATE_WINDOW_S = 60.0


class DoorStats:
    """Requests being worked on, the last answer's latency and the rate of the last minute."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.in_flight = 0
        self.last_latency_ms: float | None = None
        self.answered = 0
        self.refused_at_door = 0
        self._accepted: deque[float] = deque()
        self.on_change: Callable[[], None] = lambda: None

    def accepted(self) -> None:
        self.in_flight += 1
        self._accepted.append(self._clock())
        self.on_change()

    def finished(self, latency_ms: float) -> None:
        self.in_flight -= 1
        self.answered += 1
        self.last_latency_ms = latency_ms
        self.on_change()

    def refused(self) -> None:
        self.refused_at_door += 1
        self.on_change()

    def requests_per_minute(self) -> int:
        horizon = self._clock() - RATE_WINDOW_S
        while self._accepted and self._accepted[0] < horizon:
            self._accepted.popleft()
        return len(self._accepted)

    def to_json(self) -> dict[str, Any]:
        latency = None if self.last_latency_ms is None else round(self.last_latency_ms, 1)
        return {
            "queue_length": self.in_flight,
            "busy": self.in_flight > 0,
            "last_latency_ms": latency,
            "requests_per_minute": self.requests_per_minute(),
            "answered": self.answered,
            "refused_at_door": self.refused_at_door,
        }

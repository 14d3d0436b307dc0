"""The app in a process of its own, as it runs in production (no model: the fast path and
execution only), for the bench's whole-answer timings: its event loop, its MQTT client and
its HA connection share nothing with the bench that measures it.

Usage: python -m bench.coverage.app_process '<json settings>'  (prints "ready" when serving;
stops on SIGTERM or when its stdin closes)
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
from pathlib import Path
import signal
import sys
import time

from botpsy_agent.agent.core import AgentSettings
from botpsy_agent.app.runtime import App, RuntimeConfig
from botpsy_agent.ha.client import HaEndpoint
from botpsy_agent.mqtt.settings import ApiSettings, BrokerSettings


class GcWatch:
    """How often each generation was collected and how long the longest pause was."""

    def __init__(self) -> None:
        self.counts = [0, 0, 0]
        self.longest_ms = [0.0, 0.0, 0.0]
        self.total_ms = 0.0
        self.long_pauses: list[tuple[float, int, float]] = []
        """(monotonic time, generation, ms) of every pause over 10 ms."""
        self._started = 0.0
        gc.callbacks.append(self._on)

    def _on(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        ms = (time.perf_counter() - self._started) * 1000
        generation = info["generation"]
        self.counts[generation] += 1
        self.longest_ms[generation] = max(self.longest_ms[generation], ms)
        self.total_ms += ms
        if ms > 10:
            self.long_pauses.append((round(time.monotonic(), 3), generation, round(ms, 1)))

    def report(self) -> dict[str, object]:
        return {
            "collections": self.counts,
            "longest_pause_ms": [round(ms, 2) for ms in self.longest_ms],
            "total_ms": round(self.total_ms, 1),
            "long_pauses": self.long_pauses,
        }


async def serve(settings: dict[str, str | int]) -> None:
    watch = GcWatch()
    data = Path(str(settings["data_dir"]))
    app = App(
        RuntimeConfig(
            ha=HaEndpoint.from_base_url(str(settings["ha_url"]), str(settings["token"])),
            broker=BrokerSettings(
                str(settings["broker_host"]), int(settings["broker_port"]), client_id="bench-app"
            ),
            api=ApiSettings(instance=str(settings["instance"])),
            policy_file=Path(str(settings["policy_file"])),
            data_dir=data,
            model=None,
            agent=AgentSettings(),
            health_file=data / "health.json",
        )
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_reader(sys.stdin.fileno(), lambda: None if sys.stdin.read(1) else stop.set())
    await app.start()
    await app.index.wait_ready(60)
    print("ready", flush=True)
    await stop.wait()
    await app.stop()
    print(json.dumps(watch.report()), flush=True)


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    asyncio.run(serve(json.loads(sys.argv[1])))


if __name__ == "__main__":
    main()

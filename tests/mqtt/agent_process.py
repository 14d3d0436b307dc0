"""The MQTT service with an `EchoAgent`, alone in its own process, so a test can kill it.

    python -m tests.mqtt.agent_process --port 1883 [--host 127.0.0.1] [--instance test]

Prints "ready" once online, then serves until killed.
"""

from __future__ import annotations

import argparse
import asyncio
import logging

from botpsy_agent.mqtt import ApiSettings, BrokerSettings, MqttService
from tests.mqtt.agents import EchoAgent


async def serve(host: str, port: int, instance: str) -> None:
    service = MqttService(EchoAgent(), BrokerSettings(host=host, port=port), ApiSettings(instance))
    await service.start()
    await service.wait_online()
    print("ready", flush=True)
    await asyncio.Event().wait()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--instance", default="test")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    asyncio.run(serve(args.host, args.port, args.instance))


if __name__ == "__main__":
    main()

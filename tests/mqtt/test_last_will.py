"""The broker's last will says `offline` when the app dies without a goodbye."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
import signal
import sys

from devkit.mosquitto import MosquittoBroker
from tests.mqtt.client import ApiClient, subscribed_client
from tests.mqtt.conftest import INSTANCE, ROOT

REPO = Path(__file__).resolve().parents[2]


async def test_the_will_sets_offline_when_the_app_process_is_killed(
    mosquitto: MosquittoBroker, client: ApiClient
) -> None:
    await client.subscribe(f"{ROOT}/status")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "addon"), str(REPO)])}
    app = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "tests.mqtt.agent_process"),
        *("--port", str(mosquitto.port), "--instance", INSTANCE),
        cwd=REPO,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    client.patience_s = 30  # the process imports the app first
    try:
        online = await client.expect(f"{ROOT}/status", lambda message: message.state == "online")
        client.publish(f"{ROOT}/request", {"id": "alive", "text": "are you there?"})
        assert (await client.response(f"{ROOT}/response", "alive"))["status"] == "done"

        app.send_signal(signal.SIGKILL)  # no clean disconnect, no "offline" of its own
        will = await client.expect(f"{ROOT}/status", lambda message: message.state == "offline")
        # The will is about the connection that said online (HA believes it for that one).
        assert will.json()["session"] == online.json()["session"]
        assert isinstance(will.json()["sigs"], dict)
    finally:
        if app.returncode is None:
            app.kill()
        output, _ = await app.communicate()
    assert b"ready" in output
    assert app.returncode == -signal.SIGKILL

    # The will was retained: newcomers see "offline" too.
    async with subscribed_client(mosquitto, f"{ROOT}/status") as late:
        status = await late.expect(f"{ROOT}/status")
        assert (status.state, status.retain) == ("offline", True)

"""Issue 18, finding 7 on the real app: five "reload model" presses at once leave exactly
one model worker loaded (they left four loaded workers unreferenced, ~1 GB each for Q8_0)."""

from __future__ import annotations

import asyncio
import gc

from pytest_homeassistant_custom_component.common import MockConfigEntry

from botpsy_agent.llm.worker import ModelWorker
from devkit.mosquitto import MosquittoBroker
from tests.ha_mqtt import wait_for
from tests.integration.conftest import INSTANCE, AppRunner
from tests.mqtt_probe import MqttProbe


def live_workers() -> list[ModelWorker]:
    gc.collect()
    return [o for o in gc.get_objects() if isinstance(o, ModelWorker) and o.alive]


async def test_five_presses_at_once_leave_one_loaded_worker(
    mqtt_entry: MockConfigEntry, app_runner: AppRunner, mosquitto: MosquittoBroker
) -> None:
    app = await app_runner.start(model=True)
    assert app.worker is not None
    await asyncio.wait_for(app.worker.wait_loaded(), 60)
    first = app.worker
    presser = MqttProbe(mosquitto.host, mosquitto.port)
    await asyncio.to_thread(presser.connect)
    try:
        for _ in range(5):
            await asyncio.to_thread(
                presser.publish, f"botpsy/{INSTANCE}/command/reload_model", "PRESS"
            )
    finally:
        await asyncio.to_thread(presser.close)
    await wait_for(lambda: app.worker is not first, "a reload", timeout_s=30)
    await asyncio.wait_for(app.worker.wait_loaded(), 60)
    await asyncio.sleep(1.0)  # any further (wrong) reload would have started by now
    await asyncio.wait_for(app.worker.wait_loaded(), 60)
    assert app._retired == []
    assert live_workers() == [app.worker]

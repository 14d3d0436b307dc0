"""Issue 18, finding 7 on the real app: five "reload model" presses at once leave exactly
one model worker loaded (they left four loaded workers unreferenced, ~1 GB each for Q8_0)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading

from pytest_homeassistant_custom_component.common import MockConfigEntry

from botpsy_agent.ha import ConnectionState
from botpsy_agent.llm.engine import Engine
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


async def test_a_reload_during_the_grammar_check_is_no_model_failure(
    mqtt_entry: MockConfigEntry, app_runner: AppRunner
) -> None:
    """A press stops the worker whose grammars are being checked: that check ends with
    `ModelUnavailable`, which was raised out of the task (and stopping the app then stopped
    at it, before HA's client). The new worker's own check reports it ready."""
    app = await app_runner.start(model=True)
    assert app.worker is not None
    await asyncio.wait_for(app.worker.wait_loaded(), 60)
    old = app.worker

    holding = threading.Event()

    def hold(_engine: Engine, cancel: threading.Event) -> bool:
        holding.set()
        return cancel.wait(30)  # keeps the check below queued until the reload stops `old`

    held = asyncio.create_task(old.run(hold, 60))
    await wait_for(holding.is_set, "the worker busy", timeout_s=30)
    waiting = old.queue_length
    checking = asyncio.create_task(app._model_ready())
    await wait_for(lambda: old.queue_length > waiting, "the grammar check queued", timeout_s=10)
    await app.reload_model()
    await asyncio.wait_for(checking, 10)
    with contextlib.suppress(Exception):
        await held
    assert app.worker is not old
    await wait_for(lambda: app.health.snapshot.model_loaded, "the new model ready", timeout_s=30)
    assert "model" not in app._problems


async def test_stopping_goes_on_past_a_task_that_failed(app_runner: AppRunner) -> None:
    """One background task that had failed no longer keeps the app from closing the rest
    (here: its connection to HA)."""
    app = await app_runner.start(model=False)

    async def fail() -> None:
        raise RuntimeError("a task's own failure")

    failed = asyncio.create_task(fail())
    app._tasks.append(failed)
    await asyncio.wait({failed})
    await app_runner.stop(app)
    assert app.client.state is ConnectionState.STOPPED

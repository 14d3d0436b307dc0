"""The model worker: one job at a time, `busy` when the queue is full, cancel on timeout,
and a clean stop. Prefix builds (warm-ups) are tested in test_prefix_build.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
import threading

import pytest

from botpsy_agent.llm.llama_cpp import EngineSettings, LlamaEngine
from botpsy_agent.llm.worker import Job, ModelBusy, ModelTimeout, ModelUnavailable, ModelWorker
from tests.ha_bridge import wait_until


@pytest.fixture
async def worker(tiny_qwen35_gguf: Path) -> AsyncIterator[ModelWorker]:
    worker = ModelWorker(
        lambda: LlamaEngine(EngineSettings(tiny_qwen35_gguf, context_length=2048)), max_queue=2
    )
    worker.start()
    await worker.wait_loaded()
    yield worker
    worker.stop()


def blocking_job(release: threading.Event, started: threading.Event) -> Job[str]:
    def job(engine: LlamaEngine, cancel: threading.Event) -> str:
        started.set()
        while not release.wait(0.01):
            if cancel.is_set():
                return "cancelled"
        return "done"

    return job


async def test_jobs_run_on_the_model_thread_with_the_engine(worker: ModelWorker) -> None:
    def job(engine: LlamaEngine, cancel: threading.Event) -> tuple[str, int]:
        return threading.current_thread().name, len(engine.tokenize("hello"))

    name, count = await worker.run(job, timeout_s=10)
    assert name == "botpsy-model"
    assert count > 0


async def test_a_full_queue_answers_busy_at_once(worker: ModelWorker) -> None:
    release, started = threading.Event(), threading.Event()
    first = worker.run(blocking_job(release, started), timeout_s=10)
    running = asyncio.ensure_future(first)
    await asyncio.to_thread(started.wait, 5)
    queued = asyncio.ensure_future(worker.run(blocking_job(release, threading.Event()), 10))
    await wait_until(lambda: worker.queue_length == 2)
    assert worker.queue_length == 2
    with pytest.raises(ModelBusy):
        await worker.run(blocking_job(release, threading.Event()), timeout_s=10)
    release.set()
    assert await running == "done"
    assert await queued == "done"
    assert worker.queue_length == 0


async def test_a_slow_job_is_cancelled_on_timeout(worker: ModelWorker) -> None:
    started = threading.Event()
    never = threading.Event()
    with pytest.raises(ModelTimeout):
        await worker.run(blocking_job(never, started), timeout_s=0.2)
    assert started.is_set()

    def quick(engine: LlamaEngine, cancel: threading.Event) -> str:
        return "next"

    assert await worker.run(quick, timeout_s=5) == "next"  # the worker was freed


async def test_a_model_that_fails_to_load_makes_requests_fail_clearly(tmp_path: Path) -> None:
    worker = ModelWorker(lambda: LlamaEngine(EngineSettings(tmp_path / "missing.gguf")))
    worker.start()
    with pytest.raises(ModelUnavailable, match="does not exist"):
        await worker.wait_loaded()
    with pytest.raises(ModelUnavailable):
        await worker.run(lambda e, c: None, timeout_s=1)
    worker.stop()


def test_every_reason_the_worker_gives_is_one_family() -> None:
    """The planner catches `ModelWorkerError`: a new reason outside it would escape as
    `internal_error` instead of its own answer."""
    import inspect

    from botpsy_agent.llm import worker

    reasons = [
        cls
        for _, cls in inspect.getmembers(worker, inspect.isclass)
        if issubclass(cls, Exception) and cls.__module__ == worker.__name__
    ]
    assert len(reasons) >= 5  # busy, timeout, unavailable, server down, warming up, the base
    assert all(issubclass(cls, worker.ModelWorkerError) for cls in reasons), reasons

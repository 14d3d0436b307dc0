"""One model worker: a thread that owns the engine, a bounded queue, cancellation, warm-ups.

A `Llama` is not thread-safe, so every model job runs here, one at a time. The asyncio side
submits jobs and awaits them; a full queue answers `ModelBusy` at once; a job that outlives its
timeout is cancelled (the engine checks the flag between tokens and batches). Warm-ups
(prefix snapshots for a changed entity listing) run only when no request waits, and yield to
one that arrives.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
import itertools
import logging
import queue
import threading
import time
from typing import Any

from botpsy_agent.llm.engine import Cancelled, LlamaEngine

_LOGGER = logging.getLogger(__name__)

type Job[T] = Callable[[LlamaEngine, threading.Event], T]


class ModelBusy(Exception):
    """The queue is full; answer `busy` now rather than make the person wait."""


class ModelTimeout(Exception):
    """The job did not finish in time and was cancelled."""


class ModelUnavailable(Exception):
    """No model is loaded (loading, failed, or stopped)."""


@dataclass(order=True)
class _Item:
    priority: int  # 0: a request, 1: a warm-up
    sequence: int
    job: Job[Any] = field(compare=False)
    cancel: threading.Event = field(compare=False)
    future: Future[Any] = field(compare=False)


_STOP = object()


class ModelWorker:
    """Owns the engine; runs jobs one at a time on its own thread."""

    def __init__(self, engine_factory: Callable[[], LlamaEngine], max_queue: int = 4) -> None:
        self._factory = engine_factory
        self.max_queue = max_queue
        self._queue: queue.PriorityQueue[_Item] = queue.PriorityQueue()
        self._sequence = itertools.count()
        self._waiting_requests = 0
        self._lock = threading.Lock()
        self._current: _Item | None = None
        self._thread: threading.Thread | None = None
        self.engine: LlamaEngine | None = None
        self.load_error: BaseException | None = None
        self.loaded = threading.Event()
        self.last_job_ms = 0.0
        self.crashed: BaseException | None = None
        """What ended the thread, when something other than `stop()` did."""

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the thread; the model loads there (progress is logged), then jobs run."""
        self._thread = threading.Thread(target=self._run, name="botpsy-model", daemon=False)
        self._thread.start()

    async def wait_loaded(self) -> LlamaEngine:
        await asyncio.to_thread(self.loaded.wait)
        if self.engine is None:
            raise ModelUnavailable(f"the model did not load: {self.load_error}")
        return self.engine

    def stop(self, timeout: float = 30.0) -> None:
        """Cancel what runs, refuse what waits, unload the model, join the thread."""
        if self._thread is None:
            return
        with self._lock:
            if self._current is not None:
                self._current.cancel.set()
        self._refuse_remaining()  # now: a thread stuck in a job would never reach them
        stop_item = _Item(2, next(self._sequence), lambda e, c: _STOP, threading.Event(), Future())
        self._queue.put(stop_item)
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self._thread = None  # a thread stuck in a job stays joinable by a later stop()

    @property
    def alive(self) -> bool:
        """The thread runs (loading, serving or stopping)."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def current_job(self) -> tuple[int, bool] | None:
        """The job running now as (sequence number, asked to stop), or None: lets a watchdog
        see a job that ignores its cancellation."""
        with self._lock:
            item = self._current
            return None if item is None else (item.sequence, item.cancel.is_set())

    @property
    def queue_length(self) -> int:
        with self._lock:
            return self._waiting_requests

    @property
    def busy(self) -> bool:
        return self.queue_length >= self.max_queue

    # --- jobs --------------------------------------------------------------------------------

    async def run[T](self, job: Job[T], timeout_s: float) -> T:
        """Run a request job; `ModelBusy` if the queue is full, `ModelTimeout` if too slow."""
        if not self.alive or (self.loaded.is_set() and self.engine is None):
            raise ModelUnavailable("no model is loaded")
        with self._lock:
            if self._waiting_requests >= self.max_queue:
                raise ModelBusy(f"{self._waiting_requests} requests are already waiting")
            self._waiting_requests += 1
            # A request pre-empts a warm-up in progress; the warm-up is queued again.
            if self._current is not None and self._current.priority == 1:
                self._current.cancel.set()
        item = _Item(0, next(self._sequence), job, threading.Event(), Future())
        self._queue.put(item)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(item.future), timeout_s)
        except TimeoutError:
            item.cancel.set()
            raise ModelTimeout(f"the model did not answer within {timeout_s:g} s") from None

    def warm_up(self, job: Job[Any]) -> None:
        """Queue background work that yields to requests (e.g. a prefix snapshot)."""
        self._queue.put(_Item(1, next(self._sequence), job, threading.Event(), Future()))

    # --- the thread ----------------------------------------------------------------------------

    def _run(self) -> None:
        started = time.monotonic()
        try:
            _LOGGER.info("Loading the model…")
            self.engine = self._factory()
            _LOGGER.info("Model loaded in %.1f s", time.monotonic() - started)
        except Exception as err:
            self.load_error = err
            _LOGGER.error("The model failed to load: %s", err)  # noqa: TRY400
        finally:
            self.loaded.set()
        while True:
            item = self._queue.get()
            if item.priority == 2:
                break
            try:
                self._execute(item)
            except BaseException as err:  # the thread ends: say why, answer what waits
                self.crashed = err
                _LOGGER.critical("The model worker crashed: %r", err)
                if item.future.running():
                    item.future.set_exception(ModelUnavailable("the model worker crashed"))
                break
        if self.engine is not None:
            self.engine.close()
            self.engine = None
        self._refuse_remaining()

    def _execute(self, item: _Item) -> None:
        with self._lock:
            self._current = item
        started = time.monotonic()
        try:
            item.future.set_result(self._call(item))
        except Cancelled as cancelled:
            if item.priority == 1:
                self.warm_up(item.job)  # pre-empted: try again when requests are done
            if item.future.running():
                item.future.set_exception(cancelled)
        except Exception as err:
            _LOGGER.exception("A model job failed")
            item.future.set_exception(err)
        finally:
            self.last_job_ms = (time.monotonic() - started) * 1000
            with self._lock:
                self._current = None
                if item.priority == 0:
                    self._waiting_requests -= 1

    def _call(self, item: _Item) -> Any:
        # False when the waiter already gave up (timed out) before the job started.
        if not item.future.set_running_or_notify_cancel() or item.cancel.is_set():
            raise Cancelled
        if self.engine is None:
            raise ModelUnavailable(f"the model did not load: {self.load_error}")
        return item.job(self.engine, item.cancel)

    def _refuse_remaining(self) -> None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if item.priority == 0 and item.future.set_running_or_notify_cancel():
                item.future.set_exception(ModelUnavailable("the model worker stopped"))

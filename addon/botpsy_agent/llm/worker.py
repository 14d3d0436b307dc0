"""One model worker: a thread that owns the engine, a bounded queue, cancellation, warm-ups.

A `Llama` is not thread-safe, so every model job runs here, one at a time. The asyncio side
submits jobs and awaits them; a full queue answers `ModelBusy` at once; a job that outlives its
timeout is cancelled (the engine checks the flag between tokens and batches). Warm-ups
(prefix snapshots for a changed entity listing) start only when no request waits.

A prefix build, in a warm-up or inside a request, is never cancelled by a request: it runs to
its end (cancelling it meant starting again from zero, a livelock on a slow machine). Its time
is not charged to any request's timeout; a request that would wait longer than
`build_wait_s` for it is answered `ModelWarmingUp` at once, with the progress and an estimate.

A warm-up's build (a rebuild after a home change) runs in the background: when a request
arrives it pauses between batches, keeping what it evaluated, the request is served (from
its principal's snapshot, still valid if the change did not touch its listing; a request
that needs the prefix being built goes on with the build itself), and the warm-up is queued
again to finish from where it stopped.

With a model server configured (`server`), each job goes to the engine `EngineRouter` picks
before it starts: the server while healthy, else the local model. A job that finds the
server down is run once more on the local model: a model job only plans (it generates; the
agent executes after it returns), so nothing was done twice and nothing is lost.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
import itertools
import logging
import queue
import threading
import time
from typing import Any

from botpsy_agent.llm.engine import BuildProgress, Cancelled, Engine
from botpsy_agent.llm.llama_cpp import BuildYielded, LlamaEngine
from botpsy_agent.llm.llama_server import ServerDown, ServerSettings
from botpsy_agent.llm.routing import SERVER_PROBE_INTERVAL_S, EngineKind, EngineRouter

_LOGGER = logging.getLogger(__name__)

type Job[T] = Callable[[Engine, threading.Event], T]


class ModelWorkerError(Exception):
    """Why the model worker ran no job (or none to its end): the one family callers catch."""


class ModelBusy(ModelWorkerError):
    """The queue is full; answer `busy` now rather than make the person wait."""


class ModelTimeout(ModelWorkerError):
    """The job did not finish in time and was cancelled."""


class ModelUnavailable(ModelWorkerError):
    """No model is loaded (loading, failed, or stopped)."""


class ModelServerDown(ModelUnavailable):
    """The model server is down and no local model is configured to stand in."""

    code = "model_server_down"


class ModelWarmingUp(ModelWorkerError):
    """A prefix build is under way and would outlast the request's wait for it."""

    def __init__(self, percent: int, eta_s: float) -> None:
        super().__init__(f"the model is warming up ({percent} %, about {eta_s:.0f} s left)")
        self.percent = percent
        self.eta_s = eta_s


BUILD_WAIT_S = 20.0
"""How long a request waits for a prefix build before it is answered `warming_up`: with the
request's own 60 s, under the integration's 90 s wait for an answer."""
_POLL_S = 0.25


@dataclass(order=True)
class _Item:
    priority: int  # 0: a request, 1: a warm-up, 2: stop
    sequence: int
    job: Job[Any] = field(compare=False)
    cancel: threading.Event = field(compare=False)
    future: Future[Any] = field(compare=False)


_STOP = object()


def model_stats(worker: ModelWorker | None) -> dict[str, Any]:
    """The model's part of the `stats` topic: `none`, `warming_up` (with how far) or `ready`,
    and which engine serves (`server`, `local`, or None)."""
    router = None if worker is None else worker.router
    engine = None if router is None else router.serving_kind
    if router is None and worker is not None and worker.local is not None:
        engine = "local"
    build = None if worker is None else worker.warming
    if build is not None:
        eta = build.eta_s
        return {
            "model_state": "warming_up",
            "warming_up_percent": build.percent,
            "warming_up_eta_s": None if eta is None else round(eta),
            "model_engine": engine,
        }
    ready = worker is not None and worker.alive and worker.engine is not None
    return {
        "model_state": "ready" if ready else "none",
        "warming_up_percent": None,
        "warming_up_eta_s": None,
        "model_engine": engine if ready else None,
    }


class ModelWorker:
    """Owns the engine; runs jobs one at a time on its own thread."""

    def __init__(
        self,
        engine_factory: Callable[[], LlamaEngine] | None,
        max_queue: int = 4,
        *,
        build_wait_s: float = BUILD_WAIT_S,
        server: ServerSettings | None = None,
        probe_interval_s: float = SERVER_PROBE_INTERVAL_S,
    ) -> None:
        """`engine_factory` loads the local model (None: none); `server` is the model
        server to prefer while it is healthy (None: none)."""
        self._factory = engine_factory
        self._server = server
        self._probe_interval_s = probe_interval_s
        self.max_queue = max_queue
        self.build_wait_s = build_wait_s
        self._queue: queue.PriorityQueue[_Item] = queue.PriorityQueue()
        self._sequence = itertools.count()
        self._waiting_requests = 0
        self._lock = threading.Lock()
        self._current: _Item | None = None
        self._thread: threading.Thread | None = None
        self.local: LlamaEngine | None = None
        """The local model, once loaded."""
        self.router: EngineRouter | None = None
        """Set once loaded when a model server is configured."""
        self.load_error: BaseException | None = None
        self.loaded = threading.Event()
        self.last_job_ms = 0.0
        self.served: Counter[str] = Counter()
        """Jobs answered per engine (`server`, `local`) since start."""
        self.retried_locally = 0
        """Jobs the server failed in flight and the local model then answered."""
        self.crashed: BaseException | None = None
        """What ended the thread, when something other than `stop()` did."""

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the thread; the model loads there (progress is logged), then jobs run."""
        self._thread = threading.Thread(target=self._run, name="botpsy-model", daemon=False)
        self._thread.start()

    @property
    def engine(self) -> Engine | None:
        """The engine the next job goes to: the model server while it serves, else the
        local model; None when neither is available."""
        router = self.router
        if router is None:
            return self.local
        chosen = router.serving()
        return None if chosen is None else chosen[1]

    async def wait_loaded(self) -> Engine:
        await asyncio.to_thread(self.loaded.wait)
        engine = self.engine
        if engine is None:
            raise self._unavailable()
        return engine

    def _unavailable(self) -> ModelUnavailable:
        router = self.router
        if router is not None and router.problem is not None and self.local is None:
            return ModelServerDown(f"the model server is down: {router.problem}")
        return ModelUnavailable(f"the model did not load: {self.load_error}")

    def stop(self, timeout: float = 30.0) -> None:
        """Cancel what runs, refuse what waits, unload the model, join the thread."""
        if self._thread is None:
            return
        with self._lock:
            if self._current is not None:
                self._current.cancel.set()
        if self.local is not None:
            self.local.abort.set()  # the one thing that interrupts a prefix build
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
        see a job that ignores its cancellation. A job building a prefix is not asked to
        stop (the build runs to its end, making progress)."""
        with self._lock:
            item = self._current
            if item is None:
                return None
            return item.sequence, item.cancel.is_set() and self.warming is None

    @property
    def warming(self) -> BuildProgress | None:
        """The prefix build under way, if any (for `warming_up` answers and the stats); only
        the local model's builds are seen (the server's happen inside its requests)."""
        engine = self.local
        return None if engine is None else engine.build

    @property
    def queue_length(self) -> int:
        with self._lock:
            return self._waiting_requests

    @property
    def busy(self) -> bool:
        return self.queue_length >= self.max_queue

    @property
    def idle(self) -> bool:
        """Nothing runs and nothing waits: no request, no warm-up."""
        with self._lock:
            return self._current is None and self._queue.empty()

    # --- jobs --------------------------------------------------------------------------------

    async def run[T](self, job: Job[T], timeout_s: float) -> T:
        """Run a request job; `ModelBusy` if the queue is full, `ModelTimeout` if too slow,
        `ModelWarmingUp` if a prefix build would keep it waiting over `build_wait_s`.

        `timeout_s` counts the request's own time: what the worker spends building a
        prefix meanwhile (for this request or another) is not charged to it."""
        if not self.alive:
            raise ModelUnavailable("no model is loaded")
        if self.loaded.is_set() and self.engine is None:
            raise self._unavailable()
        self._refuse_if_warming(self.build_wait_s)
        with self._lock:
            if self._waiting_requests >= self.max_queue:
                raise ModelBusy(f"{self._waiting_requests} requests are already waiting")
            self._waiting_requests += 1
        item = _Item(0, next(self._sequence), job, threading.Event(), Future())
        self._queue.put(item)
        future: asyncio.Future[T] = asyncio.wrap_future(item.future)
        try:
            return await self._answer(future, timeout_s)
        except BaseException:
            item.cancel.set()  # the job stops (a prefix build in it runs to its end)
            future.add_done_callback(_unheard)  # nobody waits for its outcome any more
            raise

    async def _answer[T](self, future: asyncio.Future[T], timeout_s: float) -> T:
        loop = asyncio.get_running_loop()
        started, built_before = loop.time(), self._build_seconds()
        waited_on_builds = 0.0
        while True:
            building = self._build_seconds() - built_before
            if building > waited_on_builds:  # a build ran while this request waited
                waited_on_builds = building
                self._refuse_if_warming(self.build_wait_s - building)
            remaining = timeout_s - (loop.time() - started - building)
            if remaining <= 0:
                raise ModelTimeout(f"the model did not answer within {timeout_s:g} s")
            # asyncio.wait, not wait_for(shield(...)): a cancelled shield would report the
            # job's later exception as "exception in shielded future".
            done, _ = await asyncio.wait({future}, timeout=min(remaining, _POLL_S))
            if done:
                return future.result()

    def _refuse_if_warming(self, wait_left_s: float) -> None:
        build = self.warming
        engine = self.local
        if build is None or (engine is not None and engine.yield_build is not None):
            return  # nothing builds, or a warm-up does, which pauses for this request
        eta = build.eta_s
        if eta is not None and eta > wait_left_s:
            raise ModelWarmingUp(build.percent, eta)
        if wait_left_s <= 0:
            raise ModelWarmingUp(build.percent, eta or 0.0)

    def _build_seconds(self) -> float:
        engine = self.local
        return 0.0 if engine is None else engine.build_seconds()

    def warm_up(self, job: Job[Any]) -> None:
        """Queue background work that yields to requests (e.g. a prefix snapshot)."""
        self._queue.put(_Item(1, next(self._sequence), job, threading.Event(), Future()))

    # --- the thread ----------------------------------------------------------------------------

    def _run(self) -> None:
        started = time.monotonic()
        try:
            if self._factory is not None:
                _LOGGER.info("Loading the model…")
                self.local = self._factory()
                _LOGGER.info("Model loaded in %.1f s", time.monotonic() - started)
        except Exception as err:
            self.load_error = err
            _LOGGER.error("The model failed to load: %s", err)  # noqa: TRY400
        finally:
            try:
                if self._server is not None:
                    self.router = EngineRouter(
                        self._server, self.local, probe_interval_s=self._probe_interval_s
                    )
                    self.router.start()  # the first probe, then one every interval
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
        if self.router is not None:
            self.router.stop()
        if self.local is not None:
            self.local.close()
            self.local = None
        self._refuse_remaining()

    def _execute(self, item: _Item) -> None:
        with self._lock:
            self._current = item
        started = time.monotonic()
        outcome: Callable[[], None]
        try:
            result = self._call(item)
            outcome = partial(item.future.set_result, result)
        except BuildYielded:  # the warm-up goes on after the requests now waiting
            _LOGGER.debug("Warm-up %d paused for a request", item.sequence)
            self._queue.put(_Item(1, next(self._sequence), item.job, item.cancel, Future()))
            outcome = partial(item.future.set_result, None)
        except Cancelled as cancelled:
            outcome = partial(_fail_if_running, item.future, cancelled)
        except ModelServerDown as err:  # expected while it is down: one line, no trace
            _LOGGER.warning("Job %d: %s", item.sequence, err)
            outcome = partial(item.future.set_exception, err)
        except Exception as err:
            _LOGGER.exception("A model job failed")
            outcome = partial(item.future.set_exception, err)
        finally:
            # The request leaves the queue before its requester hears the outcome: one that
            # asks again at once must not find its own finished request still counted.
            self.last_job_ms = (time.monotonic() - started) * 1000
            with self._lock:
                self._current = None
                if item.priority == 0:
                    self._waiting_requests -= 1
        outcome()

    def _call(self, item: _Item) -> Any:
        # False when the waiter already gave up (timed out) before the job started.
        if not item.future.set_running_or_notify_cancel() or item.cancel.is_set():
            raise Cancelled
        router = self.router
        chosen = None if router is None else router.serving()
        kind: EngineKind
        engine: Engine
        if chosen is not None:
            kind, engine = chosen
        elif self.local is not None:
            kind, engine = "local", self.local
        else:
            raise self._unavailable()
        pausable = item.priority == 1 and isinstance(engine, LlamaEngine)
        if pausable:
            assert isinstance(engine, LlamaEngine)
            engine.yield_build = self._request_waiting
        try:
            result = item.job(engine, item.cancel)
        except ServerDown as err:
            assert router is not None
            router.failed(str(err))
            if self.local is None or item.cancel.is_set():
                raise ModelServerDown(f"the model server is down: {err}") from None
            _LOGGER.warning(
                "Job %d: the model server failed (%s); the local model runs it", item.sequence, err
            )
            result = item.job(self.local, item.cancel)
            self.retried_locally += 1
            kind = "local"
        finally:
            if pausable:
                assert isinstance(engine, LlamaEngine)
                engine.yield_build = None
        self.served[kind] += 1
        return result

    def _request_waiting(self) -> bool:
        with self._lock:
            return self._waiting_requests > 0

    def _refuse_remaining(self) -> None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if item.priority == 0 and item.future.set_running_or_notify_cancel():
                item.future.set_exception(ModelUnavailable("the model worker stopped"))


def _unheard(future: asyncio.Future[Any]) -> None:
    """Retrieve the outcome of a job whose request has gone (it ends `Cancelled`), so
    asyncio does not report it as an exception nobody looked at."""
    if not future.cancelled():
        future.exception()


def _fail_if_running(future: Future[Any], error: BaseException) -> None:
    """A cancelled job's outcome, unless its waiter already cancelled the future."""
    if future.running():
        future.set_exception(error)
